"""An example carrier connector on pcx-client: a port of examples/carrier/connector.ts.

What a carrier's TMS integration does with the broker, end to end, in one small program. Its own
records are two JSON files: the trucks it has (trucks.json: where each is free, from when, what it
carries, its price, and the rule for accepting matches) and its state (what it published, decided
and imported, the feed cursor and the events applied), written after every change, so a restart
goes on where it stopped and never publishes or applies anything twice.

What it does:
  1. publishes an offer for every truck that has none open (the create's Idempotency-Key is kept
     in the state before the call);
  2. follows its organization's event feed (from where it stopped; on the first start, from now);
  3. a match proposal for one of its offers: accepts it when the partner is one it works with and
     the broker's score reaches the rule's minimum, else rejects it, and says why either way (on a
     stale version it reads the proposal again and decides again);
  4. a tender it is to execute, for a proposal it accepted: accepts the current revision, naming
     it, with If-Match;
  5. a handover for it: imports it as a trip (an acknowledgement with an Idempotency-Key), then
     reports the milestones and the outcome (deduplication keys), and the scenario's correction.

    python clients/python/examples/carrier_connector.py --base-url http://localhost:8080 --client-id alpine-tms
with the secret in PCX_CLIENT_SECRET, or --key-file FILE (a private JWK) for private_key_jwt.

Under the conformance kit (docs/conformance.md, "Scenarios"), PCX_SCENARIO names a scenario file
that takes the place of trucks.json; the state goes beside that file.

Reads go through the layer (`pcx.get`, `pcx.list`: JSON); every write is a generated operation
with a generated request model, on the layer's transport (token, keys, retries).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NotRequired, TypedDict
from uuid import UUID

from pcx_client import PcxClient, PcxProblem, if_match_of, load_private_jwk, unwrap
from pcx_client.generated.api.capacity_offers import (
    create_capacity_offer,
    publish_capacity_offer,
    withdraw_capacity_offer,
)
from pcx_client.generated.api.execution_handovers import acknowledge_execution_handover
from pcx_client.generated.api.execution_outcomes import correct_execution_outcome, record_execution_outcome
from pcx_client.generated.api.execution_references import record_execution_update
from pcx_client.generated.api.match_proposals import decide_match_proposal
from pcx_client.generated.api.transport_tenders import decide_transport_tender
from pcx_client.generated.models.capacity_offer_create_request import CapacityOfferCreateRequest
from pcx_client.generated.models.common_command import CommonCommand
from pcx_client.generated.models.common_reasoned_command import CommonReasonedCommand
from pcx_client.generated.models.event import Event
from pcx_client.generated.models.execution_handover_acknowledgement_request import (
    ExecutionHandoverAcknowledgementRequest,
)
from pcx_client.generated.models.execution_reference_correction_request import ExecutionReferenceCorrectionRequest
from pcx_client.generated.models.execution_reference_outcome_request import ExecutionReferenceOutcomeRequest
from pcx_client.generated.models.execution_reference_update_request import ExecutionReferenceUpdateRequest
from pcx_client.generated.models.match_proposal_decision_request import MatchProposalDecisionRequest
from pcx_client.generated.models.transport_tender_decision_request import TransportTenderDecisionRequest

REPO = Path(__file__).resolve().parents[3]
SYSTEM = "example-carrier"
"""This connector's system, in the external references of its offers and trips."""
OPEN_OFFER = ["draft", "published", "partiallyMatched"]
"""Offers that still take matches; a truck whose offer has ended is offered again."""

Json = dict[str, Any]


class State(TypedDict):
    offers: dict[str, str]  # truckId -> offer id
    offerKeys: dict[str, str]  # truckId -> Idempotency-Key of its offer's create
    offerRequests: NotRequired[dict[str, dict[str, Any]]]  # truckId -> the create sent with that key
    accepted: dict[str, str]  # proposal id -> truckId
    tenders: dict[str, int]  # tender id -> revision accepted
    trips: dict[str, str]  # handover id -> our trip number
    outcomes: dict[str, str]  # execution reference id -> outcome id
    cursor: str | None
    appliedIds: list[str]
    versions: dict[str, int]


def log(text: str) -> None:
    print(f"[carrier] {text}", flush=True)


def hours_from_now(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="An example carrier connector on pcx-client (see the module's docstring).")
    parser.add_argument("--base-url", default=os.environ.get("PCX_BASE_URL", "http://localhost:8080"),
                        help="the broker (default: PCX_BASE_URL or http://localhost:8080)")
    parser.add_argument("--client-id", default=os.environ.get("PCX_CLIENT_ID", "alpine-tms"),
                        help="the connector's client id (default: PCX_CLIENT_ID or alpine-tms); secret in PCX_CLIENT_SECRET")
    parser.add_argument("--key-file", help="a private JWK (kty/crv/x/y/d/kid/alg): private_key_jwt instead of a secret")
    parser.add_argument("--trucks", default=str(REPO / "examples" / "carrier" / "trucks.json"),
                        help="the trucks and the rule (default: examples/carrier/trucks.json)")
    parser.add_argument("--state", help="its records (default: .data/carrier-state-python.json; beside PCX_SCENARIO under the kit)")
    parser.add_argument("--exit-after-outcomes", type=int, help="stop after reporting N outcomes")
    return parser.parse_args()


class Connector:
    def __init__(self, args: argparse.Namespace) -> None:
        scenario_path = os.environ.get("PCX_SCENARIO")
        self.scenario: Json | None = json.loads(Path(scenario_path).read_text()) if scenario_path else None
        self.records: Json = self.records_of(self.scenario) if self.scenario else json.loads(Path(args.trucks).read_text())
        if args.state:
            self.state_path = Path(args.state)
        elif scenario_path:
            self.state_path = Path(scenario_path).parent / "carrier-state.json"
        else:
            self.state_path = REPO / ".data" / "carrier-state-python.json"
        report = self.step("reportExecution")
        # How the trip is reported: the outcome, and a correction of it (the scenario's; else completed, uncorrected).
        self.outcome_status: str = report["outcome"] if report else "completed"
        self.correction: Json | None = report.get("correction") if report else None
        self.state: State = json.loads(self.state_path.read_text()) if self.state_path.exists() else State(
            offers={}, offerKeys={}, accepted={}, tenders={}, trips={}, outcomes={}, cursor=None, appliedIds=[], versions={})
        self.state.setdefault("cursor", None)
        if args.key_file:
            self.pcx = PcxClient(args.base_url, client_id=args.client_id, private_key=load_private_jwk(args.key_file),
                                 user_agent="example-carrier-python/0.1")
        else:
            secret = os.environ.get("PCX_CLIENT_SECRET")
            if not secret:
                raise SystemExit("PCX_CLIENT_SECRET (or --key-file) is required")
            self.pcx = PcxClient(args.base_url, client_id=args.client_id, client_secret=secret,
                                 user_agent="example-carrier-python/0.1")
        self.reported_this_run = 0

    # -- the scenario as this connector's own records --------------------------------------------
    def step(self, action: str) -> Json | None:
        for s in (self.scenario or {}).get("steps", []):
            if s["action"] == action:
                return dict(s)
        return None

    def records_of(self, scenario: Json) -> Json:
        """The scenario's truck, and a rule that accepts the partner it names."""
        publish = self.step("publishCapacity")
        accept = self.step("acceptProposals")
        return {
            "carrier": scenario["organizationId"],
            "rule": {"minimumScore": 0, "partners": [accept["from"]] if accept else []},
            "trucks": [{"truckId": "SCENARIO-1", "plate": "KIT 1", **publish}] if publish else [],
        }

    def save(self) -> None:
        """Written whole to a temporary file and renamed: never half-written."""
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_path.with_name(self.state_path.name + ".tmp")
        tmp.write_text(json.dumps(self.state, indent=2))
        tmp.replace(self.state_path)

    # -- the feed's delivery rules, kept in the state file (an AppliedStore) ---------------------
    def has_event(self, event_id: str) -> bool:
        return event_id in self.state["appliedIds"]

    def applied_version(self, subject: str) -> int | None:
        return self.state["versions"].get(subject)

    def record(self, event_id: str, subject: str, resourceversion: int) -> None:
        self.state["appliedIds"] = [*self.state["appliedIds"][-999:], event_id]
        self.state["versions"][subject] = max(self.state["versions"].get(subject, 0), resourceversion)
        self.save()

    # -- a cursor store in the state file ----------------------------------------------------------
    def load(self) -> str | None:
        return self.state["cursor"]

    def save_cursor(self, cursor: str) -> None:
        self.state["cursor"] = cursor
        self.save()

    # -- 1. offers ---------------------------------------------------------------------------------
    def publish(self, offer: Json) -> Json:
        """Publishes a draft on the version read; on a stale version reads it again (publishing stays right)."""
        return self.pcx.retry_on_stale(
            lambda: self.pcx.get("capacity-offers", offer["id"]),
            lambda o: unwrap(publish_capacity_offer.sync_detailed(UUID(o["id"]), client=self.pcx.api, body=CommonCommand(),
                                                                 if_match=if_match_of(o))).to_dict(),
            first=offer)

    def withdraw(self, offer: Json, reason: str) -> None:
        self.pcx.retry_on_stale(
            lambda: self.pcx.get("capacity-offers", offer["id"]),
            lambda o: unwrap(withdraw_capacity_offer.sync_detailed(UUID(o["id"]), client=self.pcx.api,
                                                                  body=CommonReasonedCommand(reason=reason),
                                                                  if_match=if_match_of(o))),
            first=offer)

    def publish_trucks(self) -> None:
        # Reconciled with the broker first: an open offer of ours the state does not hold (a state
        # file lost, a start that stopped between the create and its record) is withdrawn, so that
        # no partner is matched with a truck this connector does not follow.
        known = set(self.state["offers"].values())
        for o in self.pcx.list("capacity-offers", owner=self.records["carrier"], status=OPEN_OFFER):
            if o["id"] in known or not any(r.get("system") == SYSTEM for r in o.get("externalReferences", [])):
                continue
            if o["status"] == "draft":  # never matched, and may be the one a kept key is about to find
                continue
            self.withdraw(o, "not in the carrier system any more")
            log(f"withdrew offer {o['id']}: an offer of ours this connector has no record of")
        for truck in self.records["trucks"]:
            truck_id = truck["truckId"]
            current = self.state["offers"].get(truck_id)
            if current:
                offer = self.pcx.get("capacity-offers", current)
                if offer["status"] in OPEN_OFFER:
                    if offer["status"] == "draft":
                        self.publish(offer)
                    continue
                log(f"truck {truck_id}: offer {current} is {offer['status']}; offering the truck again")
                self.state["offerKeys"].pop(truck_id, None)
                self.state.get("offerRequests", {}).pop(truck_id, None)
            # The key and the request are kept before the call: a crash between the create and the
            # save below makes the next start send the same request with the same key, which the
            # broker answers with the offer it made (the request's times are computed from now, and
            # a key sent again with another body is refused 409 IDEMPOTENCY_CONFLICT).
            key = self.state["offerKeys"].setdefault(truck_id, f"offer-{truck_id}-{uuid.uuid4()}")
            request = self.state.setdefault("offerRequests", {}).setdefault(truck_id, {
                "availabilityWindow": {"start": hours_from_now(truck["availableInHours"]),
                                       "end": hours_from_now(truck["availableInHours"] + truck["availableForHours"]),
                                       "timeZone": "Europe/Berlin"},
                "originArea": {"kind": "unlocode", "code": truck["origin"]},
                "destinationArea": truck["destination"],
                "vehicleProfile": {"bodyType": truck["bodyType"]},
                "availableCapacity": {"weight": {"value": truck["tonnes"], "unitCode": "TNE"},
                                      "palletSpaces": truck["palletSpaces"]},
                "expiresAt": hours_from_now(max(1, truck["availableInHours"] - 4)),
                "visibility": {"mode": "partners", "organizationIds": truck.get("partners") or self.records["rule"]["partners"]},
                "externalReferences": [{"system": SYSTEM, "type": "truck", "value": truck_id}],
                "restrictedDetails": {"price": truck["price"]},
            })
            self.save()
            body = CapacityOfferCreateRequest.from_dict(request)
            created = unwrap(create_capacity_offer.sync_detailed(client=self.pcx.api, body=body, idempotency_key=key)).to_dict()
            # Recorded before it is published: a publish refused now (no active partnership yet) is
            # tried again by the next start, on this offer.
            self.state["offers"][truck_id] = created["id"]
            self.save()
            published = self.publish(created) if created["status"] == "draft" else created
            log(f"truck {truck_id} ({truck['plate']}) offered as {published['id']}: {published['status']}")

    # -- 3. proposals ------------------------------------------------------------------------------
    def on_proposal(self, id: str) -> None:
        proposal = self.pcx.get("match-proposals", id)
        truck_id = next((t for t, o in self.state["offers"].items() if o == proposal.get("capacityOfferId")), None)
        if not truck_id:
            return log(f"proposal {id} is not for one of our trucks' offers: left to a person")
        carrier = self.records["carrier"]
        decisions = proposal.get("decisions") or []
        if proposal["status"] != "open":
            # Decided before a crash that came before our record of it: record it now.
            ours = any(d.get("organizationId") == carrier and d.get("decision") == "accept" for d in decisions)
            if ours and proposal["status"] == "accepted" and id not in self.state["accepted"]:
                self.state["accepted"][id] = truck_id
                self.save()
            return log(f"proposal {id} is {proposal['status']} already")
        if any(d.get("organizationId") == carrier for d in decisions):
            return log(f"proposal {id}: decided by us already")
        rule = self.records["rule"]
        partner = str(proposal.get("requestOwnerOrganizationId"))
        score = float(proposal.get("score") or 0)
        reasons = []
        if partner not in rule["partners"]:
            reasons.append(f"{partner} is not a partner we take loads from")
        if score < rule["minimumScore"]:
            reasons.append(f"score {score} is below our minimum {rule['minimumScore']}")
        accept = not reasons
        summary = (proposal.get("rationale") or {}).get("summary", "no summary")
        why = (f"score {score} >= {rule['minimumScore']}, {partner} is a partner we take loads from; broker: {summary}"
               if accept else "; ".join(reasons))
        decision = MatchProposalDecisionRequest.from_dict({"decision": "accept" if accept else "reject", "comment": why})
        try:
            # Safe to decide again on a newer version: the rule looks at the pair, not at the version.
            self.pcx.retry_on_stale(
                lambda: self.pcx.get("match-proposals", id),
                lambda p: unwrap(decide_match_proposal.sync_detailed(UUID(id), client=self.pcx.api, body=decision,
                                                                    if_match=if_match_of(p))),
                first=proposal)
        except PcxProblem as err:
            if err.code in ("DECISION_TERMINAL", "INVALID_STATE_TRANSITION"):
                return log(f"proposal {id} was decided already: {err}")
            raise
        # Said before it is recorded: whoever reads the state file and sees the decision has its reason in the log.
        log(f"{'accepted' if accept else 'rejected'} proposal {id} for truck {truck_id}: {why}")
        if accept:
            self.state["accepted"][id] = truck_id
        self.save()

    # -- 4. tenders --------------------------------------------------------------------------------
    def on_tender(self, id: str) -> None:
        tender = self.pcx.get("transport-tenders", id)
        origin = tender.get("originatingProposalId")
        if tender.get("executingOrganizationId") != self.records["carrier"] or not origin or origin not in self.state["accepted"]:
            return
        accept = self.step("acceptTenders")
        if self.scenario and (accept or {}).get("from") != tender.get("issuingOrganizationId"):
            return log(f"tender {id}: the scenario asks for no accept of it")
        if self.state["tenders"].get(id) == tender["currentRevision"] or tender["status"] != "issued":
            return

        def decide(t: Json) -> Json:
            # The revision decided on is named in the body and its version in If-Match.
            body = TransportTenderDecisionRequest.from_dict({"decision": "accept", "revision": t["currentRevision"]})
            return unwrap(decide_transport_tender.sync_detailed(UUID(id), client=self.pcx.api, body=body,
                                                               if_match=if_match_of(t))).to_dict()

        self.pcx.retry_on_stale(lambda: self.pcx.get("transport-tenders", id), decide, first=tender)
        self.state["tenders"][id] = tender["currentRevision"]
        self.save()
        log(f"accepted tender {id} revision {tender['currentRevision']} (for proposal {origin}, which we accepted)")

    # -- 5. handovers, milestones, outcome ---------------------------------------------------------
    def on_handover(self, id: str) -> None:
        handover = self.pcx.get("execution-handovers", id)
        if handover.get("executingOrganizationId") != self.records["carrier"]:
            return
        tender = self.pcx.get("transport-tenders", handover["tenderId"])
        origin = tender.get("originatingProposalId")
        truck_id = self.state["accepted"].get(origin) if origin else None
        if not truck_id:
            return log(f"handover {id} is for a match we did not make here: left to a person")
        # Each step is recorded before the next and is idempotent at the broker (the
        # acknowledgement by its Idempotency-Key, milestones and the outcome by their deduplication
        # keys), so a crash anywhere here makes the next start finish what is missing.
        trip = self.state["trips"].get(id)
        if not trip:
            trip = f"TRIP-{id[-8:]}"
            body = ExecutionHandoverAcknowledgementRequest.from_dict(
                {"outcome": "imported", "destinationExternalReference": {"system": SYSTEM, "type": "trip", "value": trip}})
            unwrap(acknowledge_execution_handover.sync_detailed(UUID(id), client=self.pcx.api, body=body,
                                                                idempotency_key=f"ack-{id}"))
            self.state["trips"][id] = trip
            self.save()
            log(f"imported handover {id} as trip {trip} for truck {truck_id}")
        reference = handover.get("executionReferenceId") or self.reference_of(str(origin))
        if reference in self.state["outcomes"]:
            return
        self.report_trip(reference, trip)
        # The trip is done: the truck is free again; what was left of its offer is withdrawn.
        if self.state["offers"].get(truck_id) == tender.get("capacityOfferId"):
            offer = self.pcx.get("capacity-offers", tender["capacityOfferId"])
            if offer["status"] in OPEN_OFFER and offer["status"] != "draft":
                self.withdraw(offer, f"truck {truck_id} left on trip {trip}")
                log(f"withdrew what was left of offer {offer['id']}: truck {truck_id} left on trip {trip}")
            self.state["offers"].pop(truck_id, None)
            self.state["offerKeys"].pop(truck_id, None)
            self.state.get("offerRequests", {}).pop(truck_id, None)
            self.save()

    def reference_of(self, proposal_id: str) -> str:
        for reference in self.pcx.list("execution-references", proposal=proposal_id):
            return str(reference["id"])
        raise RuntimeError(f"no execution reference for proposal {proposal_id}")

    def report_trip(self, reference: str, trip: str) -> None:
        """Picked up, delivered, then the outcome (each deduplicated by its key), then its correction."""
        # The times are the facts as they happen: the broker refuses a time ahead of its clock or
        # before the movement's reference was made, so the trip runs from its pick-up to now.
        times: dict[str, str] = {}
        for milestone in ("pickedUp", "delivered"):
            times[milestone] = hours_from_now(0)
            update = ExecutionReferenceUpdateRequest.from_dict({"executionReferenceId": reference, "milestone": milestone,
                                                                "occurredAt": times[milestone],
                                                                "deduplicationKey": f"{trip}-{milestone}"})
            unwrap(record_execution_update.sync_detailed(client=self.pcx.api, body=update))
            log(f"trip {trip}: {milestone}")
        time_range = {"start": times["pickedUp"], "end": times["delivered"]}
        outcome_body = ExecutionReferenceOutcomeRequest.from_dict({
            "executionReferenceId": reference, "status": self.outcome_status, "deduplicationKey": f"{trip}-outcome",
            "schemaVersion": "v0", "actualTimeRange": time_range})
        # Its first POST may be answered 503: the transport retries with the same Idempotency-Key,
        # and the body keeps its deduplicationKey, so the broker records one outcome.
        outcome = unwrap(record_execution_outcome.sync_detailed(client=self.pcx.api, body=outcome_body))
        log(f"trip {trip}: outcome {outcome.id} {outcome.status} for execution reference {reference}")
        if self.correction:
            # A correction of the head on the version read, never a second outcome (the chain is append-only).
            correction = ExecutionReferenceCorrectionRequest.from_dict({
                "observedOutcomeVersion": outcome.resource_version, "correctionReason": self.correction["reason"],
                "correctionReasonCode": self.correction["reasonCode"], "status": self.correction["status"],
                "deduplicationKey": f"{trip}-correction", "schemaVersion": "v0", "actualTimeRange": time_range})
            corrected = unwrap(correct_execution_outcome.sync_detailed(UUID(str(outcome.id)), client=self.pcx.api, body=correction))
            log(f"trip {trip}: outcome corrected to {corrected.status} ({corrected.id}): {self.correction['reason']}")
        self.state["outcomes"][reference] = str(outcome.id)
        self.save()
        self.reported_this_run += 1

    def handle(self, event: Event) -> None:
        kind, _, id = event.subject.partition("/")
        if event.type_ == "pcx.match-proposal.created.v1":
            self.on_proposal(id)
        elif event.type_ in ("pcx.transport-tender.issued.v1", "pcx.transport-tender.countered.v1"):
            self.on_tender(id)
        elif event.type_ == "pcx.execution-handover.offered.v1" and kind == "execution-handovers":
            self.on_handover(id)


class _Cursor:
    def __init__(self, connector: Connector) -> None:
        self._c = connector

    def load(self) -> str | None:
        return self._c.load()

    def save(self, cursor: str) -> None:
        self._c.save_cursor(cursor)


def main() -> int:
    args = parse_args()
    connector = Connector(args)
    stop = threading.Event()
    # SIGTERM (the kit's stop) and Ctrl-C end the loop at its next pause; exit 0.
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    feed = connector.pcx.events(follow=True, poll_interval=0.5, applied=connector, cursor_store=_Cursor(connector), stop=stop)
    # First start: the feed from its end, taken before publishing, so that no proposal for our
    # offers can come before our place in it (what was before is another system's past).
    resumed = connector.state["cursor"] is not None
    try:
        if not resumed:
            feed.skip_to_end()
        connector.publish_trucks()
        log(f"following the feed{' from where it stopped' if resumed else ' from now'}")
        for event in feed:
            connector.handle(event)
            if args.exit_after_outcomes is not None and connector.reported_this_run >= args.exit_after_outcomes:
                break
    except Exception as err:
        if not stop.is_set():
            print(f"[carrier] failed: {err!r}", file=sys.stderr, flush=True)
            raise
    finally:
        connector.pcx.close()
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
