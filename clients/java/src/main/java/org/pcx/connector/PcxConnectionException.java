package org.pcx.connector;

/** No answer from the broker: the connection failed, or timed out, on every attempt. */
public class PcxConnectionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PcxConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
