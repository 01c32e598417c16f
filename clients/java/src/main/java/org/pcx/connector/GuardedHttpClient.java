package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * The guarantees of every call, as a java.net.http.HttpClient (sdk/src/transport.ts
 * createTransport). Being an HttpClient is the point: the generated client (openapi-generator's
 * `native` library) sends every operation through the HttpClient its ApiClient builds, so giving
 * it this one (PcxClient.apiClient(), via {@link #builder()}) gives every generated `*Api`
 * operation the same guarantees as PcxClient's own calls; request interceptors could add headers
 * but could not retry.
 *
 * <ul>
 *   <li>the token: {@code Authorization: Bearer} from the {@link TokenSource} on every attempt; a
 *       401 invalidates it and the call is sent once more with a new one;</li>
 *   <li>the Idempotency-Key: a call other than GET/HEAD without one gets a random one here, and
 *       every retry of that call carries the same key, so a command the broker completed before
 *       the connection broke is answered from its record rather than done twice;</li>
 *   <li>retries: a lost connection, a timeout, 429, 502, 503, 504 and 409 IDEMPOTENCY_IN_PROGRESS
 *       are retried ({@link RetryPolicy}: backoff with jitter, Retry-After honoured in
 *       delta-seconds or HTTP-date, capped); any other answer is final, so a command is never
 *       retried on a 4xx that says it was wrong. After the last retry the answer is returned
 *       (or the IOException thrown) as it came.</li>
 * </ul>
 *
 * The answer is read whole (the broker's answers are small JSON) so that its status and problem
 * code can decide a retry before the caller's body handler sees it; the caller's handler then gets
 * those bytes.
 */
public final class GuardedHttpClient extends HttpClient {
  /** Told of each retry before its wait (the example prints them). */
  public interface RetryListener {
    void onRetry(String method, String path, int attempt, long delayMs, String reason, String idempotencyKey);
  }

  private static final Set<Integer> RETRY_STATUSES = Set.of(429, 502, 503, 504);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Feeds buffered bodies to the caller's body subscribers (daemon: never keeps the JVM alive). */
  private static final ExecutorService FEEDER = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "pcx-body-feeder");
    thread.setDaemon(true);
    return thread;
  });

  private final HttpClient delegate;
  private final TokenSource tokens;
  private final RetryPolicy retry;
  private final Duration timeout;
  private final String userAgent;
  private final RetryListener listener;

  public GuardedHttpClient(HttpClient delegate, TokenSource tokens, RetryPolicy retry, Duration timeout, String userAgent, RetryListener listener) {
    this.delegate = delegate;
    this.tokens = tokens;
    this.retry = retry;
    this.timeout = timeout;
    this.userAgent = userAgent;
    this.listener = listener;
  }

  /**
   * Sends with the guarantees and returns the answer read whole. Throws the last IOException
   * (HttpTimeoutException for a timeout) when no attempt got an answer.
   */
  public HttpResponse<byte[]> exchange(HttpRequest request) throws IOException, InterruptedException {
    String method = request.method().toUpperCase();
    boolean unsafe = !method.equals("GET") && !method.equals("HEAD");
    String key = request.headers().firstValue("idempotency-key").orElse(unsafe ? UUID.randomUUID().toString() : null);
    String path = request.uri().getPath();
    boolean renewedToken = false;
    for (int attempt = 0; ; attempt++) {
      HttpRequest.Builder builder = HttpRequest.newBuilder(request, (name, value) ->
          !name.equalsIgnoreCase("authorization") && !name.equalsIgnoreCase("idempotency-key") && !name.equalsIgnoreCase("user-agent"));
      builder.setHeader("Authorization", "Bearer " + tokens.token());
      if (key != null) builder.setHeader("Idempotency-Key", key);
      builder.setHeader("User-Agent", userAgent);
      if (request.timeout().isEmpty()) builder.timeout(timeout);
      String reason;
      OptionalLong retryAfterMs = OptionalLong.empty();
      try {
        HttpResponse<byte[]> res = delegate.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        int status = res.statusCode();
        if (status == 401 && !renewedToken && tokens.invalidate()) {
          renewedToken = true;
          attempt--;
          continue;
        }
        boolean inProgress = status == 409 && "IDEMPOTENCY_IN_PROGRESS".equals(problemCodeOf(res.body()));
        if (!RETRY_STATUSES.contains(status) && !inProgress) return res;
        retryAfterMs = RetryPolicy.parseRetryAfterMs(res.headers().firstValue("retry-after").orElse(null), System.currentTimeMillis());
        if (attempt >= retry.maxRetries || (retryAfterMs.isPresent() && retryAfterMs.getAsLong() > retry.maxRetryAfterMs)) return res;
        reason = inProgress ? "409 IDEMPOTENCY_IN_PROGRESS" : String.valueOf(status);
      } catch (IOException e) {
        if (attempt >= retry.maxRetries) throw e;
        reason = e instanceof HttpTimeoutException ? "timeout" : e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      }
      long delayMs = retryAfterMs.isPresent() ? retryAfterMs.getAsLong() : retry.backoff(attempt);
      if (listener != null) listener.onRetry(method, path, attempt + 1, delayMs, reason, key);
      Thread.sleep(delayMs);
    }
  }

  static String problemCodeOf(byte[] body) {
    try {
      JsonNode node = JSON.readTree(body);
      return node != null && node.hasNonNull("code") ? node.get("code").asText() : null;
    } catch (IOException notJson) {
      return null;
    }
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
    HttpResponse<byte[]> res = exchange(request);
    return new Answer<>(res, deliver(res, handler));
  }

  /** The buffered body through the caller's handler (fed from another thread: an InputStream handler reads while it is fed). */
  private static <T> T deliver(HttpResponse<byte[]> res, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
    HttpResponse.ResponseInfo info = new HttpResponse.ResponseInfo() {
      @Override public int statusCode() { return res.statusCode(); }
      @Override public HttpHeaders headers() { return res.headers(); }
      @Override public Version version() { return res.version(); }
    };
    HttpResponse.BodySubscriber<T> subscriber = handler.apply(info);
    FEEDER.execute(() -> {
      subscriber.onSubscribe(new Flow.Subscription() {
        @Override public void request(long n) { /* everything is pushed at once below */ }
        @Override public void cancel() { /* nothing to stop: the body is in memory */ }
      });
      byte[] body = res.body();
      if (body != null && body.length > 0) subscriber.onNext(List.of(ByteBuffer.wrap(body)));
      subscriber.onComplete();
    });
    try {
      return subscriber.getBody().toCompletableFuture().get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
    }
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return send(request, handler);
      } catch (IOException e) {
        throw new CompletionException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
    }, FEEDER);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
    return sendAsync(request, handler);
  }

  /** A builder whose build() is this client: what the generated ApiClient takes (setHttpClientBuilder). */
  public HttpClient.Builder builder() {
    GuardedHttpClient self = this;
    return new HttpClient.Builder() {
      // The client is configured already; the generated code's settings are ignored.
      @Override public HttpClient.Builder cookieHandler(CookieHandler h) { return this; }
      @Override public HttpClient.Builder connectTimeout(Duration d) { return this; }
      @Override public HttpClient.Builder sslContext(SSLContext c) { return this; }
      @Override public HttpClient.Builder sslParameters(SSLParameters p) { return this; }
      @Override public HttpClient.Builder executor(Executor e) { return this; }
      @Override public HttpClient.Builder followRedirects(Redirect r) { return this; }
      @Override public HttpClient.Builder version(Version v) { return this; }
      @Override public HttpClient.Builder priority(int p) { return this; }
      @Override public HttpClient.Builder proxy(ProxySelector p) { return this; }
      @Override public HttpClient.Builder authenticator(Authenticator a) { return this; }
      @Override public HttpClient build() { return self; }
    };
  }

  @Override public Optional<CookieHandler> cookieHandler() { return delegate.cookieHandler(); }
  @Override public Optional<Duration> connectTimeout() { return delegate.connectTimeout(); }
  @Override public Redirect followRedirects() { return delegate.followRedirects(); }
  @Override public Optional<ProxySelector> proxy() { return delegate.proxy(); }
  @Override public SSLContext sslContext() { return delegate.sslContext(); }
  @Override public SSLParameters sslParameters() { return delegate.sslParameters(); }
  @Override public Optional<Authenticator> authenticator() { return delegate.authenticator(); }
  @Override public Version version() { return delegate.version(); }
  @Override public Optional<Executor> executor() { return delegate.executor(); }

  /** An answer with the body the caller's handler made of the buffered bytes. */
  private static final class Answer<T> implements HttpResponse<T> {
    private final HttpResponse<byte[]> raw;
    private final T body;

    Answer(HttpResponse<byte[]> raw, T body) {
      this.raw = raw;
      this.body = body;
    }

    @Override public int statusCode() { return raw.statusCode(); }
    @Override public HttpRequest request() { return raw.request(); }
    @Override public Optional<HttpResponse<T>> previousResponse() { return Optional.empty(); }
    @Override public HttpHeaders headers() { return raw.headers(); }
    @Override public T body() { return body; }
    @Override public Optional<SSLSession> sslSession() { return raw.sslSession(); }
    @Override public URI uri() { return raw.uri(); }
    @Override public Version version() { return raw.version(); }
  }
}
