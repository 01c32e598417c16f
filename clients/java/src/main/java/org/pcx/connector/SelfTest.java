package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Fast checks of the layer's pure logic, no broker and no JUnit (Maven Central is out of reach):
 * Retry-After parsing, backoff bounds, the applied-event rules, the Standard Webhooks test
 * vector, and the JOSE form of ES256/EdDSA signatures. Exits 1 when a check fails.
 *   java -cp "$(cat clients/java/build/classpath.txt)" org.pcx.connector.SelfTest
 */
public final class SelfTest {
  private static final List<String> FAILURES = new ArrayList<>();
  private static int passed;

  private static void check(String name, boolean ok) {
    if (ok) passed++;
    else FAILURES.add(name);
    System.out.println((ok ? "ok   " : "FAIL ") + name);
  }

  private interface Body { void run() throws Exception; }

  private static void throwsIt(String name, Body body) {
    try {
      body.run();
      check(name, false);
    } catch (Exception expected) {
      check(name, true);
    }
  }

  public static void main(String[] args) throws Exception {
    retryAfter();
    backoff();
    appliedRules();
    webhooks();
    jose();
    System.out.println(passed + " passed, " + FAILURES.size() + " failed" + (FAILURES.isEmpty() ? "" : ": " + FAILURES));
    System.exit(FAILURES.isEmpty() ? 0 : 1);
  }

  static void retryAfter() {
    long now = 1_445_412_480_000L; // Wed, 21 Oct 2015 07:28:00 GMT
    check("Retry-After delta-seconds", RetryPolicy.parseRetryAfterMs("3", now).equals(OptionalLong.of(3000)));
    check("Retry-After with spaces", RetryPolicy.parseRetryAfterMs(" 120 ", now).equals(OptionalLong.of(120_000)));
    check("Retry-After HTTP-date (RFC 9110's example)", RetryPolicy.parseRetryAfterMs("Wed, 21 Oct 2015 07:28:30 GMT", now).equals(OptionalLong.of(30_000)));
    check("Retry-After HTTP-date in the past is 0", RetryPolicy.parseRetryAfterMs("Wed, 21 Oct 2015 07:00:00 GMT", now).equals(OptionalLong.of(0)));
    check("Retry-After absent", RetryPolicy.parseRetryAfterMs(null, now).isEmpty());
    check("Retry-After unreadable", RetryPolicy.parseRetryAfterMs("soon", now).isEmpty());
    check("Retry-After negative is unreadable", RetryPolicy.parseRetryAfterMs("-1", now).isEmpty());
    check("Retry-After huge does not overflow", RetryPolicy.parseRetryAfterMs("99999999999999999999", now).getAsLong() > RetryPolicy.DEFAULT.maxRetryAfterMs);
  }

  static void backoff() {
    RetryPolicy p = RetryPolicy.DEFAULT;
    check("backoff retry 0, random 0: half the base", p.backoff(0, () -> 0.0) == 250);
    check("backoff retry 0, random 1: the base", p.backoff(0, () -> 1.0) == 500);
    check("backoff doubles", p.backoff(2, () -> 1.0) == 2000);
    check("backoff capped at maxDelayMs", p.backoff(10, () -> 1.0) == 8000 && p.backoff(60, () -> 0.0) == 4000);
    boolean inBounds = true;
    for (int retry = 0; retry < 8; retry++) {
      long step = Math.min(p.maxDelayMs, p.baseDelayMs << retry);
      for (int i = 0; i < 200; i++) {
        long d = p.backoff(retry);
        inBounds &= d >= step / 2 && d <= step;
      }
    }
    check("backoff within [step/2, step], never zero", inBounds);
  }

  static void appliedRules() {
    ObjectMapper json = new ObjectMapper();
    MemoryAppliedStore store = new MemoryAppliedStore(2);
    ObjectNode e1 = json.createObjectNode().put("id", "e1").put("subject", "match-proposals/p").put("resourceversion", 2);
    check("a new event is applied", AppliedStore.skipReason(store, e1) == null);
    store.record("e1", "match-proposals/p", 2);
    check("an event id applied before is a duplicate", "duplicate".equals(AppliedStore.skipReason(store, e1)));
    ObjectNode older = json.createObjectNode().put("id", "e0").put("subject", "match-proposals/p").put("resourceversion", 1);
    check("an older version after a newer one is stale", "stale".equals(AppliedStore.skipReason(store, older)));
    ObjectNode same = json.createObjectNode().put("id", "e9").put("subject", "match-proposals/p").put("resourceversion", 2);
    check("the same version under another id is stale", "stale".equals(AppliedStore.skipReason(store, same)));
    ObjectNode newer = json.createObjectNode().put("id", "e3").put("subject", "match-proposals/p").put("resourceversion", 3);
    check("a newer version is applied", AppliedStore.skipReason(store, newer) == null);
    store.record("e3", "match-proposals/p", 3);
    store.record("e4", "transport-tenders/t", 1);
    check("the oldest ids are forgotten beyond maxEventIds", !store.hasEvent("e1") && store.hasEvent("e3") && store.hasEvent("e4"));
    check("versions are kept per subject, the highest", store.appliedVersion("match-proposals/p").getAsLong() == 3);
    store.record("e2", "match-proposals/p", 1);
    check("a lower version never lowers what was applied", store.appliedVersion("match-proposals/p").getAsLong() == 3);
  }

  static void webhooks() throws Exception {
    // The Standard Webhooks specification's test vector (github.com/standard-webhooks/standard-webhooks,
    // the reference libraries' tests): secret, id, timestamp and body give this signature.
    String secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    String id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    long ts = 1614265330;
    String payload = "{\"test\": 2432232314}";
    String expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    check("Standard Webhooks vector: sign", WebhookReceiver.sign(secret, id, ts, payload).equals(expected));
    check("Standard Webhooks vector: the whsec_ prefix is optional", WebhookReceiver.sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id, ts, payload).equals(expected));

    // A broker event, signed as the broker signs it, through the receiver.
    String body = "{\"id\":\"ev-1\",\"type\":\"pcx.match-proposal.created.v1\",\"subject\":\"match-proposals/p1\",\"resourceversion\":1}";
    long now = 1_700_000_000L;
    String signature = WebhookReceiver.sign(secret, "ev-1", now, body);
    WebhookReceiver receiver = new WebhookReceiver(List.of("whsec_" + Base64.getEncoder().encodeToString("other".getBytes(StandardCharsets.UTF_8)), secret), null, 300, () -> now);
    Map<String, List<String>> headers = Map.of("Webhook-Id", List.of("ev-1"), "webhook-timestamp", List.of(String.valueOf(now)), "webhook-signature", List.of("v1,bm9wZQ== " + signature));
    WebhookReceiver.Result first = receiver.receive(body, headers);
    check("webhook: a valid delivery (second secret, second signature) is to apply", first.outcome == WebhookReceiver.Outcome.APPLY);
    receiver.markApplied(first.event);
    check("webhook: the same delivery again is a duplicate", receiver.receive(body, headers).outcome == WebhookReceiver.Outcome.DUPLICATE);
    throwsIt("webhook: a changed body is refused", () -> receiver.verify(body.replace("p1", "p2"), headers));
    throwsIt("webhook: a wrong secret is refused", () -> new WebhookReceiver(List.of("whsec_" + Base64.getEncoder().encodeToString("x".getBytes(StandardCharsets.UTF_8))), null, 300, () -> now).verify(body, headers));
    WebhookReceiver late = new WebhookReceiver(List.of(secret), null, 300, () -> now + 301);
    throwsIt("webhook: a timestamp older than the tolerance is refused", () -> late.verify(body, headers));
    WebhookReceiver edge = new WebhookReceiver(List.of(secret), null, 300, () -> now + 300);
    check("webhook: a timestamp exactly at the tolerance is accepted", edge.verify(body, headers) != null);
    WebhookReceiver early = new WebhookReceiver(List.of(secret), null, 300, () -> now - 301);
    throwsIt("webhook: a timestamp too far ahead is refused", () -> early.verify(body, headers));
    throwsIt("webhook: webhook-id other than the event id is refused", () -> receiver.verify(body,
        Map.of("webhook-id", List.of("ev-2"), "webhook-timestamp", List.of(String.valueOf(now)), "webhook-signature", List.of(WebhookReceiver.sign(secret, "ev-2", now, body)))));
    throwsIt("webhook: no v1 signature is refused", () -> receiver.verify(body, Map.of("webhook-id", List.of("ev-1"), "webhook-timestamp", List.of(String.valueOf(now)), "webhook-signature", List.of("v1a,abc"))));
  }

  static void jose() throws Exception {
    ObjectMapper json = new ObjectMapper();
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    // ES256: a P-256 key written as a private JWK, as pcx writes one.
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = ec.generateKeyPair();
    ECPublicKey pub = (ECPublicKey) pair.getPublic();
    ObjectNode jwk = json.createObjectNode().put("kty", "EC").put("crv", "P-256")
        .put("x", b64.encodeToString(fixed(pub.getW().getAffineX(), 32))).put("y", b64.encodeToString(fixed(pub.getW().getAffineY(), 32)))
        .put("d", b64.encodeToString(fixed(((ECPrivateKey) pair.getPrivate()).getS(), 32))).put("kid", "k1").put("alg", "ES256");
    PrivateJwk key = new PrivateJwk(jwk);
    String assertion = key.clientAssertion("alpine-tms", "http://localhost/oauth2/token", 1_700_000_000L);
    String[] parts = assertion.split("\\.");
    JsonNode header = json.readTree(Base64.getUrlDecoder().decode(parts[0]));
    JsonNode claims = json.readTree(Base64.getUrlDecoder().decode(parts[1]));
    byte[] sig = Base64.getUrlDecoder().decode(parts[2]);
    check("ES256: the signature is JOSE r||s (64 bytes), not DER", sig.length == 64);
    check("ES256: header alg, typ and kid", "ES256".equals(header.path("alg").asText()) && "JWT".equals(header.path("typ").asText()) && "k1".equals(header.path("kid").asText()));
    check("ES256: claims iss = sub = client id, aud the token URL, exp = iat + 60, a jti",
        "alpine-tms".equals(claims.path("iss").asText()) && "alpine-tms".equals(claims.path("sub").asText()) && "http://localhost/oauth2/token".equals(claims.path("aud").asText())
            && claims.path("exp").asLong() == claims.path("iat").asLong() + 60 && claims.path("jti").asText().length() > 0);
    check("ES256: the signature verifies (P1363 verifier) with the public key from x and y", verify("SHA256withECDSAinP1363Format", publicOf(jwk), parts[0] + "." + parts[1], sig));
    // DER to JOSE: short integers padded, a leading zero dropped.
    byte[] der = {0x30, 0x08, 0x02, 0x02, 0x01, 0x02, 0x02, 0x02, 0x00, (byte) 0x83};
    byte[] jose = PrivateJwk.derToJose(der, 4);
    check("DER to JOSE pads and strips", java.util.Arrays.equals(jose, new byte[] {0, 0, 1, 2, 0, 0, 0, (byte) 0x83}));
    throwsIt("DER to JOSE refuses what is not DER", () -> PrivateJwk.derToJose(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 32));
    // EdDSA (Ed25519): RFC 8037 appendix A's key and its signature of "Example of Ed25519 signing".
    ObjectNode ed = json.createObjectNode().put("kty", "OKP").put("crv", "Ed25519")
        .put("d", "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A").put("x", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo");
    PrivateJwk edKey = new PrivateJwk(ed);
    String input = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc";
    String edSig = b64.encodeToString(edKey.sign(input.getBytes(StandardCharsets.US_ASCII)));
    check("EdDSA: RFC 8037 A.4's signature", "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg".equals(edSig));
    check("EdDSA: alg from the key type", "EdDSA".equals(edKey.alg()));
  }

  private static byte[] fixed(BigInteger value, int size) {
    byte[] raw = value.toByteArray();
    byte[] out = new byte[size];
    int copy = Math.min(raw.length, size);
    System.arraycopy(raw, raw.length - copy, out, size - copy, copy);
    return out;
  }

  private static PublicKey publicOf(JsonNode jwk) throws Exception {
    AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
    parameters.init(new ECGenParameterSpec("secp256r1"));
    ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
    ECPoint w = new ECPoint(new BigInteger(1, Base64.getUrlDecoder().decode(jwk.path("x").asText())), new BigInteger(1, Base64.getUrlDecoder().decode(jwk.path("y").asText())));
    return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(w, spec));
  }

  private static boolean verify(String algorithm, PublicKey key, String input, byte[] signature) throws Exception {
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(key);
    verifier.update(input.getBytes(StandardCharsets.US_ASCII));
    return verifier.verify(signature);
  }

  static {
    // NamedParameterSpec is referenced so that a JDK without Ed25519 fails loudly at load.
    if (NamedParameterSpec.ED25519 == null) throw new IllegalStateException("no Ed25519");
  }
}
