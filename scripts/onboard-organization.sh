#!/usr/bin/env bash
# The README's "A new organization, without a restart" as one script: bash
# scripts/onboard-organization.sh against a running `npm start` (B names another broker). The
# operator registers an organization by its LEI and creates its admin's connector with the public
# key the admin made; the admin, pending, may only manage itself; verified, its admin creates a
# connector of its own with a key pair from pcx, which logs in by private_key_jwt and publishes.
# Every run onboards a new organization (an organization id is taken for good), so it can run
# again. test/walkthrough.test.ts runs it twice.
set -euo pipefail
cd "$(dirname "$0")/.."

# onboard-org:begin
. scripts/pcx-helpers.sh   # B, pcx, j and at, from the clone's root (see "Trying it with pcx")
KEYS=${PCX_CONFIG_DIR:-$HOME/.config/pcx}/keys; mkdir -p "$KEYS"   # where the private keys stay
N=nordic-$(date +%s)-$RANDOM   # an organization id is taken for good: a new one per run

# The operator (its console connector holds exchange:admin) registers the organization by its LEI
PCX_CLIENT_SECRET=operator-demo-secret pcx --base-url "$B" -p operator login --client-id pcx-operator
ORG=$(pcx -p operator --json organizations create --data "{\"organizationId\": \"org-$N\", \"name\": \"Nordic Haulage AS\", \"legalIdentifier\": {\"scheme\": \"LEI\", \"value\": \"5493001KJTIIGC8Y1R12\"}}" | j id)
echo "org-$N registered: $(pcx -p operator --json organizations get "$ORG" | j status)"
# Its admin makes a key pair and sends the operator the public half; the operator creates the admin's connector with it
pcx keys generate --out "$KEYS/$N-admin.json" > "$KEYS/$N-admin.public.json"
pcx -p operator connectors create --data "{\"organizationId\": \"org-$N\", \"clientId\": \"$N-admin\", \"name\": \"Nordic admin\", \"scopes\": [\"connectors:manage\", \"capacity:read\"], \"publicJwk\": $(cat "$KEYS/$N-admin.public.json")}" > /dev/null
pcx --base-url "$B" -p "$N-admin" login --client-id "$N-admin" --private-key "$KEYS/$N-admin.json"
# Pending: the admin manages its organization, nothing else
pcx -p "$N-admin" offers list > /dev/null 2>&1 || echo "org-$N is not verified yet: it may only manage itself"

# The operator verifies it on evidence: active from the next request on
echo "org-$N: $(pcx -p operator --json organizations verify "$ORG" --data '{"evidenceReference": "GLEIF record checked by the operator"}' | j status)"
# Its admin creates its TMS connector with a key pair of its own; the TMS logs in by private_key_jwt
pcx keys generate --out "$KEYS/$N-tms.json" > "$KEYS/$N-tms.public.json"
pcx -p "$N-admin" connectors create --data "{\"clientId\": \"$N-tms\", \"name\": \"Nordic TMS\", \"scopes\": [\"capacity:publish\", \"capacity:read\"], \"publicJwk\": $(cat "$KEYS/$N-tms.public.json")}" > /dev/null
pcx --base-url "$B" -p "$N-tms" login --client-id "$N-tms" --private-key "$KEYS/$N-tms.json"
# and publishes its first offer, to every partner it will have
OFFER=$(pcx -p "$N-tms" --json offers create --file - <<JSON | j id
{"availabilityWindow": {"start": "$(at 24)", "end": "$(at 36)", "timeZone": "Europe/Oslo"},
 "originArea": {"kind": "unlocode", "code": "NOOSL"}, "destinationArea": {"kind": "unlocode", "code": "SEGOT"},
 "vehicleProfile": {"bodyType": "curtainsider"}, "availableCapacity": {"weight": {"value": 24, "unitCode": "TNE"}, "palletSpaces": 33},
 "expiresAt": "$(at 20)", "visibility": {"mode": "open"}}
JSON
)
echo "org-$N published offer $OFFER: $(pcx -p "$N-tms" --json offers publish "$OFFER" | j status)"
# onboard-org:end
