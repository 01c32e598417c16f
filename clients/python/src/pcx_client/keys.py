"""private_key_jwt (RFC 7523), mirrors sdk/src/keys.ts.

The connector's key pair is its own; the broker holds the public half. Every token request
carries a new client assertion signed with the private half, so no shared secret exists. The
private key is a JWK as `pcx` writes it (kty, crv, x, y, d, kid, alg): ES256 (P-256), ES384
(P-384), EdDSA (Ed25519) or RS256 (RSA).
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import jwt

PrivateJwk = dict[str, Any]


def load_private_jwk(path: str | Path) -> PrivateJwk:
    """A private JWK from a file (JSON)."""
    jwk = json.loads(Path(path).read_text("utf-8"))
    if not isinstance(jwk, dict) or "d" not in jwk:
        raise ValueError(f"{path} is not a private JWK (no 'd')")
    return jwk


def algorithm_of(jwk: PrivateJwk) -> str:
    """The JWS algorithm a key signs with: its alg, else by its type and curve."""
    if jwk.get("alg"):
        return str(jwk["alg"])
    kty = jwk.get("kty")
    if kty == "EC":
        return "ES384" if jwk.get("crv") == "P-384" else "ES256"
    if kty == "OKP":
        return "EdDSA"
    if kty == "RSA":
        return "RS256"
    raise ValueError(f"no signing algorithm for a {kty} key")


def client_assertion(*, client_id: str, token_url: str, private_jwk: PrivateJwk, lifetime_seconds: int = 60,
                     now: float | None = None) -> str:
    """iss and sub the client id, aud the token endpoint's URL, a new jti, exp `lifetime_seconds`
    after iat (the broker refuses long-lived assertions), signed with the private key."""
    alg = algorithm_of(private_jwk)
    key = jwt.PyJWK(private_jwk, algorithm=alg).key
    iat = int(time.time() if now is None else now)
    claims = {"iss": client_id, "sub": client_id, "aud": token_url, "jti": str(uuid.uuid4()), "iat": iat,
              "exp": iat + lifetime_seconds}
    headers: dict[str, Any] = {"typ": "JWT"}
    if private_jwk.get("kid"):
        headers["kid"] = private_jwk["kid"]
    return jwt.encode(claims, key, algorithm=alg, headers=headers)
