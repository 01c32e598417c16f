package org.pcx.connector;

/** A webhook delivery that is not authentic or not usable: answer it 400 (or 401). */
public class WebhookVerificationException extends Exception {
  private static final long serialVersionUID = 1L;

  public WebhookVerificationException(String message) {
    super(message);
  }
}
