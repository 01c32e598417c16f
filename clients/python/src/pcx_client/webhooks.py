"""Receiving the broker's webhooks (docs/webhooks.md; mirrors sdk/src/webhooks.ts).

A delivery is one CloudEvent signed by the Standard Webhooks specification (`webhook-id`,
`webhook-timestamp`, `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
several while a secret rotates). Verification is the `standardwebhooks` library's: its
`Webhook.verify` (signature, and timestamp within its 5 minutes) when the default tolerance and
clock are used; with another clock or tolerance (tests, a receiver behind a slow queue) the window
is checked here and the signature still computed by the library's `Webhook.sign` and compared in
constant time, as its verify does. No HMAC is written here.

Then the delivery rules: a known event id is a `duplicate`, a resourceversion not above the one
applied for its subject is `stale`, anything else is to `apply` (then call mark_applied).
"""

from __future__ import annotations

import hmac
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError

from .feed import AppliedStore, MemoryAppliedStore

__all__ = ["Received", "WebhookReceiver", "WebhookVerificationError"]


@dataclass(frozen=True)
class Received:
    outcome: str  # 'apply' | 'duplicate' | 'stale'
    event: dict[str, Any]


class WebhookReceiver:
    def __init__(self, secrets: list[str], *, store: AppliedStore | None = None, tolerance_seconds: int = 300,
                 now: Callable[[], float] | None = None) -> None:
        if not secrets:
            raise ValueError("at least one secret is required")
        self._webhooks = [Webhook(secret) for secret in secrets]  # decodes whsec_…, refuses an empty one
        self.store: AppliedStore = store if store is not None else MemoryAppliedStore()
        self._tolerance = tolerance_seconds
        self._now = now

    def verify(self, raw_body: bytes | str, headers: Mapping[str, str]) -> dict[str, Any]:
        """The verified event; WebhookVerificationError when the delivery is not authentic or usable."""
        lower = {k.lower(): v for k, v in headers.items()}
        event: Any = None
        if self._now is None and self._tolerance == 300:
            errors: list[WebhookVerificationError] = []
            for webhook in self._webhooks:
                try:
                    event = webhook.verify(raw_body, lower)
                    break
                except WebhookVerificationError as err:
                    errors.append(err)
            else:
                raise errors[-1]
        else:
            event = self._verify_with_clock(raw_body, lower)
        if not isinstance(event, dict) or not all(isinstance(event.get(k), str) for k in ("id", "type", "subject")) \
                or not isinstance(event.get("resourceversion"), int):
            raise WebhookVerificationError("The body is not a broker CloudEvent")
        if event["id"] != lower.get("webhook-id"):
            raise WebhookVerificationError("The webhook-id header does not equal the event id")
        return event

    def _verify_with_clock(self, raw_body: bytes | str, headers: dict[str, str]) -> Any:
        msg_id, stamp, signatures = (headers.get(n) for n in ("webhook-id", "webhook-timestamp", "webhook-signature"))
        if not (msg_id and stamp and signatures):
            raise WebhookVerificationError("Missing required headers")
        if not stamp.isdigit() or len(stamp) > 15:
            raise WebhookVerificationError("Invalid webhook-timestamp header")
        now = int((self._now or time.time)())
        if now - int(stamp) > self._tolerance:
            raise WebhookVerificationError("Message timestamp too old")
        if int(stamp) - now > self._tolerance:
            raise WebhookVerificationError("Message timestamp too new")
        signed_at = datetime.fromtimestamp(int(stamp), UTC)
        offered = [s for s in signatures.split(" ") if s.startswith("v1,")]
        for webhook in self._webhooks:
            expected = webhook.sign(msg_id, signed_at, raw_body).encode()
            if any(hmac.compare_digest(expected, s.encode()) for s in offered):
                return json.loads(raw_body)
        raise WebhookVerificationError("No matching signature found")

    def receive(self, raw_body: bytes | str, headers: Mapping[str, str]) -> Received:
        """Verifies one delivery and classifies it; records nothing (call mark_applied after applying)."""
        event = self.verify(raw_body, headers)
        if self.store.has_event(event["id"]):
            return Received("duplicate", event)
        version = self.store.applied_version(event["subject"])
        if version is not None and event["resourceversion"] <= version:
            return Received("stale", event)
        return Received("apply", event)

    def mark_applied(self, event: Mapping[str, Any]) -> None:
        self.store.record(event["id"], event["subject"], event["resourceversion"])
