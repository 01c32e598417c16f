package org.pcx.connector;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;
import java.util.function.DoubleSupplier;

/**
 * When a call is retried and how long it waits (sdk/src/transport.ts, DEFAULT_RETRY): up to
 * {@code maxRetries} retries after the first attempt; backoff doubling from {@code baseDelayMs},
 * capped at {@code maxDelayMs}, jittered; a Retry-After honoured unless it is longer than
 * {@code maxRetryAfterMs} (then the answer is returned instead of waited for).
 */
public final class RetryPolicy {
  public final int maxRetries;
  public final long baseDelayMs;
  public final long maxDelayMs;
  public final long maxRetryAfterMs;

  public RetryPolicy(int maxRetries, long baseDelayMs, long maxDelayMs, long maxRetryAfterMs) {
    this.maxRetries = maxRetries;
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
    this.maxRetryAfterMs = maxRetryAfterMs;
  }

  public static final RetryPolicy DEFAULT = new RetryPolicy(4, 500, 8000, 60_000);

  /**
   * The wait before retry number {@code retry} (0 for the first retry): the exponential step
   * min(maxDelay, base * 2^retry), of which half is waited for certain and the other half at
   * random. This is the TypeScript SDK's jitter ("equal jitter"): never a zero wait, so a
   * retry never lands at once on a broker that just said it was busy, and many clients spread out.
   */
  public long backoff(int retry, DoubleSupplier random) {
    double step = Math.min((double) maxDelayMs, baseDelayMs * Math.pow(2, retry));
    return Math.round(step / 2 + random.getAsDouble() * step / 2);
  }

  public long backoff(int retry) {
    return backoff(retry, Math::random);
  }

  /**
   * Retry-After as milliseconds (RFC 9110 section 10.2.3): delta-seconds, or an HTTP-date
   * (IMF-fixdate, which RFC_1123_DATE_TIME reads) counted from {@code nowMs}, never negative.
   * Empty when absent or unreadable: the caller then uses the backoff.
   */
  public static OptionalLong parseRetryAfterMs(String value, long nowMs) {
    if (value == null) return OptionalLong.empty();
    String text = value.trim();
    if (text.isEmpty()) return OptionalLong.empty();
    if (text.matches("\\d+")) {
      try {
        return OptionalLong.of(Math.multiplyExact(Long.parseLong(text), 1000L));
      } catch (ArithmeticException | NumberFormatException tooLarge) {
        return OptionalLong.of(Long.MAX_VALUE);
      }
    }
    try {
      long at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
      return OptionalLong.of(Math.max(0, at - nowMs));
    } catch (DateTimeParseException unreadable) {
      return OptionalLong.empty();
    }
  }
}
