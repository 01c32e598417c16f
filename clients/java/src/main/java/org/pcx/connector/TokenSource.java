package org.pcx.connector;

/** Where access tokens come from (transport.ts TokenSource). */
public interface TokenSource {
  /** The current token, obtained or renewed when needed. */
  String token();

  /** Forget the current token (a 401 answered it); false when this source cannot get another. */
  boolean invalidate();

  /** A fixed token the caller manages: never renewed. */
  static TokenSource of(String token) {
    return new TokenSource() {
      @Override public String token() { return token; }
      @Override public boolean invalidate() { return false; }
    };
  }
}
