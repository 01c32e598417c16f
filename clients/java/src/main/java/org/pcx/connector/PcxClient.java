package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pcx.client.ApiClient;

/**
 * The Java client of the PCX broker with the guarantees of the TypeScript SDK (sdk/src/client.ts).
 *
 * Two levels on one transport ({@link GuardedHttpClient}: token, Idempotency-Key, retries):
 * <ul>
 *   <li>this class: any operation by method and path template ({@link #request}), resources read
 *       as JSON or as the generated model classes ({@link #get(String, String, Class)}), lists over
 *       every page ({@link #list}), commands with If-Match from the resource last read and
 *       redecide-on-stale ({@link #command}), the event feed ({@link #events}); refusals are
 *       {@link PcxProblem}s with the stable code;</li>
 *   <li>{@link #api(Class)}: the generated {@code org.pcx.client.api.*Api} classes, on an
 *       ApiClient whose HttpClient is the guarded one, so their operations get the same
 *       guarantees (their refusals are the generated ApiException; {@link #problemOf} makes a
 *       PcxProblem of one).</li>
 * </ul>
 */
public final class PcxClient {
  public static final String VERSION = PcxClient.class.getPackage().getImplementationVersion() == null ? "dev" : PcxClient.class.getPackage().getImplementationVersion();
  private static final Pattern PARAMETER = Pattern.compile("\\{(\\w+)\\}");

  private final String baseUrl;
  private final ObjectMapper mapper;
  private final GuardedHttpClient http;
  private final TokenSource tokens;

  private PcxClient(Builder b) {
    this.baseUrl = b.baseUrl.replaceAll("/+$", "");
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
    if (b.accessToken != null) tokens = TokenSource.of(b.accessToken);
    else if (b.clientId != null && (b.clientSecret != null || b.privateKey != null)) tokens = new ClientCredentials(plain, baseUrl, b.tokenUrl, b.clientId, b.clientSecret, b.privateKey, b.scope);
    else throw new IllegalArgumentException("PcxClient needs a client id with a client secret or a private key, or an access token");
    // The generated client's own mapper settings (FAIL_ON_UNKNOWN_PROPERTIES off, no nulls sent).
    this.mapper = ApiClient.createDefaultObjectMapper();
    this.http = new GuardedHttpClient(plain, tokens, b.retry, b.timeout, b.userAgent, b.onRetry);
  }

  public static Builder builder(String baseUrl) { return new Builder(baseUrl); }

  public static final class Builder {
    private final String baseUrl;
    private String clientId;
    private String clientSecret;
    private PrivateJwk privateKey;
    private String accessToken;
    private String tokenUrl;
    private String scope;
    private RetryPolicy retry = RetryPolicy.DEFAULT;
    private Duration timeout = Duration.ofSeconds(30);
    private String userAgent = "pcx-java/" + VERSION;
    private GuardedHttpClient.RetryListener onRetry;

    Builder(String baseUrl) { this.baseUrl = baseUrl; }

    public Builder clientId(String v) { clientId = v; return this; }
    /** client_secret_post. */
    public Builder clientSecret(String v) { clientSecret = v; return this; }
    /** private_key_jwt (RFC 7523): instead of a secret. */
    public Builder privateKey(PrivateJwk v) { privateKey = v; return this; }
    /** A token the caller manages (never renewed). */
    public Builder accessToken(String v) { accessToken = v; return this; }
    /** Default: the one the broker's metadata names, else {baseUrl}/oauth2/token. */
    public Builder tokenUrl(String v) { tokenUrl = v; return this; }
    public Builder scope(String v) { scope = v; return this; }
    public Builder retry(RetryPolicy v) { retry = v; return this; }
    /** Each attempt's limit (default 30 s). */
    public Builder timeout(Duration v) { timeout = v; return this; }
    public Builder userAgent(String v) { userAgent = v; return this; }
    public Builder onRetry(GuardedHttpClient.RetryListener v) { onRetry = v; return this; }
    public PcxClient build() { return new PcxClient(this); }
  }

  public String baseUrl() { return baseUrl; }
  public ObjectMapper mapper() { return mapper; }
  /** The guarded HttpClient (for calls of one's own). */
  public GuardedHttpClient http() { return http; }
  /** The current access token (renewed before it expires). */
  public String accessToken() { return tokens.token(); }

  /** A generated ApiClient on the guarded HttpClient: every generated operation gets the guarantees. */
  public ApiClient apiClient() {
    ApiClient client = new ApiClient(http.builder(), mapper, baseUrl);
    client.setReadTimeout(null); // the guarded client sets each attempt's timeout
    return client;
  }

  /** A generated API class ({@code pcx.api(MatchProposalsApi.class)}) on {@link #apiClient()}. */
  public <T> T api(Class<T> apiClass) {
    try {
      return apiClass.getConstructor(ApiClient.class).newInstance(apiClient());
    } catch (NoSuchMethodException | InstantiationException | IllegalAccessException | InvocationTargetException e) {
      throw new IllegalArgumentException(apiClass + " is not a generated API class", e);
    }
  }

  /** The generated client's refusal as a PcxProblem (its body is the broker's problem document). */
  public PcxProblem problemOf(org.pcx.client.ApiException e) {
    JsonNode body = null;
    try {
      body = e.getResponseBody() == null ? null : mapper.readTree(e.getResponseBody());
    } catch (IOException notJson) {
      // a stand-in below
    }
    String code = body != null && body.hasNonNull("code") ? body.get("code").asText() : PcxProblem.codeOfStatus(e.getCode());
    String correlation = e.getResponseHeaders() == null ? null : e.getResponseHeaders().firstValue("x-correlation-id").orElse(null);
    return new PcxProblem("", "", e.getCode(), code, body != null ? body.path("detail").asText(null) : e.getMessage(), correlation, body);
  }

  /**
   * Any operation by method and path template ({@code /capacity-offers/{id}/publish}), with its
   * path parameters, query (a list value is repeated), JSON body and options. Returns the answer's
   * JSON (null when empty); a refusal throws PcxProblem, no answer PcxConnectionException.
   */
  public JsonNode request(String method, String pathTemplate, Map<String, String> pathParameters, Map<String, ?> query, Object body, Call call) {
    StringBuilder path = new StringBuilder();
    Matcher m = PARAMETER.matcher(pathTemplate);
    while (m.find()) {
      String value = pathParameters == null ? null : pathParameters.get(m.group(1));
      if (value == null) throw new IllegalArgumentException(method + " " + pathTemplate + ": path parameter " + m.group(1) + " missing");
      m.appendReplacement(path, Matcher.quoteReplacement(URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20")));
    }
    m.appendTail(path);
    StringBuilder url = new StringBuilder(baseUrl).append(path);
    char sep = '?';
    if (query != null) {
      for (Map.Entry<String, ?> entry : query.entrySet()) {
        Object value = entry.getValue();
        if (value == null) continue;
        Iterable<?> values = value instanceof Iterable ? (Iterable<?>) value : java.util.List.of(value);
        for (Object v : values) {
          url.append(sep).append(URLEncoder.encode(entry.getKey(), StandardCharsets.UTF_8)).append('=').append(URLEncoder.encode(String.valueOf(v), StandardCharsets.UTF_8));
          sep = '&';
        }
      }
    }
    Call options = call == null ? Call.defaults() : call;
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url.toString())).header("Accept", "application/json");
    try {
      if (body != null) {
        request.header("Content-Type", "application/json").method(method.toUpperCase(), HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(body)));
      } else {
        request.method(method.toUpperCase(), HttpRequest.BodyPublishers.noBody());
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("the body cannot be written as JSON: " + e.getMessage(), e);
    }
    if (options.ifMatch != null) request.header("If-Match", options.ifMatch);
    if (options.idempotencyKey != null) request.header("Idempotency-Key", options.idempotencyKey);
    if (options.correlationId != null) request.header("X-Correlation-Id", options.correlationId);
    HttpResponse<byte[]> res;
    try {
      res = http.exchange(request.build());
    } catch (IOException e) {
      throw new PcxConnectionException(method + " " + path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PcxConnectionException(method + " " + path + ": interrupted", e);
    }
    JsonNode answer = null;
    try {
      answer = res.body() == null || res.body().length == 0 ? null : mapper.readTree(res.body());
    } catch (IOException notJson) {
      if (res.statusCode() < 300) throw new PcxConnectionException(method + " " + path + ": the answer is not JSON", notJson);
    }
    if (res.statusCode() >= 200 && res.statusCode() < 300) return answer;
    String correlation = res.headers().firstValue("x-correlation-id").orElse(null);
    if (answer != null && answer.hasNonNull("code")) {
      throw new PcxProblem(method.toUpperCase(), path.toString(), res.statusCode(), answer.get("code").asText(), answer.path("detail").asText(answer.path("title").asText(null)),
          answer.path("correlationId").asText(correlation), answer);
    }
    String text = new String(res.body() == null ? new byte[0] : res.body(), StandardCharsets.UTF_8);
    throw new PcxProblem(method.toUpperCase(), path.toString(), res.statusCode(), PcxProblem.codeOfStatus(res.statusCode()), text.substring(0, Math.min(200, text.length())), correlation, null);
  }

  /** A resource of a collection ({@code capacity-offers}) as JSON. */
  public JsonNode get(String collection, String id) {
    return request("GET", "/" + collection + "/{id}", Map.of("id", id), null, null, Call.defaults());
  }

  /** A resource as a generated model class ({@code pcx.get("match-proposals", id, MatchProposal.class)}). */
  public <T> T get(String collection, String id, Class<T> type) {
    return as(get(collection, id), type);
  }

  /** JSON as a generated model class (or any type Jackson can bind). */
  public <T> T as(JsonNode json, Class<T> type) {
    return mapper.convertValue(json, type);
  }

  /** A create ({@code POST /collection}), with the caller's Idempotency-Key when one is kept (else one made for this call). */
  public JsonNode create(String collection, Object body, Call call) {
    return request("POST", "/" + collection, null, null, body, call);
  }

  /** Every item of a list over every page, fetched as the iteration goes (cursor pagination). */
  public Iterable<JsonNode> list(String collection, Map<String, ?> query) {
    return () -> new Iterator<JsonNode>() {
      private Iterator<JsonNode> page;
      private String cursor;
      private boolean last;

      @Override
      public boolean hasNext() {
        while ((page == null || !page.hasNext()) && !last) {
          Map<String, Object> q = new java.util.LinkedHashMap<>();
          if (query != null) q.putAll(query);
          if (cursor != null) q.put("cursor", cursor);
          JsonNode answer = request("GET", "/" + collection, null, q, null, Call.defaults());
          JsonNode items = answer.path("items");
          page = items.iterator();
          cursor = answer.path("nextCursor").asText(null);
          last = cursor == null || cursor.isEmpty() || items.size() == 0;
        }
        return page != null && page.hasNext();
      }

      @Override
      public JsonNode next() {
        if (!hasNext()) throw new NoSuchElementException();
        return page.next();
      }
    };
  }

  /**
   * A command on a resource ({@code POST /collection/{id}/action}) decided on {@code target} as
   * read: a JsonNode or a generated model with id and resourceVersion, whose version becomes
   * If-Match (an If-Match in {@code call} wins). With {@code call.redecideOnStale(n)}, a 409
   * STALE_RESOURCE_VERSION reads the resource again and sends the command with its new version;
   * the caller's Idempotency-Key belongs to the first attempt only (a new decision is a new request).
   */
  public JsonNode command(String collection, String action, Object target, Object body, Call call) {
    return versioned("POST", collection, "/" + collection + "/{id}/" + action, target, body, call);
  }

  /** A PATCH of a resource, decided on {@code target} as read (as {@link #command}). */
  public JsonNode update(String collection, Object target, Object patch, Call call) {
    return versioned("PATCH", collection, "/" + collection + "/{id}", target, patch, call);
  }

  private JsonNode versioned(String method, String collection, String template, Object target, Object body, Call call) {
    Call options = call == null ? Call.defaults() : call;
    JsonNode resource = target instanceof JsonNode ? (JsonNode) target : target instanceof String ? null : mapper.valueToTree(target);
    String id = target instanceof String ? (String) target : resource.path("id").asText();
    String ifMatch = options.ifMatch != null ? options.ifMatch : resource != null && resource.hasNonNull("resourceVersion") ? "\"" + resource.get("resourceVersion").asLong() + "\"" : null;
    int attempts = Math.max(1, options.redecideAttempts);
    for (int attempt = 1; ; attempt++) {
      Call send = new Call().correlationId(options.correlationId).ifMatch(ifMatch).idempotencyKey(attempt == 1 ? options.idempotencyKey : null);
      try {
        return request(method, template, Map.of("id", id), null, body, send);
      } catch (PcxProblem problem) {
        if (!problem.is("STALE_RESOURCE_VERSION") || attempt >= attempts) throw problem;
        // Read again before sending anything more to it, and decide on what it is now.
        ifMatch = "\"" + get(collection, id).path("resourceVersion").asLong() + "\"";
      }
    }
  }

  /** The organization's event feed; see {@link EventFeed}. */
  public EventFeed events(AppliedStore applied, EventFeed.CursorStore cursors, long pollIntervalMs) {
    return new EventFeed(this, applied, cursors, pollIntervalMs);
  }
}
