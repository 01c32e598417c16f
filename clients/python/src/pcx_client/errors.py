"""Errors of the layer (mirrors sdk/src/errors.ts).

A broker refusal is an RFC 9457 problem with a stable `code` (branch on it, never on title or
detail): PcxProblem carries the body, `status`, `code`, `detail` and `correlation_id`. Failures
without an answer (after the retries) are PcxConnectionError and PcxTimeoutError.
"""

from __future__ import annotations

import json
from typing import Any

import httpx


class PcxError(Exception):
    """Anything this client raises for a call that did not succeed."""


class PcxConnectionError(PcxError):
    """No answer: the connection failed on every attempt."""


class PcxTimeoutError(PcxConnectionError):
    """No answer within the timeout on every attempt."""


class PcxProblem(PcxError):
    """An RFC 9457 problem the broker answered with (status >= 400)."""

    def __init__(self, problem: dict[str, Any], *, method: str = "", path: str = "") -> None:
        self.problem = problem
        self.status: int = int(problem.get("status") or 0)
        self.code: str = str(problem.get("code") or "UNKNOWN")
        self.detail: str | None = problem.get("detail")
        self.correlation_id: str | None = problem.get("correlationId")
        self.current_resource_version: int | None = problem.get("currentResourceVersion")
        self.method = method
        self.path = path
        where = f"{method} {path}: " if method else ""
        super().__init__(f"{where}{self.status} {self.code}" + (f": {self.detail}" if self.detail else ""))


# The code a bare status stands for, when the answer is not a problem document (a proxy's page).
_CODE_OF_STATUS = {400: "VALIDATION_FAILED", 401: "UNAUTHENTICATED", 403: "INSUFFICIENT_SCOPE",
                   404: "RESOURCE_NOT_FOUND", 409: "STALE_RESOURCE_VERSION", 428: "PRECONDITION_REQUIRED",
                   429: "RATE_LIMITED", 503: "SERVICE_UNAVAILABLE"}


def problem_of(response: httpx.Response) -> PcxProblem:
    """The problem of a refused answer; a stand-in with the status's code when the body is not one."""
    return problem_of_answer(response.status_code, response.headers, response.content,
                             method=response.request.method, path=response.request.url.path)


def problem_of_answer(status: int, headers: httpx.Headers, content: bytes, *, method: str = "", path: str = "") -> PcxProblem:
    """The same from an answer's parts (a generated operation's Response has no request)."""
    try:
        body = json.loads(content) if content else None
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        problem: dict[str, Any] = {**body, "status": body.get("status", status)}
    else:
        text = content[:200].decode("utf-8", "replace")
        problem = {"status": status, "code": _CODE_OF_STATUS.get(status, "INTERNAL_ERROR"),
                   "title": httpx.codes.get_reason_phrase(status), "detail": text or None}
    problem.setdefault("correlationId", headers.get("x-correlation-id"))
    return PcxProblem(problem, method=method, path=path)


def is_problem(error: BaseException, code: str | None = None) -> bool:
    """True when `error` is a broker problem (with this code, when given)."""
    return isinstance(error, PcxProblem) and (code is None or error.code == code)
