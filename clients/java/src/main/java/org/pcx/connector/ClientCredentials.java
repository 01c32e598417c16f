package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * OAuth 2.0 client credentials at the broker's token endpoint (transport.ts ClientCredentials):
 * the client authenticates with its secret (client_secret_post) or with a fresh private_key_jwt
 * assertion per request (RFC 7523, {@link PrivateJwk}). The token is kept and renewed at 80 % of
 * its life and at least a minute early; one request at a time (synchronized). A 5xx, 429 or lost
 * connection is retried with backoff; a refusal of the credentials is a {@link PcxProblem}.
 */
public final class ClientCredentials implements TokenSource {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String baseUrl;
  private final String clientId;
  private final String clientSecret;
  private final PrivateJwk privateKey;
  private final String scope;
  private final HttpClient http;
  private String tokenUrl;
  private String current;
  private long renewAtMs;

  /** {@code tokenUrl} null: the one the broker's metadata names (RFC 8414), else /oauth2/token. */
  public ClientCredentials(HttpClient http, String baseUrl, String tokenUrl, String clientId, String clientSecret, PrivateJwk privateKey, String scope) {
    if ((clientSecret == null) == (privateKey == null)) throw new IllegalArgumentException("client credentials need one of a client secret or a private key");
    this.http = http;
    this.baseUrl = baseUrl;
    this.tokenUrl = tokenUrl;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.privateKey = privateKey;
    this.scope = scope;
  }

  @Override
  public synchronized String token() {
    if (current != null && System.currentTimeMillis() < renewAtMs) return current;
    return request();
  }

  @Override
  public synchronized boolean invalidate() {
    current = null;
    return true;
  }

  /** The token endpoint: discovered once (discovery.ts); a broker without metadata has it at /oauth2/token. */
  public synchronized String tokenUrl() {
    if (tokenUrl != null) return tokenUrl;
    String fallback = baseUrl + "/oauth2/token";
    try {
      HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/.well-known/oauth-authorization-server"))
          .header("accept", "application/json").timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (res.statusCode() != 200) return fallback; // not cached: asked again next time
      JsonNode endpoint = JSON.readTree(res.body()).get("token_endpoint");
      if (endpoint == null || !endpoint.isTextual()) throw new IllegalStateException("the broker's authorization server metadata names no token_endpoint");
      tokenUrl = endpoint.asText();
      return tokenUrl;
    } catch (IOException unreachable) {
      return fallback;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new PcxConnectionException("interrupted while discovering the token endpoint", interrupted);
    }
  }

  private String request() {
    String url = tokenUrl();
    Exception last = null;
    for (int attempt = 0; attempt <= RetryPolicy.DEFAULT.maxRetries; attempt++) {
      try {
        if (attempt > 0) Thread.sleep(RetryPolicy.DEFAULT.backoff(attempt - 1));
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "client_credentials");
        if (privateKey != null) {
          // A new assertion for every attempt: the broker accepts each jti once.
          form.put("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
          form.put("client_assertion", privateKey.clientAssertion(clientId, url, System.currentTimeMillis() / 1000));
        } else {
          form.put("client_id", clientId);
          form.put("client_secret", clientSecret);
        }
        if (scope != null) form.put("scope", scope);
        String body = form.entrySet().stream()
            .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
            .header("content-type", "application/x-www-form-urlencoded").header("accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode answer = readJson(res.body());
        if (res.statusCode() == 200 && answer != null && answer.hasNonNull("access_token")) {
          long lifetimeMs = answer.path("expires_in").asLong(300) * 1000;
          long renewIn = Math.max(0, Math.min((long) (lifetimeMs * 0.8), lifetimeMs - 60_000));
          current = answer.get("access_token").asText();
          renewAtMs = System.currentTimeMillis() + renewIn;
          return current;
        }
        if (res.statusCode() >= 500 || res.statusCode() == 429) {
          last = new IOException("token endpoint answered " + res.statusCode());
          continue;
        }
        // A refusal of the credentials is an answer, not a lost connection.
        String code = answer != null && answer.hasNonNull("code") ? answer.get("code").asText() : PcxProblem.codeOfStatus(res.statusCode());
        String detail = answer != null && answer.hasNonNull("detail") ? answer.get("detail").asText()
            : "the token endpoint refused the client credentials of " + clientId + (answer != null && answer.hasNonNull("error") ? " (" + answer.get("error").asText() + ")" : "");
        throw new PcxProblem("POST", URI.create(url).getPath(), res.statusCode(), code, detail, res.headers().firstValue("x-correlation-id").orElse(null), answer);
      } catch (IOException e) {
        last = e;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("could not sign the client assertion: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PcxConnectionException("interrupted while getting a token", e);
      }
    }
    throw new PcxConnectionException("no token from " + url + ": " + last, last);
  }

  private static JsonNode readJson(String text) {
    try {
      return text == null || text.isEmpty() ? null : JSON.readTree(text);
    } catch (IOException notJson) {
      return null;
    }
  }
}
