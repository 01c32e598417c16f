#!/usr/bin/env bash
# The README's "Trying it with pcx" walkthrough as one script: bash scripts/walkthrough-pcx.sh
# against a running `npm start` (B names another broker). Like the curl walkthrough, it can run
# again and again on the same stack: it ends a relationship between Alpine and Baltic that is
# open, ends the one it opens, and leaves them partners again if they were.
# test/walkthrough.test.ts runs it twice.
set -euo pipefail
cd "$(dirname "$0")/.."

# pcx:begin
. scripts/pcx-helpers.sh   # B, pcx, j and at, from the clone's root (see "Trying it with pcx")

# A profile per demo connector (kept in ~/.config/pcx/profiles.json, mode 600; PCX_CONFIG_DIR moves it)
PCX_CLIENT_SECRET=alpine-demo-secret pcx --base-url "$B" -p alpine login --client-id alpine-tms
PCX_CLIENT_SECRET=baltic-demo-secret pcx --base-url "$B" -p baltic login --client-id baltic-erp

# End what is open between Alpine and Baltic (commands read the version they need); a
# partnership's scopes are remembered: at the end they are partners again, as found
FOUND=
for OLD in $(pcx -p alpine --json relationships list --counterpart org-baltic-shippers --status draft,requested,active,suspended | python3 -c 'import json, sys; print(" ".join(r["id"] for r in json.load(sys.stdin)))'); do
  case "$(pcx -p alpine --json relationships get "$OLD" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["status"] + "/" + r["requestingOrganizationId"])')" in
    draft/org-alpine-freight | requested/org-alpine-freight) END=withdraw ;;
    requested/*) END=reject ;;
    *) END=terminate; FOUND=$(pcx -p alpine --json relationships get "$OLD" | j scopes) ;;
  esac
  pcx -p alpine relationships "$END" "$OLD" --data '{"reason":"ended by the walkthrough, to open its own"}' > /dev/null
  echo "ended relationship $OLD ($END)"
done

# Alpine invites Baltic, requests, Baltic accepts
REL=$(pcx -p alpine --json relationships create --data '{"requestingOrganizationId":"org-alpine-freight","acceptingOrganizationId":"org-baltic-shippers","scopes":["capacity:publish","capacity:read","loads:publish","loads:read","matches:read","matches:decide"]}' | j id)
pcx -p alpine relationships request "$REL" > /dev/null
echo "relationship $REL: $(pcx -p baltic --json relationships accept "$REL" | j status)"

# Alpine publishes capacity, Baltic a load it can carry
OFFER=$(pcx -p alpine --json offers create --file - <<JSON | j id
{"availabilityWindow": {"start": "$(at 24)", "end": "$(at 36)", "timeZone": "Europe/Berlin"},
 "originArea": {"kind": "unlocode", "code": "DEHAM"}, "destinationArea": {"kind": "circle", "center": [4.47, 51.92], "radiusKm": 50},
 "vehicleProfile": {"bodyType": "curtainsider"}, "availableCapacity": {"weight": {"value": 24, "unitCode": "TNE"}, "palletSpaces": 33},
 "expiresAt": "$(at 20)", "visibility": {"mode": "partners", "organizationIds": ["org-baltic-shippers"]}}
JSON
)
pcx -p alpine offers publish "$OFFER" > /dev/null
LOAD=$(pcx -p baltic --json requests create --file - <<JSON | j id
{"pickupArea": {"kind": "subdivision", "code": "DE-HH"}, "pickupWindow": {"start": "$(at 24)", "end": "$(at 27)"},
 "deliveryArea": {"kind": "unlocode", "code": "NLRTM"}, "deliveryWindow": {"start": "$(at 30)", "end": "$(at 36)"},
 "requiredCapacity": {"weight": {"value": 8, "unitCode": "TNE"}, "palletSpaces": 10},
 "vehicleRequirements": {"bodyTypes": ["curtainsider"]}, "goodsProfile": {"category": "retail", "packaging": "pallets"},
 "expiresAt": "$(at 20)", "visibility": {"mode": "partners", "organizationIds": ["org-alpine-freight"]}}
JSON
)
pcx -p baltic requests publish "$LOAD" > /dev/null

# The broker proposes the pair; both accept (each decision reads the version it decides on)
PROPOSAL=$(pcx -p baltic --json wait proposal --request "$LOAD" --offer "$OFFER" --timeout 60 | j id)
pcx -p baltic proposals decide "$PROPOSAL" accept > /dev/null
echo "proposal $PROPOSAL: $(pcx -p alpine --json proposals decide "$PROPOSAL" accept | j decisionState)"
pcx -p alpine references list --proposal "$PROPOSAL"
# Alpine withdraws what is left of its truck (the accepted match stays): a later walkthrough meets no truck without a price
echo "offer $OFFER: $(pcx -p alpine --json offers withdraw "$OFFER" --data '{"reason":"truck booked elsewhere"}' | j status)"

# Baltic's feed shows it all; then the relationship ends
pcx -p baltic events tail | tail -n 4
pcx -p alpine relationships terminate "$REL" --data '{"reason":"walkthrough done"}' > /dev/null
echo "relationship $REL terminated"
# Leave the demo as found: partners again, with the scopes they had, if they were
if [ -n "$FOUND" ]; then
  AGAIN=$(pcx -p alpine --json relationships create --data "{\"requestingOrganizationId\":\"org-alpine-freight\",\"acceptingOrganizationId\":\"org-baltic-shippers\",\"scopes\":$FOUND}" | j id)
  pcx -p alpine relationships request "$AGAIN" > /dev/null
  echo "partners again, as found: relationship $AGAIN $(pcx -p baltic --json relationships accept "$AGAIN" | j status)"
fi
# pcx:end
