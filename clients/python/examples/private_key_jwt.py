"""private_key_jwt with pcx-client against `npm start`: a new P-256 key pair, its public half
registered as a connector of Alpine's (by Alpine's demo connector, which may manage connectors),
then a token obtained with a client assertion signed by the private half, and a read with it.

    python clients/python/examples/private_key_jwt.py [--base-url http://localhost:8080] [--key-file FILE]

The private JWK is written to --key-file (kty/crv/x/y/d/kid/alg, as `pcx` writes keys), which
carrier_connector.py takes as --key-file in place of PCX_CLIENT_SECRET.
"""

from __future__ import annotations

import argparse
import json
import os
import uuid
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from pcx_client import ClientCredentials, PcxClient, load_private_jwk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default=os.environ.get("PCX_BASE_URL", "http://localhost:8080"))
    parser.add_argument("--key-file", default="pcx-connector-key.json")
    parser.add_argument("--admin-client-id", default="alpine-tms")
    parser.add_argument("--admin-secret", default=os.environ.get("PCX_CLIENT_SECRET", "alpine-demo-secret"))
    args = parser.parse_args()

    key = ec.generate_private_key(ec.SECP256R1())
    private: dict[str, Any] = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key))
    kid = f"py-{uuid.uuid4().hex[:8]}"
    private.update(kid=kid, alg="ES256")
    Path(args.key_file).write_text(json.dumps(private))
    os.chmod(args.key_file, 0o600)
    public = {**{k: private[k] for k in ("kty", "crv", "x", "y")}, "kid": kid, "alg": "ES256", "use": "sig"}

    client_id = f"py-pkjwt-{uuid.uuid4().hex[:8]}"
    with PcxClient(args.base_url, client_id=args.admin_client_id, client_secret=args.admin_secret) as admin:
        admin.create("connectors", {"clientId": client_id, "scopes": ["capacity:read"], "publicJwk": public})
    print(f"registered connector {client_id} with key {kid}; private key in {args.key_file}")

    with PcxClient(args.base_url, client_id=client_id, private_key=load_private_jwk(args.key_file)) as pcx:
        claims = jwt.decode(pcx.access_token(), options={"verify_signature": False})
        assert isinstance(pcx.tokens, ClientCredentials)
        print(f"token from {pcx.tokens.token_url} by private_key_jwt: sub={claims['sub']} org_id={claims['org_id']} "
              f"scope={claims['scope']}")
        offers = [o["id"] for o in pcx.list("capacity-offers", limit=5)]
        print(f"read {len(offers)} capacity offers with it")


if __name__ == "__main__":
    main()
