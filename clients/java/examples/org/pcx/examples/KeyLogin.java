package org.pcx.examples;

import java.nio.file.Path;
import org.pcx.client.api.CapacityOffersApi;
import org.pcx.client.model.CapacityOfferPage;
import org.pcx.connector.PcxClient;
import org.pcx.connector.PrivateJwk;

/**
 * A connector with a key and no secret: gets a token by private_key_jwt (RFC 7523, a fresh
 * assertion signed with the private JWK `pcx keys generate` wrote) and reads one page of
 * capacity offers through the generated API on the guarded client.
 *   java -cp "$(cat clients/java/build/classpath.txt)" org.pcx.examples.KeyLogin BASE_URL CLIENT_ID KEY_FILE
 */
public final class KeyLogin {
  private KeyLogin() { }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: KeyLogin BASE_URL CLIENT_ID KEY_FILE");
      System.exit(2);
    }
    PrivateJwk key = PrivateJwk.read(Path.of(args[2]));
    PcxClient pcx = PcxClient.builder(args[0]).clientId(args[1]).privateKey(key).build();
    String token = pcx.accessToken();
    System.out.println("token by private_key_jwt (" + key.alg() + ", kid " + key.kid() + "): " + token.substring(0, Math.min(24, token.length())) + "...");
    CapacityOfferPage page = pcx.api(CapacityOffersApi.class).listCapacityOffers(null, null, null, null, null, null, null, 1, null);
    System.out.println("capacity offers readable with it: " + page.getItems().size() + " on the first page of 1");
  }
}
