"""Retry timing (mirrors sdk/src/transport.ts): backoff with jitter, and Retry-After.

Retried: a network failure, a timeout, 429, 502, 503, 504 and 409 IDEMPOTENCY_IN_PROGRESS. Never
another 4xx: it says the request was wrong, and sending it again changes nothing.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    """Retries after the first attempt."""
    base_delay: float = 0.5
    """The first backoff in seconds; doubled each retry, capped at max_delay."""
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    """A Retry-After longer than this is not waited for: the answer is returned as it is."""


DEFAULT_RETRY = RetryPolicy()


def backoff(retry: int, policy: RetryPolicy = DEFAULT_RETRY, rand: Callable[[], float] = random.random) -> float:
    """Seconds before retry number `retry` (0-based): half the exponential step plus a random part of
    the other half (the SDK's jitter: spread out, never a zero wait)."""
    step = min(policy.max_delay, policy.base_delay * 2.0**retry)
    return step / 2 + rand() * step / 2


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds: delta-seconds or an HTTP-date (RFC 9110 section 10.2.3); None when absent or unreadable."""
    text = (value or "").strip()
    if not text:
        return None
    if text.isdigit():
        return float(int(text))
    try:
        at = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if at.tzinfo is None:  # an HTTP-date is GMT
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))
