"""Fast tests of the layer's pure logic (stdlib unittest; no broker):
python -m unittest discover -s clients/python/tests"""

from __future__ import annotations

import json
import time
import unittest
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from standardwebhooks import Webhook

from pcx_client import (
    FeedConsumer,
    GuardedTransport,
    MemoryAppliedStore,
    RetryPolicy,
    StaticToken,
    WebhookReceiver,
    WebhookVerificationError,
    backoff,
    client_assertion,
    parse_retry_after,
)
from pcx_client.generated.models.event_page import EventPage

# The Standard Webhooks specification's published test vector.
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TIMESTAMP = 1614265330
SPEC_BODY = '{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


class RetryAfterTest(unittest.TestCase):
    def test_delta_seconds(self) -> None:
        self.assertEqual(parse_retry_after("3"), 3.0)
        self.assertEqual(parse_retry_after(" 0 "), 0.0)

    def test_http_date(self) -> None:
        now = 1_700_000_000.0
        at = format_datetime(datetime.fromtimestamp(now + 10, UTC), usegmt=True)
        self.assertAlmostEqual(parse_retry_after(at, now=now) or 0, 10.0, delta=1)
        past = format_datetime(datetime.fromtimestamp(now - 10, UTC), usegmt=True)
        self.assertEqual(parse_retry_after(past, now=now), 0.0)

    def test_absent_or_unreadable(self) -> None:
        for value in (None, "", "soon", "-1", "1.5"):
            self.assertIsNone(parse_retry_after(value), value)


class BackoffTest(unittest.TestCase):
    def test_bounds(self) -> None:
        policy = RetryPolicy(base_delay=0.5, max_delay=8.0)
        for retry in range(8):
            step = min(8.0, 0.5 * 2**retry)
            self.assertEqual(backoff(retry, policy, rand=lambda: 0.0), step / 2)  # never a zero wait
            self.assertEqual(backoff(retry, policy, rand=lambda: 1.0), step)
        self.assertLessEqual(backoff(30, policy), 8.0)


def event(id: str, subject: str, version: int) -> dict[str, Any]:
    return {"specversion": "1.0", "id": id, "source": "/pcx", "type": "pcx.match-proposal.created.v1", "subject": subject,
            "time": "2026-01-01T00:00:00Z", "dataschema": "x", "organizationid": "org", "resourceversion": version,
            "correlationid": "c"}


class FeedTest(unittest.TestCase):
    def test_applied_rules(self) -> None:
        store = MemoryAppliedStore()
        store.record("e2", "match-proposals/p", 2)
        self.assertTrue(store.has_event("e2"))
        self.assertEqual(store.applied_version("match-proposals/p"), 2)
        store.record("e1", "match-proposals/p", 1)  # an older version never lowers what was applied
        self.assertEqual(store.applied_version("match-proposals/p"), 2)

    def test_disordered_and_repeated_pages_apply_each_subject_once_in_version_order(self) -> None:
        # The sandbox's disorder: newest first, and every page served again.
        newest_first = [event("e2", "match-proposals/p", 2), event("e1", "match-proposals/p", 1), event("e3", "match-proposals/q", 1)]
        pages: list[dict[str, Any]] = [{"items": newest_first, "nextCursor": "c1"}, {"items": newest_first, "nextCursor": "c1"},
                 {"items": [], "nextCursor": "c1"}]
        calls: list[str | None] = []

        def read(cursor: str | None, limit: int | None) -> EventPage:
            calls.append(cursor)
            return EventPage.from_dict(pages[min(len(calls) - 1, len(pages) - 1)])

        skipped: list[tuple[str, str]] = []
        feed = FeedConsumer(read, on_skip=lambda e, why: skipped.append((e.id, why)))
        applied = [e.id for e in feed]
        self.assertEqual(applied, ["e2", "e3"])  # e1 is older than e2, applied already: stale
        self.assertIn(("e1", "stale"), skipped)
        self.assertIn(("e2", "duplicate"), skipped)
        self.assertEqual(feed.cursor, "c1")
        self.assertEqual(calls, [None, "c1", "c1"])

    def test_an_event_is_applied_only_when_the_loop_asks_for_the_next(self) -> None:
        page = {"items": [event("e1", "s/1", 1)], "nextCursor": "c1"}
        store = MemoryAppliedStore()
        feed = iter(FeedConsumer(lambda c, l: EventPage.from_dict(page), applied=store))
        next(feed)
        self.assertFalse(store.has_event("e1"))  # a crash now gets it again next time


class TransportTest(unittest.TestCase):
    def client(self, answers: list[httpx.Response], seen: list[httpx.Request], sleeps: list[float],
               tokens: Any = None) -> httpx.Client:
        def handler(request: httpx.Request) -> httpx.Response:
            # A copy: the transport sends one request object again, its headers set anew each attempt.
            seen.append(httpx.Request(request.method, request.url, headers=request.headers.copy(), content=request.content))
            return answers.pop(0)

        transport = GuardedTransport(tokens or StaticToken("t"), inner=httpx.MockTransport(handler), sleep=sleeps.append)
        return httpx.Client(base_url="http://broker", transport=transport)

    def test_retries_a_503_after_retry_after_with_the_same_idempotency_key(self) -> None:
        seen: list[httpx.Request] = []
        sleeps: list[float] = []
        answers = [httpx.Response(503, headers={"retry-after": "3"}, json={"code": "SERVICE_UNAVAILABLE"}),
                   httpx.Response(201, json={"id": "x"})]
        res = self.client(answers, seen, sleeps).post("/capacity-offers", json={"a": 1})
        self.assertEqual(res.status_code, 201)
        self.assertEqual(sleeps, [3.0])
        keys = {r.headers["idempotency-key"] for r in seen}
        self.assertEqual(len(keys), 1)
        self.assertEqual([r.content for r in seen], [b'{"a":1}'] * 2)
        self.assertEqual(seen[0].headers["authorization"], "Bearer t")

    def test_keeps_the_callers_key_and_retries_idempotency_in_progress(self) -> None:
        seen: list[httpx.Request] = []
        sleeps: list[float] = []
        answers = [httpx.Response(409, json={"code": "IDEMPOTENCY_IN_PROGRESS"}), httpx.Response(200, json={})]
        self.client(answers, seen, sleeps).post("/x", headers={"idempotency-key": "mine"})
        self.assertEqual([r.headers["idempotency-key"] for r in seen], ["mine", "mine"])
        self.assertEqual(len(sleeps), 1)

    def test_never_retries_another_4xx_and_gets_no_key_on_a_read(self) -> None:
        seen: list[httpx.Request] = []
        sleeps: list[float] = []
        answers = [httpx.Response(409, json={"code": "STALE_RESOURCE_VERSION"})]
        res = self.client(answers, seen, sleeps).post("/x")
        self.assertEqual((res.status_code, res.json()["code"], len(seen)), (409, "STALE_RESOURCE_VERSION", 1))
        seen.clear()
        self.client([httpx.Response(200, json={})], seen, sleeps).get("/x")
        self.assertNotIn("idempotency-key", seen[0].headers)

    def test_a_401_renews_the_token_once(self) -> None:
        given: list[bool] = []

        def token(renew: bool) -> str:
            given.append(renew)
            return f"t{len(given)}"

        seen: list[httpx.Request] = []
        answers = [httpx.Response(401, json={"code": "INVALID_TOKEN"}), httpx.Response(401, json={"code": "INVALID_TOKEN"})]
        res = self.client(answers, seen, [], tokens=StaticToken(token)).get("/x")
        self.assertEqual(res.status_code, 401)
        self.assertEqual([r.headers["authorization"] for r in seen], ["Bearer t1", "Bearer t2"])
        self.assertEqual(given, [False, True])


class WebhookTest(unittest.TestCase):
    def test_the_specifications_test_vector(self) -> None:
        # The library signs it as the specification says...
        signed_at = datetime.fromtimestamp(SPEC_TIMESTAMP, UTC)
        self.assertEqual(Webhook(SPEC_SECRET).sign(SPEC_ID, signed_at, SPEC_BODY), SPEC_SIGNATURE)
        # ...and the receiver accepts its signature (then refuses the body: it is not a broker event).
        receiver = WebhookReceiver([SPEC_SECRET], now=lambda: SPEC_TIMESTAMP)
        headers = {"webhook-id": SPEC_ID, "webhook-timestamp": str(SPEC_TIMESTAMP), "webhook-signature": SPEC_SIGNATURE}
        with self.assertRaisesRegex(WebhookVerificationError, "not a broker CloudEvent"):
            receiver.verify(SPEC_BODY, headers)
        with self.assertRaisesRegex(WebhookVerificationError, "No matching signature"):
            receiver.verify(SPEC_BODY.replace("2", "3"), headers)
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            WebhookReceiver([SPEC_SECRET], now=lambda: SPEC_TIMESTAMP + 301).verify(SPEC_BODY, headers)

    def test_a_broker_delivery_with_the_library_and_the_delivery_rules(self) -> None:
        secret = "whsec_" + "c2VjcmV0LW9mLWEtcGN4LXN1YnNjcmlwdGlvbg=="
        rotated = "whsec_" + "b2xkLXNlY3JldA=="
        now = datetime.now(UTC)

        def delivery(e: dict[str, Any], key: str = secret) -> tuple[str, dict[str, str]]:
            body = json.dumps(e)
            return body, {"Webhook-Id": e["id"], "Webhook-Timestamp": str(int(now.timestamp())),
                          "Webhook-Signature": Webhook(key).sign(e["id"], now, body)}

        receiver = WebhookReceiver([secret, rotated])  # the library's own verify (default clock)
        first = receiver.receive(*delivery(event("e2", "s/1", 2)))
        self.assertEqual(first.outcome, "apply")
        receiver.mark_applied(first.event)
        self.assertEqual(receiver.receive(*delivery(event("e2", "s/1", 2))).outcome, "duplicate")
        self.assertEqual(receiver.receive(*delivery(event("e1", "s/1", 1), rotated)).outcome, "stale")
        with self.assertRaises(WebhookVerificationError):
            receiver.receive(*delivery(event("e3", "s/1", 3), "whsec_" + "b3RoZXI="))
        body, headers = delivery(event("e4", "s/1", 4))
        with self.assertRaisesRegex(WebhookVerificationError, "webhook-id"):
            receiver.receive(body, {**headers, "Webhook-Id": "e5", "Webhook-Signature": Webhook(secret).sign("e5", now, body)})


class KeysTest(unittest.TestCase):
    def test_a_client_assertion_for_the_token_endpoint(self) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key))
        jwk.update(kid="k1", alg="ES256")
        token = client_assertion(client_id="c", token_url="http://broker/oauth2/token", private_jwk=jwk)
        self.assertEqual(jwt.get_unverified_header(token)["kid"], "k1")
        claims = jwt.decode(token, key.public_key(), algorithms=["ES256"], audience="http://broker/oauth2/token")
        self.assertEqual((claims["iss"], claims["sub"]), ("c", "c"))
        self.assertLessEqual(claims["exp"] - claims["iat"], 60)
        self.assertAlmostEqual(claims["iat"], time.time(), delta=5)


if __name__ == "__main__":
    unittest.main()
