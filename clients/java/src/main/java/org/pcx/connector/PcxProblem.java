package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The broker refused a call: an RFC 9457 problem with its stable {@code code} (sdk/src/errors.ts,
 * PcxProblemError). Callers branch on {@link #code()} (or {@link #is(String)}), never on the
 * title or detail. An answer that is not a problem document (a proxy's HTML 502) gets a stand-in
 * with the status and a generic code, so every non-2xx becomes a PcxProblem.
 */
public class PcxProblem extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final String correlationId;
  private final transient JsonNode problem;

  public PcxProblem(String method, String path, int status, String code, String detail, String correlationId, JsonNode problem) {
    super(method + " " + path + ": " + status + " " + code + (detail == null ? "" : ": " + detail));
    this.status = status;
    this.code = code;
    this.correlationId = correlationId;
    this.problem = problem;
  }

  public int status() { return status; }
  /** The stable protocol code (STALE_RESOURCE_VERSION, DECISION_TERMINAL, ...). */
  public String code() { return code; }
  /** X-Correlation-Id of the answer: quote it when reporting a problem. */
  public String correlationId() { return correlationId; }
  /** The problem document as the broker sent it (null for a stand-in). */
  public JsonNode problem() { return problem; }

  public boolean is(String expectedCode) { return code.equals(expectedCode); }

  /** Whether {@code error} is a problem with this code (TypeScript's isProblem). */
  public static boolean isProblem(Throwable error, String expectedCode) {
    return error instanceof PcxProblem && ((PcxProblem) error).is(expectedCode);
  }

  /** The generic code of a status, for an answer that carries no problem document (errors.ts problemOfStatus). */
  public static String codeOfStatus(int status) {
    if (status == 401) return "UNAUTHENTICATED";
    if (status == 403) return "INSUFFICIENT_SCOPE";
    if (status == 404) return "ROUTE_NOT_FOUND";
    if (status == 429) return "RATE_LIMITED";
    if (status == 502 || status == 503 || status == 504) return "SERVICE_UNAVAILABLE";
    if (status >= 500) return "INTERNAL_ERROR";
    return "MALFORMED_REQUEST";
  }
}
