package org.pcx.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.NamedParameterSpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.util.Base64;
import java.util.UUID;

/**
 * A connector's private key as a JWK (the file {@code pcx} writes: kty, crv, x, y, d, kid, alg),
 * for private_key_jwt (RFC 7523; sdk/src/keys.ts). java.security only, no JOSE library: the JWK
 * members become a key spec, and an ECDSA signature is rewritten from the DER that Java's
 * SHA256withECDSA gives into the JOSE form JWS requires (RFC 7518 section 3.4: r || s, each
 * left-padded to the curve's size), because a DER signature is refused by every JWS verifier.
 * Supported: ES256 (P-256), ES384 (P-384), EdDSA (Ed25519, Java 15+), RS256.
 */
public final class PrivateJwk {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Decoder B64URL = Base64.getUrlDecoder();
  private static final Base64.Encoder B64URL_OUT = Base64.getUrlEncoder().withoutPadding();

  private final JsonNode jwk;
  private final String alg;
  private final PrivateKey key;

  public PrivateJwk(JsonNode jwk) throws GeneralSecurityException {
    this.jwk = jwk;
    this.alg = algorithmOf(jwk);
    this.key = keyOf(jwk);
  }

  public static PrivateJwk read(Path file) throws IOException, GeneralSecurityException {
    return new PrivateJwk(JSON.readTree(Files.readString(file)));
  }

  public String alg() { return alg; }
  public String kid() { return jwk.hasNonNull("kid") ? jwk.get("kid").asText() : null; }

  /** The JWS algorithm: the JWK's alg, else by key type (keys.ts algorithmOf). */
  static String algorithmOf(JsonNode jwk) {
    if (jwk.hasNonNull("alg")) return jwk.get("alg").asText();
    String kty = jwk.path("kty").asText();
    switch (kty) {
      case "EC": return "P-384".equals(jwk.path("crv").asText()) ? "ES384" : "ES256";
      case "OKP": return "EdDSA";
      case "RSA": return "RS256";
      default: throw new IllegalArgumentException("no signing algorithm for a " + kty + " key");
    }
  }

  private static BigInteger unsigned(JsonNode jwk, String member) {
    JsonNode value = jwk.get(member);
    if (value == null || !value.isTextual()) throw new IllegalArgumentException("the private JWK has no " + member);
    return new BigInteger(1, B64URL.decode(value.asText()));
  }

  private static PrivateKey keyOf(JsonNode jwk) throws GeneralSecurityException {
    String kty = jwk.path("kty").asText();
    switch (kty) {
      case "EC": {
        String crv = jwk.path("crv").asText();
        String curve = "P-256".equals(crv) ? "secp256r1" : "P-384".equals(crv) ? "secp384r1" : null;
        if (curve == null) throw new IllegalArgumentException("unsupported EC curve " + crv);
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
        parameters.init(new ECGenParameterSpec(curve));
        ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
        return KeyFactory.getInstance("EC").generatePrivate(new ECPrivateKeySpec(unsigned(jwk, "d"), spec));
      }
      case "OKP": {
        if (!"Ed25519".equals(jwk.path("crv").asText())) throw new IllegalArgumentException("unsupported OKP curve " + jwk.path("crv").asText());
        // RFC 8037: d is the raw 32-byte private key, exactly what EdECPrivateKeySpec takes.
        byte[] d = B64URL.decode(jwk.path("d").asText());
        return KeyFactory.getInstance("Ed25519").generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, d));
      }
      case "RSA":
        return KeyFactory.getInstance("RSA").generatePrivate(new RSAPrivateCrtKeySpec(unsigned(jwk, "n"), unsigned(jwk, "e"), unsigned(jwk, "d"),
            unsigned(jwk, "p"), unsigned(jwk, "q"), unsigned(jwk, "dp"), unsigned(jwk, "dq"), unsigned(jwk, "qi")));
      default:
        throw new IllegalArgumentException("unsupported key type " + kty);
    }
  }

  /** The JWS signature of {@code input} in JOSE form. */
  public byte[] sign(byte[] input) throws GeneralSecurityException {
    switch (alg) {
      case "ES256": return derToJose(signWith("SHA256withECDSA", input), 32);
      case "ES384": return derToJose(signWith("SHA384withECDSA", input), 48);
      case "EdDSA": return signWith("Ed25519", input);
      case "RS256": return signWith("SHA256withRSA", input);
      default: throw new GeneralSecurityException("this client does not sign " + alg);
    }
  }

  private byte[] signWith(String algorithm, byte[] input) throws GeneralSecurityException {
    Signature signature = Signature.getInstance(algorithm);
    signature.initSign(key);
    signature.update(input);
    return signature.sign();
  }

  /**
   * An ECDSA signature from DER (SEQUENCE { INTEGER r, INTEGER s }) to JOSE's r || s, each
   * unsigned big-endian in exactly {@code size} bytes (a DER integer may carry a leading zero, or
   * be shorter than the curve).
   */
  public static byte[] derToJose(byte[] der, int size) throws GeneralSecurityException {
    int offset = 0;
    if (der.length < 8 || der[offset++] != 0x30) throw new GeneralSecurityException("not a DER ECDSA signature");
    int length = der[offset++] & 0xff;
    if (length == 0x81) length = der[offset++] & 0xff;
    if (offset + length != der.length) throw new GeneralSecurityException("DER ECDSA signature of a wrong length");
    byte[] out = new byte[2 * size];
    for (int part = 0; part < 2; part++) {
      if (der[offset++] != 0x02) throw new GeneralSecurityException("DER ECDSA signature without an INTEGER");
      int n = der[offset++] & 0xff;
      int start = offset;
      int count = n;
      while (count > size && der[start] == 0) { start++; count--; }
      if (count > size) throw new GeneralSecurityException("DER ECDSA integer longer than the curve");
      System.arraycopy(der, start, out, part * size + (size - count), count);
      offset += n;
    }
    return out;
  }

  /** A compact JWS of {@code claims} under {@code header} (header.alg is set to this key's). */
  public String signJws(ObjectNode header, ObjectNode claims) throws GeneralSecurityException {
    header.put("alg", alg);
    String input = b64(header) + "." + b64(claims);
    return input + "." + B64URL_OUT.encodeToString(sign(input.getBytes(StandardCharsets.US_ASCII)));
  }

  /**
   * A client assertion for the token endpoint (RFC 7523 section 3; keys.ts clientAssertion): iss
   * and sub the client id, aud the token endpoint's URL, a new jti (an assertion is accepted
   * once), exp 60 s after iat.
   */
  public String clientAssertion(String clientId, String tokenUrl, long nowSeconds) throws GeneralSecurityException {
    ObjectNode header = JSON.createObjectNode();
    header.put("alg", alg);
    header.put("typ", "JWT");
    if (kid() != null) header.put("kid", kid());
    ObjectNode claims = JSON.createObjectNode();
    claims.put("iss", clientId);
    claims.put("sub", clientId);
    claims.put("aud", tokenUrl);
    claims.put("jti", UUID.randomUUID().toString());
    claims.put("iat", nowSeconds);
    claims.put("exp", nowSeconds + 60);
    return signJws(header, claims);
  }

  private static String b64(JsonNode value) {
    try {
      return B64URL_OUT.encodeToString(JSON.writeValueAsBytes(value));
    } catch (IOException cannot) {
      throw new IllegalStateException(cannot);
    }
  }
}
