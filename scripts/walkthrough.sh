#!/usr/bin/env bash
# The README's "Trying it with curl" walkthrough as one script: bash scripts/walkthrough.sh
# against a running `npm start` (B names another broker: B=http://localhost:18080 bash ...).
# It can run again and again on the same stack: its idempotency keys are new on every run, it
# ends what an interrupted earlier run left open, and it ends the relationship it opens.
# Every call goes through `expect`, so an unexpected status stops the script with the answer.
# The lines between walkthrough:begin and walkthrough:end are the README's code blocks, line for
# line (comments aside); test/unit/readme-walkthrough.test.ts keeps the two in step.
set -euo pipefail

# walkthrough:begin
B=${B:-http://localhost:8080}
RUN=$(python3 -c 'import uuid; print(uuid.uuid4())')   # makes this run's Idempotency-Keys unique
H=$(mktemp); trap 'rm -f "$H"' EXIT                   # the headers of the last answer

# expect STATUS CURL-ARGUMENTS...: one call; its body in $BODY, its ETag in $ETAG; any other
# status than STATUS prints the answer and fails. A 429 (a rate limit, e.g. ten invitations a
# minute when the walkthrough runs again and again) is sent again after its Retry-After.
expect() {
  local want=$1 code; shift
  for _ in 1 2 3 4 5; do
    BODY=$(curl -sS -D "$H" -w '\n%{http_code}' "$@") || true
    code=${BODY##*$'\n'}; BODY=${BODY%$'\n'*}
    [ "$code" = 429 ] && [ "$want" != 429 ] || break
    sleep "$(tr -d '\r' < "$H" | awk 'tolower($1) == "retry-after:" { print $2 + 0 }' | grep . || echo 1)"
  done
  ETAG=$(tr -d '\r' < "$H" | awk 'tolower($1) == "etag:" { print $2 }')
  if [ "$code" != "$want" ]; then
    echo "FAILED: curl $(echo "$*" | sed -E 's/Bearer [^ ]+/Bearer .../g')" >&2
    echo "answered $code, expected $want: $BODY" >&2
    return 1
  fi
}
# field PATH [DEFAULT]: one value of $BODY (PATH like id or restrictedDetails.price), DEFAULT if absent
field() {
  printf '%s' "$BODY" | python3 -c 'import json, sys
v = body = json.load(sys.stdin)
try:
    for k in sys.argv[1].split("."): v = v[int(k)] if isinstance(v, list) else v[k]
except (KeyError, IndexError):
    if len(sys.argv) < 3: sys.exit("no " + sys.argv[1] + " in " + json.dumps(body)[:2000])
    v = sys.argv[2]
print(v if isinstance(v, str) else json.dumps(v))' "$@"
}
# at HOURS: the UTC timestamp HOURS from now (expiresAt must be in the future to publish)
at() { python3 -c 'import datetime as d, sys; print((d.datetime.now(d.timezone.utc) + d.timedelta(hours=float(sys.argv[1]))).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$1"; }

# npm start is ready when /health/ready answers 200 {"status":"ready",...}; wait up to a minute
READY=no
for _ in $(seq 60); do expect 200 "$B/health/ready" 2>/dev/null && { READY=yes; break; }; sleep 1; done
[ $READY = yes ] || { echo "no broker ready at $B/health/ready after 60 s: is npm start running?" >&2; false; }
echo "broker at $B is ready: $BODY"

# a token for each demo connector (OAuth client credentials; the secrets are in config/demo-clients.json)
token() { expect 200 -u "$1:$2" -d grant_type=client_credentials "$B/oauth2/token" && field access_token; }
ALPINE=$(token alpine-tms alpine-demo-secret)
BALTIC=$(token baltic-erp baltic-demo-secret)
CARGO=$(token cargo-coop-planner cargo-coop-demo-secret)
OPERATOR=$(token pcx-operator operator-demo-secret)
echo "tokens for Alpine, Baltic, Cargo Co-op and the operator"

# Baltic's connector reads the event feed to its end and keeps the cursor, to see this run's events later
expect 200 -H "Authorization: Bearer $BALTIC" "$B/events?limit=200"
until [ "$(field items)" = "[]" ]; do expect 200 -H "Authorization: Bearer $BALTIC" "$B/events?limit=200&cursor=$(field nextCursor)"; done
CURSOR=$(field nextCursor)

# Only one relationship between two organizations may be open at a time. Alpine and Baltic may
# be partners already (the console's planners, the examples, a run that was interrupted): end what
# is open (draft, requested, active or suspended) first, so the walkthrough can always run again,
# and remember a partnership's scopes: at the end they are partners again, as the walkthrough
# found them. An invite is withdrawn by its sender (or rejected by Alpine if Baltic sent it); a
# partnership is terminated. Each command carries the ETag just read.
FOUND=
expect 200 -H "Authorization: Bearer $ALPINE" "$B/partner-relationships?counterpart=org-baltic-shippers&status=draft,requested,active,suspended"
for OLD in $(printf '%s' "$BODY" | python3 -c 'import json, sys; print(" ".join(r["id"] for r in json.load(sys.stdin)["items"]))'); do
  expect 200 -H "Authorization: Bearer $ALPINE" "$B/partner-relationships/$OLD"
  case "$(field status)/$(field requestingOrganizationId)" in
    draft/org-alpine-freight | requested/org-alpine-freight) END=withdraw ;;
    requested/*) END=reject ;;
    *) END=terminate; FOUND=$(field scopes) ;;
  esac
  expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
    -d '{"reason":"ended by the walkthrough, to open its own"}' -X POST "$B/partner-relationships/$OLD/$END"
  echo "ended the relationship $OLD that was open ($END)"
done

# Alpine invites Baltic: a draft, visible only to Alpine. The scopes let them share offers and
# requests, be matched (matching needs capacity:publish and loads:read; deciding matches:decide)
# and tender to each other (tenders:read, tenders:decide)
expect 201 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' -H "Idempotency-Key: invite-$RUN" \
  -d '{"requestingOrganizationId":"org-alpine-freight","acceptingOrganizationId":"org-baltic-shippers","scopes":["capacity:publish","capacity:read","loads:publish","loads:read","matches:read","matches:decide","tenders:read","tenders:decide"]}' \
  "$B/partner-relationships"
REL=$(field id)
echo "relationship $REL: $(field status), ETag $ETAG"
# Alpine submits it; If-Match carries the version last seen (the ETag of the previous answer)
expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -X POST "$B/partner-relationships/$REL/request"
echo "relationship $REL: $(field status)"
# Baltic reads it and accepts
expect 200 -H "Authorization: Bearer $BALTIC" "$B/partner-relationships/$REL"
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -X POST "$B/partner-relationships/$REL/accept"
echo "relationship $REL: $(field status), scopes $(field scopes)"
# Cargo Co-op is no party to it: 404, as if it did not exist
expect 404 -H "Authorization: Bearer $CARGO" "$B/partner-relationships/$REL"
echo "Cargo Co-op cannot see relationship $REL (404)"

# Alpine offers capacity to Baltic only (partner visibility); restrictedDetails (the price) are
# disclosed to a partner only once a match is accepted
expect 201 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' -H "Idempotency-Key: offer-$RUN" -d @- "$B/capacity-offers" <<JSON
{
  "availabilityWindow": {"start": "$(at 24)", "end": "$(at 36)", "timeZone": "Europe/Berlin"},
  "originArea": {"kind": "unlocode", "code": "DEHAM"},
  "destinationArea": {"kind": "circle", "center": [4.47, 51.92], "radiusKm": 50},
  "vehicleProfile": {"bodyType": "curtainsider"},
  "availableCapacity": {"weight": {"value": 24, "unitCode": "TNE"}, "palletSpaces": 33},
  "expiresAt": "$(at 20)",
  "visibility": {"mode": "partners", "organizationIds": ["org-baltic-shippers"]},
  "restrictedDetails": {"price": {"amount": 950, "currency": "EUR"}}
}
JSON
OFFER=$(field id)
expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -X POST "$B/capacity-offers/$OFFER/publish"
echo "offer $OFFER: $(field status), price $(field restrictedDetails.price)"
# Baltic sees it, without the restricted price; Cargo Co-op does not see it at all
expect 200 -H "Authorization: Bearer $BALTIC" "$B/capacity-offers/$OFFER"
echo "Baltic sees offer $OFFER: $(field status), $(field availableCapacity), price $(field restrictedDetails.price hidden)"
expect 404 -H "Authorization: Bearer $CARGO" "$B/capacity-offers/$OFFER"
echo "Cargo Co-op cannot see offer $OFFER (404)"

# Baltic asks for transport, shown to Alpine only; addresses, customer and price stay restricted
expect 201 -H "Authorization: Bearer $BALTIC" -H 'Content-Type: application/json' -H "Idempotency-Key: load-$RUN" -d @- "$B/load-requests" <<JSON
{
  "pickupArea": {"kind": "subdivision", "code": "DE-HH"},
  "pickupWindow": {"start": "$(at 24)", "end": "$(at 28)"},
  "deliveryArea": {"kind": "unlocode", "code": "NLRTM"},
  "deliveryWindow": {"start": "$(at 48)", "end": "$(at 52)", "timeZone": "Europe/Amsterdam"},
  "requiredCapacity": {"weight": {"value": 12000, "unitCode": "KGM"}, "volume": {"value": 40, "unitCode": "MTQ"}, "palletSpaces": 12},
  "vehicleRequirements": {"bodyTypes": ["curtainsider", "box"], "equipment": ["tailLift"]},
  "goodsProfile": {"category": "electronics", "packaging": "pallets", "hazardous": false},
  "handlingRequirements": {"temperature": {"minCelsius": 15, "maxCelsius": 25}, "stackable": false},
  "expiresAt": "$(at 20)",
  "visibility": {"mode": "partners", "organizationIds": ["org-alpine-freight"]},
  "restrictedDetails": {
    "pickupAddress": {"lines": ["Hafenstrasse 1"], "postalCode": "20457", "city": "Hamburg", "countryCode": "DE"},
    "deliveryAddress": {"lines": ["Europaweg 9"], "postalCode": "3199", "city": "Rotterdam", "countryCode": "NL"},
    "customer": {"name": "ACME Retail BV", "reference": "C-77"},
    "price": {"amount": 1200, "currency": "EUR"}
  }
}
JSON
LOAD=$(field id)
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -X POST "$B/load-requests/$LOAD/publish"
echo "load request $LOAD: $(field status)"
# Alpine reads it: the areas, windows and capacity, not the addresses or the customer
expect 200 -H "Authorization: Bearer $ALPINE" "$B/load-requests/$LOAD"
echo "Alpine sees load request $LOAD: $(field status), $(field pickupArea) to $(field deliveryArea), restricted details $(field restrictedDetails hidden)"
# Does it match Alpine's offer? The broker's evaluation, criterion by criterion (no proposal made)
expect 200 -H "Authorization: Bearer $BALTIC" -H 'Content-Type: application/json' \
  -d "{\"capacityOfferId\":\"$OFFER\",\"loadRequestId\":\"$LOAD\"}" "$B/match-evaluations"
echo "evaluation: compatible $(field compatible): $(field rationale.summary)"

# The protocol operator (client pcx-operator, scope exchange:admin) cancels the load request, with a reason
expect 200 -H "Authorization: Bearer $OPERATOR" "$B/load-requests/$LOAD"
expect 200 -H "Authorization: Bearer $OPERATOR" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"reason":"duplicate of an order placed by phone"}' -X POST "$B/load-requests/$LOAD/cancel"
echo "load request $LOAD: $(field status) by $(field cancelledBy.organizationId): $(field cancellation.reason)"
# A second request that the offer can carry: on publication the broker finds the pair and proposes
# it (asynchronously), with its explanation, reserving the capacity on the offer
expect 201 -H "Authorization: Bearer $BALTIC" -H 'Content-Type: application/json' -H "Idempotency-Key: load2-$RUN" -d @- "$B/load-requests" <<JSON
{
  "pickupArea": {"kind": "subdivision", "code": "DE-HH"},
  "pickupWindow": {"start": "$(at 24)", "end": "$(at 27)"},
  "deliveryArea": {"kind": "unlocode", "code": "NLRTM"},
  "deliveryWindow": {"start": "$(at 30)", "end": "$(at 36)", "timeZone": "Europe/Amsterdam"},
  "requiredCapacity": {"weight": {"value": 8, "unitCode": "TNE"}, "palletSpaces": 10},
  "vehicleRequirements": {"bodyTypes": ["curtainsider"]},
  "goodsProfile": {"category": "retail", "packaging": "pallets"},
  "expiresAt": "$(at 20)",
  "visibility": {"mode": "partners", "organizationIds": ["org-alpine-freight"]},
  "restrictedDetails": {"deliveryAddress": {"lines": ["Kade 4"], "postalCode": "3011", "city": "Rotterdam", "countryCode": "NL"}}
}
JSON
LOAD2=$(field id)
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -X POST "$B/load-requests/$LOAD2/publish"
for _ in $(seq 30); do
  expect 200 -H "Authorization: Bearer $BALTIC" "$B/match-proposals?request=$LOAD2"
  [ "$(field items)" != "[]" ] && break; sleep 1
done
PROPOSAL=$(field items.0.id)
echo "proposal $PROPOSAL: $(field items.0.decisionState), score $(field items.0.score): $(field items.0.rationale.summary)"
# Both organizations must accept (the relationship's policy, BILATERAL_REQUIRED), each on the
# version it saw; the accept that completes the policy commits the match
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: \"$(field items.0.resourceVersion)\"" -H 'Content-Type: application/json' \
  -d '{"decision":"accept","comment":"fine for us"}' "$B/match-proposals/$PROPOSAL/decisions"
echo "proposal $PROPOSAL: $(field decisionState)"
expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"decision":"accept"}' "$B/match-proposals/$PROPOSAL/decisions"
echo "proposal $PROPOSAL: $(field status), $(field decisionState)"
# The request is matched; Alpine now sees what it needs to carry it, the delivery address included
expect 200 -H "Authorization: Bearer $ALPINE" "$B/load-requests/$LOAD2"
echo "load request $LOAD2: $(field status), delivery to $(field restrictedDetails.deliveryAddress.city)"
# The accepted match has an execution reference, made by the broker: the record both systems' own
# records of this movement will be tied to
expect 200 -H "Authorization: Bearer $BALTIC" "$B/execution-references?proposal=$PROPOSAL"
REFERENCE=$(field items.0.id)
echo "execution reference $REFERENCE: $(field items.0.status)"
# Baltic tenders the movement to Alpine; the terms come from the match (stops, windows, cargo, price)
expect 201 -H "Authorization: Bearer $BALTIC" -H 'Content-Type: application/json' -H "Idempotency-Key: tender-$RUN" \
  -d "{\"executingOrganizationId\":\"org-alpine-freight\",\"originatingProposalId\":\"$PROPOSAL\",\"movementScope\":\"fullTransport\",\"expiresAt\":\"$(at 20)\"}" \
  "$B/transport-tenders"
TENDER=$(field id)
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -X POST "$B/transport-tenders/$TENDER/issue"
# Both accept revision 1 (the relationship's policy); the second accept makes the commitment, whose
# digest either side can recompute from GET /transport-commitments/{id}/digest-input
expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"decision":"accept","revision":1}' "$B/transport-tenders/$TENDER/decisions"
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"decision":"accept","revision":1}' "$B/transport-tenders/$TENDER/decisions"
COMMITMENT=$(field commitmentId)
expect 200 -H "Authorization: Bearer $ALPINE" "$B/transport-commitments/$COMMITMENT"
echo "tender $TENDER: accepted; commitment $COMMITMENT: $(field status), digest $(field digest.value)"
# Baltic hands the execution package to Alpine: the exact addresses and slots (inside the agreed
# windows), the cargo, and Baltic's own record of the shipment. Only Alpine and Baltic see it.
expect 201 -H "Authorization: Bearer $BALTIC" -H 'Content-Type: application/json' -H "Idempotency-Key: handover-$RUN" -d @- "$B/execution-handovers" <<JSON
{
  "commitmentId": "$COMMITMENT",
  "package": {
    "stops": [
      {"sequence": 1, "role": "pickup", "timeWindow": {"start": "$(at 25)", "end": "$(at 26)"},
       "location": {"name": "Hafen DC", "address": {"lines": ["Kaistrasse 7"], "postalCode": "20457", "city": "Hamburg", "countryCode": "DE"}}},
      {"sequence": 2, "role": "delivery", "timeWindow": {"start": "$(at 31)", "end": "$(at 35)"},
       "location": {"address": {"lines": ["Kade 4"], "postalCode": "3011", "city": "Rotterdam", "countryCode": "NL"}}}
    ],
    "cargo": {"description": "ten pallets of shoes", "weight": {"value": 8, "unitCode": "TNE"}, "palletSpaces": 10}
  },
  "sourceExternalReferences": [{"system": "baltic-erp", "type": "shipment", "value": "S-$RUN"}]
}
JSON
HANDOVER=$(field id)
# Alpine's TMS imports it and names the trip it created; a repeated acknowledgement changes nothing
expect 200 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' \
  -d "{\"outcome\":\"imported\",\"destinationExternalReference\":{\"system\":\"alpine-tms\",\"type\":\"trip\",\"value\":\"TR-$RUN\"}}" \
  "$B/execution-handovers/$HANDOVER/acknowledgements"
echo "handover $HANDOVER: $(field status) as $(field destinationExternalReference.value)"

# Alpine reports milestones (deduplicated by their keys; a coarse position only) and then the
# outcome; a completed outcome completes the execution reference. Times are facts: the broker
# refuses one ahead of its clock or before the reference was made (5 minutes of skew either side),
# so the movement runs from the pick-up just now
PICKED=$(at 0)
expect 201 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' \
  -d "{\"executionReferenceId\":\"$REFERENCE\",\"milestone\":\"pickedUp\",\"occurredAt\":\"$PICKED\",\"deduplicationKey\":\"picked-$RUN\",\"position\":{\"kind\":\"unlocode\",\"code\":\"DEHAM\"}}" \
  "$B/execution-updates"
DELIVERED=$(at 0)
expect 201 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' \
  -d "{\"executionReferenceId\":\"$REFERENCE\",\"milestone\":\"delivered\",\"occurredAt\":\"$DELIVERED\",\"deduplicationKey\":\"delivered-$RUN\"}" \
  "$B/execution-updates"
expect 201 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' \
  -d "{\"executionReferenceId\":\"$REFERENCE\",\"status\":\"completed\",\"deduplicationKey\":\"done-$RUN\",\"schemaVersion\":\"v0\",\"actualTimeRange\":{\"start\":\"$PICKED\",\"end\":\"$DELIVERED\"}}" \
  "$B/execution-outcomes"
echo "outcome $(field id): $(field status)"
# Baltic reads the reference: completed, tied to the commitment, the handover and both systems'
# records (the broker attaches them asynchronously, as the handover is delivered and imported)
for _ in $(seq 30); do
  expect 200 -H "Authorization: Bearer $BALTIC" "$B/execution-references/$REFERENCE"
  [ "$(field destinationExternalReferences)" != "[]" ] && break; sleep 1
done
echo "execution reference $REFERENCE: $(field status); commitment $(field commitmentId), handover $(field handoverId)"
echo "  records: $(field sourceExternalReferences.0.value) at Baltic, $(field destinationExternalReferences.0.value) at Alpine; last milestone $(field currentMilestone.milestone)"
# Alpine withdraws what is left of its offer; the match it accepted stays (a committed match is not
# reversed by a withdrawal)
expect 200 -H "Authorization: Bearer $ALPINE" "$B/capacity-offers/$OFFER"
expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"reason":"truck booked elsewhere"}' -X POST "$B/capacity-offers/$OFFER/withdraw"
echo "offer $OFFER: $(field status)"

# The events Baltic may see since it last read the feed (CloudEvents; data is Baltic's view)
expect 200 -H "Authorization: Bearer $BALTIC" "$B/events?limit=200&cursor=$CURSOR"
printf '%s' "$BODY" | python3 -c 'import json, sys; [print("  event", e["type"], e["subject"]) for e in json.load(sys.stdin)["items"]]'

# Baltic suspends the relationship (a reason is required); only Baltic may reactivate it
expect 200 -H "Authorization: Bearer $BALTIC" "$B/partner-relationships/$REL"
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"reason":"audit"}' -X POST "$B/partner-relationships/$REL/suspend"
echo "relationship $REL: $(field status) by $(field suspendedByOrganizationId)"
expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -X POST "$B/partner-relationships/$REL/reactivate"
echo "relationship $REL: $(field status)"
# Alpine ends it (a reason is required)
expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -H 'Content-Type: application/json' \
  -d '{"reason":"contract ended"}' -X POST "$B/partner-relationships/$REL/terminate"
echo "relationship $REL: $(field status) ($(field terminationCause))"
expect 200 -H "Authorization: Bearer $ALPINE" "$B/partner-relationships?counterpart=org-baltic-shippers&status=draft,requested,active,suspended"
echo "open relationships between Alpine and Baltic: $(field items)"
# Leave the demo as the walkthrough found it: partners again, with the scopes they had, if they were
if [ -n "$FOUND" ]; then
  expect 201 -H "Authorization: Bearer $ALPINE" -H 'Content-Type: application/json' -H "Idempotency-Key: again-$RUN" \
    -d "{\"requestingOrganizationId\":\"org-alpine-freight\",\"acceptingOrganizationId\":\"org-baltic-shippers\",\"scopes\":$FOUND}" "$B/partner-relationships"
  AGAIN=$(field id)
  expect 200 -H "Authorization: Bearer $ALPINE" -H "If-Match: $ETAG" -X POST "$B/partner-relationships/$AGAIN/request"
  expect 200 -H "Authorization: Bearer $BALTIC" -H "If-Match: $ETAG" -X POST "$B/partner-relationships/$AGAIN/accept"
  echo "Alpine and Baltic are partners again, as the walkthrough found them: relationship $AGAIN $(field status)"
fi

# Where to look in the Temporal UI (npm start: http://localhost:8233): each resource is a workflow
# with the id <kind>/<id>, with search attributes PcxResourceKind, PcxOwnerOrganizationId,
# PcxPartnerOrganizationId and PcxStatus
echo "Temporal UI: http://localhost:8233 (or TEMPORAL_UI_PORT), namespace default. Workflow ids:"
echo "  partner-relationship/$REL"
echo "  capacity-offer/$OFFER"
echo "  load-request/$LOAD"
echo "  match-proposal/$PROPOSAL (and the matching flows started by its transitions, e.g. load-request/$LOAD2/effect/...)"
echo "List filters, e.g.: PcxResourceKind = 'capacity-offer' AND PcxOwnerOrganizationId = 'org-alpine-freight'"
echo "  or: PcxResourceKind = 'partner-relationship' AND PcxPartnerOrganizationId = 'org-baltic-shippers' AND PcxStatus = 'terminated'"
# walkthrough:end
