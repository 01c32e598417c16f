#!/usr/bin/env bash
# The README's "A connector of your own, with its own key" as one script: bash
# scripts/onboard-connector.sh against a running `npm start` (B names another broker). Alpine's
# admin creates a connector with a key pair made here; the connector logs in by private_key_jwt;
# its key is rolled, then revoked, and the connector retired. Every run onboards a new connector
# (a client id is taken for good), so it can run again. test/walkthrough.test.ts runs it twice.
set -euo pipefail
cd "$(dirname "$0")/.."

# onboard:begin
. scripts/pcx-helpers.sh   # B, pcx, j and at, from the clone's root (see "Trying it with pcx")
KEYS=${PCX_CONFIG_DIR:-$HOME/.config/pcx}/keys; mkdir -p "$KEYS"   # where the private keys stay
NEW=alpine-yard-$(date +%s)-$RANDOM   # a client id is taken for good: a new one per run

# Alpine's admin (its TMS connector holds connectors:manage) logs in with its secret
PCX_CLIENT_SECRET=alpine-demo-secret pcx --base-url "$B" -p alpine login --client-id alpine-tms
# The new connector's key pair: the private key stays in its file (mode 600), the public one is registered
pcx keys generate --out "$KEYS/$NEW.json" > "$KEYS/$NEW.public.json"
ID=$(pcx -p alpine --json connectors create --data "{\"clientId\": \"$NEW\", \"name\": \"Yard scanner\", \"scopes\": [\"capacity:read\"], \"publicJwk\": $(cat "$KEYS/$NEW.public.json")}" | j id)
echo "connector $NEW created: $ID"
# It gets its tokens by private_key_jwt (no secret anywhere) and reads what its scope allows
pcx --base-url "$B" -p "$NEW" login --client-id "$NEW" --private-key "$KEYS/$NEW.json"
pcx -p "$NEW" offers list > /dev/null && echo "$NEW reads offers with its own key"

# A new key: both work for a minute and a bit (the overlap), then only the new one
pcx keys generate --out "$KEYS/$NEW-2.json" > "$KEYS/$NEW-2.public.json"
pcx -p alpine connectors roll-credential "$ID" --data "{\"credentialId\": \"$(j kid < "$KEYS/$NEW.public.json")\", \"publicJwk\": $(cat "$KEYS/$NEW-2.public.json"), \"oldExpiresAt\": \"$(at 0.02)\"}" > /dev/null
pcx --base-url "$B" -p "$NEW" login --client-id "$NEW" --private-key "$KEYS/$NEW-2.json"

# Revoked: the key gets no token from the next request on; then the connector is retired for good
pcx -p alpine connectors revoke-credential "$ID" --data "{\"credentialId\": \"$(j kid < "$KEYS/$NEW-2.public.json")\", \"reason\": \"the walkthrough is done\"}" > /dev/null
pcx -p "$NEW" offers list > /dev/null 2>&1 || echo "$NEW is refused: its key was revoked"
pcx -p alpine connectors retire "$ID" --data '{"reason": "the walkthrough is done"}' | j status
# onboard:end
