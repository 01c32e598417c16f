package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The receiving side of the broker's webhooks (sdk/src/webhooks.ts, docs/webhooks.md), by the
 * Standard Webhooks specification: `webhook-signature` holds space-separated `v1,<base64>`
 * entries, each an HMAC-SHA256 of {@code id + "." + timestamp + "." + body} under the secret
 * (`whsec_<base64>`: the key is the base64-decoded part); `webhook-timestamp` must lie within the
 * tolerance of now (either way), so an old delivery cannot be replayed. Several secrets are taken
 * while one rotates. Signatures are compared in constant time (MessageDigest.isEqual).
 *
 * {@link #receive} verifies and classifies by the delivery rules (duplicate, stale, apply) and
 * records nothing: the caller applies, then calls {@link #markApplied}, then answers 2xx; a crash
 * between the two makes the broker's redelivery an "apply" again rather than a lost event.
 */
public final class WebhookReceiver {
  public enum Outcome { APPLY, DUPLICATE, STALE }

  /** The verdict on one verified delivery: answer 2xx for all three. */
  public static final class Result {
    public final Outcome outcome;
    public final JsonNode event;

    Result(Outcome outcome, JsonNode event) {
      this.outcome = outcome;
      this.event = event;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<byte[]> keys = new ArrayList<>();
  private final AppliedStore store;
  private final long toleranceSeconds;
  private final LongSupplier nowSeconds;

  public WebhookReceiver(List<String> secrets, AppliedStore store, long toleranceSeconds, LongSupplier nowSeconds) {
    if (secrets == null || secrets.isEmpty()) throw new IllegalArgumentException("at least one webhook secret is required");
    if (toleranceSeconds < 0) throw new IllegalArgumentException("toleranceSeconds must not be negative");
    for (String secret : secrets) keys.add(keyOf(secret));
    this.store = store == null ? new MemoryAppliedStore() : store;
    this.toleranceSeconds = toleranceSeconds;
    this.nowSeconds = nowSeconds == null ? () -> System.currentTimeMillis() / 1000 : nowSeconds;
  }

  public WebhookReceiver(List<String> secrets) {
    this(secrets, null, 300, null);
  }

  /** The HMAC key of a secret: the base64 after `whsec_` (the prefix is optional, as in the reference libraries). */
  public static byte[] keyOf(String secret) {
    String encoded = secret.startsWith("whsec_") ? secret.substring("whsec_".length()) : secret;
    byte[] key = Base64.getDecoder().decode(encoded);
    if (key.length == 0) throw new IllegalArgumentException("empty webhook secret");
    return key;
  }

  /** The `v1,<base64>` signature of a delivery (what the broker sends; the test vectors check this). */
  public static String sign(String secret, String id, long timestamp, String body) {
    return "v1," + Base64.getEncoder().encodeToString(hmac(keyOf(secret), id + "." + timestamp + "." + body));
  }

  private static byte[] hmac(byte[] key, String content) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(content.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /**
   * Verifies a delivery and returns its event. {@code headers}: names matched case-insensitively,
   * each with its values (a repeated header). {@code rawBody}: the body exactly as received.
   */
  public JsonNode verify(String rawBody, Map<String, List<String>> headers) throws WebhookVerificationException {
    String id = single(headers, "webhook-id");
    String timestampHeader = single(headers, "webhook-timestamp");
    String signatures = String.join(" ", values(headers, "webhook-signature")).trim();
    if (signatures.isEmpty()) throw new WebhookVerificationException("Missing webhook-signature header");
    if (!timestampHeader.matches("\\d{1,15}")) throw new WebhookVerificationException("Invalid webhook-timestamp header: " + timestampHeader + " is not unix seconds");
    long timestamp = Long.parseLong(timestampHeader);
    long now = nowSeconds.getAsLong();
    if (now - timestamp > toleranceSeconds) throw new WebhookVerificationException("Message timestamp too old: " + (now - timestamp) + " s before now, tolerance " + toleranceSeconds + " s");
    if (timestamp - now > toleranceSeconds) throw new WebhookVerificationException("Message timestamp too new: " + (timestamp - now) + " s after now, tolerance " + toleranceSeconds + " s");
    List<byte[]> offered = new ArrayList<>();
    for (String entry : signatures.split("\\s+")) {
      String e = entry.endsWith(",") ? entry.substring(0, entry.length() - 1) : entry;
      if (!e.startsWith("v1,")) continue; // other versions are skipped, as the reference libraries do
      try {
        offered.add(Base64.getDecoder().decode(e.substring(3)));
      } catch (IllegalArgumentException notBase64) {
        // an unreadable entry matches nothing
      }
    }
    if (offered.isEmpty()) throw new WebhookVerificationException("No v1 signature in the webhook-signature header");
    String content = id + "." + timestamp + "." + rawBody;
    boolean valid = false;
    for (byte[] key : keys) {
      byte[] expected = hmac(key, content);
      for (byte[] signature : offered) valid |= MessageDigest.isEqual(expected, signature);
    }
    if (!valid) throw new WebhookVerificationException("No matching signature found: bad signature, or signed with a secret not configured");
    JsonNode event;
    try {
      event = JSON.readTree(rawBody);
    } catch (IOException notJson) {
      throw new WebhookVerificationException("The body is not JSON");
    }
    if (event == null || !event.isObject()) throw new WebhookVerificationException("The body is not a broker CloudEvent: not a JSON object");
    for (String member : new String[] {"id", "type", "subject"}) {
      if (!event.path(member).isTextual() || event.path(member).asText().isEmpty()) throw new WebhookVerificationException("The body is not a broker CloudEvent: " + member + " is not a non-empty string");
    }
    if (!event.path("resourceversion").canConvertToLong() || !event.path("resourceversion").isIntegralNumber() || event.path("resourceversion").asLong() < 0) {
      throw new WebhookVerificationException("The body is not a broker CloudEvent: resourceversion is not a non-negative integer");
    }
    if (!event.path("id").asText().equals(id)) throw new WebhookVerificationException("The webhook-id header " + id + " does not equal the event id " + event.path("id").asText());
    return event;
  }

  public Result receive(String rawBody, Map<String, List<String>> headers) throws WebhookVerificationException {
    JsonNode event = verify(rawBody, headers);
    String skip = AppliedStore.skipReason(store, event);
    return new Result(skip == null ? Outcome.APPLY : "duplicate".equals(skip) ? Outcome.DUPLICATE : Outcome.STALE, event);
  }

  public void markApplied(JsonNode event) {
    store.record(event.path("id").asText(), event.path("subject").asText(), event.path("resourceversion").asLong());
  }

  private static List<String> values(Map<String, List<String>> headers, String name) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      if (header.getKey().equalsIgnoreCase(name) && header.getValue() != null) out.addAll(header.getValue());
    }
    return out;
  }

  private static String single(Map<String, List<String>> headers, String name) throws WebhookVerificationException {
    Set<String> found = new LinkedHashSet<>();
    for (String value : values(headers, name)) if (!value.trim().isEmpty()) found.add(value.trim());
    if (found.isEmpty()) throw new WebhookVerificationException("Missing " + name + " header");
    if (found.size() > 1) throw new WebhookVerificationException("Several different " + name + " headers");
    return found.iterator().next();
  }
}
