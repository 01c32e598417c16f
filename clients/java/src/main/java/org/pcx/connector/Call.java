package org.pcx.connector;

/**
 * Options of one call (client.ts CallOptions and CommandOptions): an Idempotency-Key of the
 * caller's (one is made otherwise and kept across the call's retries), If-Match, a correlation
 * id, and {@code redecideOnStale}: on 409 STALE_RESOURCE_VERSION the resource is read again and
 * the command sent with its new version (up to {@code attempts}). Only for commands whose
 * meaning does not depend on what changed (a decision by a rule on the pair, a publish).
 */
public final class Call {
  String idempotencyKey;
  String ifMatch;
  String correlationId;
  int redecideAttempts;

  public static Call defaults() { return new Call(); }

  public static Call key(String idempotencyKey) { return new Call().idempotencyKey(idempotencyKey); }

  public static Call redecide() { return new Call().redecideOnStale(3); }

  public Call idempotencyKey(String key) { this.idempotencyKey = key; return this; }

  /** If-Match as sent: {@code "3"} (quoted) or a bare version, which is quoted here. */
  public Call ifMatch(String value) {
    this.ifMatch = value == null || value.startsWith("\"") || value.startsWith("W/") ? value : "\"" + value + "\"";
    return this;
  }

  public Call ifMatch(long resourceVersion) { return ifMatch("\"" + resourceVersion + "\""); }

  public Call correlationId(String id) { this.correlationId = id; return this; }

  public Call redecideOnStale(int attempts) { this.redecideAttempts = attempts; return this; }
}
