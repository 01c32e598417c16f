"""A connector written in Python with authlib (and joserfc for DPoP), as a shipper's data team would
write one: gets tokens from the broker with each client authentication method and reads with them.

Run by test/oauth-clients.test.ts with the Python of .tools/python-clients. Reads one JSON object on
stdin (what to try, with which credentials), prints one JSON object on stdout: per flow, the token
type the broker issued and the status of a read with the token, or the error.

  {"baseUrl": ..., "mtlsBaseUrl": ..., "caFile": ...,
   "secret": {"clientId", "clientSecret"},
   "privateKeyJwt": {"clientId", "privateKeyPem", "kid"},
   "mtls": {"clientId", "certFile", "keyFile"},
   "dpop": {"clientId", "privateKeyPem", "kid"}}

Notes for integrators (docs/security.md, "Client libraries"): authlib signs assertions valid for an
hour and, given a claims dict, writes its jti into that dict, so every later assertion would carry
the same jti; a fresh, short-lived claims dict per assertion avoids both. requests prefers
REQUESTS_CA_BUNDLE to a session's `verify`: a private CA for the broker's mutual-TLS address needs
`trust_env = False` (or the variable unset).
"""

import json
import sys
import time
import uuid
import hashlib
import base64

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc import jwt
from joserfc.jwk import ECKey


class FreshPrivateKeyJWT(PrivateKeyJWT):
    """private_key_jwt with a new jti and a 30 s lifetime for every assertion."""

    def sign(self, auth, token_endpoint):
        self.claims = {"exp": int(time.time()) + 30, "jti": str(uuid.uuid4())}
        return super().sign(auth, token_endpoint)


def discover(base):
    """The broker's RFC 8414 metadata (the root form, as a client given only the base URL asks)."""
    answer = requests.get(f"{base}/.well-known/oauth-authorization-server", timeout=15)
    answer.raise_for_status()
    return answer.json()


def read(session_or_requests, url, **kwargs):
    return session_or_requests.get(url, timeout=15, **kwargs).status_code


def with_secret(config, metadata):
    client = config["secret"]
    session = OAuth2Session(client["clientId"], client["clientSecret"], token_endpoint_auth_method="client_secret_basic")
    token = session.fetch_token(metadata["token_endpoint"], grant_type="client_credentials")
    return {"tokenType": token["token_type"], "read": read(session, f"{config['baseUrl']}/capacity-offers?limit=1")}


def with_private_key_jwt(config, metadata):
    client = config["privateKeyJwt"]
    key = ECKey.import_key(client["privateKeyPem"], {"kid": client["kid"]})
    session = OAuth2Session(client["clientId"], key, token_endpoint_auth_method=FreshPrivateKeyJWT(metadata["token_endpoint"], headers={"kid": client["kid"]}, alg="ES256"))
    token = session.fetch_token(metadata["token_endpoint"], grant_type="client_credentials")
    # A second token with a new assertion (the broker accepts each assertion once).
    session.fetch_token(metadata["token_endpoint"], grant_type="client_credentials")
    return {"tokenType": token["token_type"], "read": read(session, f"{config['baseUrl']}/capacity-offers?limit=1")}


def with_mtls(config, metadata):
    """self_signed_tls_client_auth at the mutual-TLS alias: the certificate authenticates; the token is bound to it."""
    client = config["mtls"]
    session = OAuth2Session(client["clientId"], token_endpoint_auth_method="none")
    session.cert = (client["certFile"], client["keyFile"])
    session.verify = config["caFile"]
    # requests lets REQUESTS_CA_BUNDLE (set on many machines, these included) win over the session's
    # verify: the environment is not consulted, so the broker's CA counts.
    session.trust_env = False
    token = session.fetch_token(metadata["mtls_endpoint_aliases"]["token_endpoint"], grant_type="client_credentials")
    bound = read(session, f"{config['mtlsBaseUrl']}/capacity-offers?limit=1")
    # The same token without the certificate (on the plain address): refused.
    without = requests.get(f"{config['baseUrl']}/capacity-offers?limit=1", headers={"authorization": f"Bearer {token['access_token']}"}, timeout=15).status_code
    return {"tokenType": token["token_type"], "read": bound, "readWithoutCertificate": without}


def dpop_proof(key, public_jwk, method, url, nonce=None, access_token=None):
    claims = {"htm": method, "htu": url.split("?")[0], "jti": str(uuid.uuid4()), "iat": int(time.time())}
    if nonce:
        claims["nonce"] = nonce
    if access_token:
        claims["ath"] = base64.urlsafe_b64encode(hashlib.sha256(access_token.encode()).digest()).rstrip(b"=").decode()
    return jwt.encode({"typ": "dpop+jwt", "alg": "ES256", "jwk": public_jwk}, claims, key, algorithms=["ES256"])


def with_dpop(config, metadata):
    """DPoP (RFC 9449): joserfc makes the proofs, authlib authenticates the client; the nonce the broker asks for is used."""
    client = config["dpop"]
    auth_key = ECKey.import_key(client["privateKeyPem"], {"kid": client["kid"]})
    dpop_key = ECKey.generate_key("P-256")
    public_jwk = dpop_key.as_dict(private=False)
    token_endpoint = metadata["token_endpoint"]
    session = OAuth2Session(client["clientId"], auth_key, token_endpoint_auth_method=FreshPrivateKeyJWT(token_endpoint, headers={"kid": client["kid"]}, alg="ES256"))
    # The broker's nonce arrives in a header, which authlib's error does not carry: a requests hook keeps it.
    nonces = {}
    session.hooks["response"].append(lambda response, *args, **kwargs: nonces.update(value=response.headers.get("DPoP-Nonce", nonces.get("value"))))
    try:
        token = session.fetch_token(token_endpoint, grant_type="client_credentials", headers={"DPoP": dpop_proof(dpop_key, public_jwk, "POST", token_endpoint)})
    except Exception as error:
        if "use_dpop_nonce" not in str(error) or not nonces.get("value"):
            raise
        token = session.fetch_token(token_endpoint, grant_type="client_credentials", headers={"DPoP": dpop_proof(dpop_key, public_jwk, "POST", token_endpoint, nonces["value"])})
    nonce = nonces.get("value")
    url = f"{config['baseUrl']}/capacity-offers?limit=1"
    access = token["access_token"]
    status = None
    for _ in range(2):
        answer = requests.get(url, headers={"authorization": f"DPoP {access}", "DPoP": dpop_proof(dpop_key, public_jwk, "GET", url, nonce, access)}, timeout=15)
        status = answer.status_code
        if status == 401 and "use_dpop_nonce" in answer.headers.get("WWW-Authenticate", ""):
            nonce = answer.headers.get("DPoP-Nonce")
            continue
        break
    as_bearer = requests.get(url, headers={"authorization": f"Bearer {access}"}, timeout=15).status_code
    return {"tokenType": token["token_type"], "read": status, "readAsBearer": as_bearer}


def main():
    config = json.load(sys.stdin)
    metadata = discover(config["baseUrl"])
    results = {}
    for name, flow in (("secret", with_secret), ("privateKeyJwt", with_private_key_jwt), ("mtls", with_mtls), ("dpop", with_dpop)):
        if name not in config:
            continue
        try:
            results[name] = flow(config, metadata)
        except Exception as error:  # reported, not raised: the test names the flow that failed
            results[name] = {"error": f"{type(error).__name__}: {error}"}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
