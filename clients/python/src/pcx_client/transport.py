"""The HTTP layer under every call, as an httpx transport (mirrors sdk/src/transport.ts).

The generated operations call httpx; this transport sits under them, so every generated call gets:
- the token (Authorization: Bearer), renewed once when the broker answers 401;
- an Idempotency-Key on every unsafe request that has none, made once per call and kept on every
  retry of that call, so a command the broker completed before the connection broke is answered
  from its record (Idempotent-Replayed) instead of being done twice;
- retries of a network failure, a timeout, 429, 502, 503, 504 and 409 IDEMPOTENCY_IN_PROGRESS, with
  exponential backoff and jitter, a Retry-After honoured (up to a cap); any other answer is final.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from .errors import PcxConnectionError, PcxTimeoutError
from .retry import DEFAULT_RETRY, RETRY_STATUSES, RetryPolicy, backoff, parse_retry_after
from .tokens import TokenSource

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class RetryInfo:
    """What a retry was for (given to on_retry)."""

    method: str
    path: str
    attempt: int
    delay: float
    reason: str
    idempotency_key: str | None


class GuardedTransport(httpx.BaseTransport):
    def __init__(self, tokens: TokenSource, *, retry: RetryPolicy = DEFAULT_RETRY, user_agent: str = "pcx-client-python",
                 inner: httpx.BaseTransport | None = None, on_retry: Callable[[RetryInfo], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._tokens = tokens
        self._retry = retry
        self._user_agent = user_agent
        self._inner = inner or httpx.HTTPTransport()
        self._on_retry = on_retry
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        method = request.method.upper()
        request.headers["user-agent"] = self._user_agent
        if method not in SAFE_METHODS and "idempotency-key" not in request.headers:
            request.headers["idempotency-key"] = str(uuid.uuid4())
        key = request.headers.get("idempotency-key")
        request.read()  # the body, read once, is sent again on every retry
        renewed = False
        attempt = 0
        while True:
            request.headers["authorization"] = f"Bearer {self._tokens.token()}"
            retry_after: float | None = None
            try:
                response = self._inner.handle_request(request)
            except httpx.TransportError as err:
                if attempt >= self._retry.max_retries:
                    kind = PcxTimeoutError if isinstance(err, httpx.TimeoutException) else PcxConnectionError
                    raise kind(f"{method} {request.url.path}: {err!r} ({attempt + 1} attempts)") from err
                reason = "timeout" if isinstance(err, httpx.TimeoutException) else type(err).__name__
            else:
                if response.status_code == 401 and not renewed and self._tokens.invalidate():
                    renewed = True  # a token the broker no longer takes: one new one, not a retry
                    response.close()
                    continue
                in_progress = False
                if response.status_code == 409:
                    response = _buffered(response, request)
                    in_progress = _code_of(response) == "IDEMPOTENCY_IN_PROGRESS"
                if response.status_code not in RETRY_STATUSES and not in_progress:
                    return response
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                if attempt >= self._retry.max_retries or (retry_after is not None and retry_after > self._retry.max_retry_after):
                    return _buffered(response, request)
                response.close()
                reason = "409 IDEMPOTENCY_IN_PROGRESS" if in_progress else str(response.status_code)
            delay = retry_after if retry_after is not None else backoff(attempt, self._retry)
            attempt += 1
            if self._on_retry:
                self._on_retry(RetryInfo(method, request.url.path, attempt, delay, reason, key))
            self._sleep(delay)

    def close(self) -> None:
        self._inner.close()


def _buffered(response: httpx.Response, request: httpx.Request) -> httpx.Response:
    """The answer with its body read (the stream closed), so it can be inspected and still returned."""
    response.read()
    response.close()
    # The content is decoded now: the headers that described its encoding no longer apply.
    headers = [(k, v) for k, v in response.headers.multi_items()
               if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
    return httpx.Response(response.status_code, headers=headers, content=response.content,
                          request=request, extensions=response.extensions)


def _code_of(response: httpx.Response) -> str | None:
    try:
        code = json.loads(response.content).get("code")
    except (ValueError, AttributeError):
        return None
    return code if isinstance(code, str) else None
