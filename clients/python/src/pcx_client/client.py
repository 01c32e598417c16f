"""PcxClient: the generated operations on an authenticated, retrying transport, plus what a
connector needs on top (mirrors sdk/src/client.ts).

- `pcx.api` is the generated `AuthenticatedClient`: every generated operation
  (`pcx_client.generated.api.<tag>.<operation>.sync_detailed(client=pcx.api, ...)`) goes through
  the GuardedTransport (token, Idempotency-Key, retries). `unwrap()` turns its answer into the
  typed result or raises PcxProblem.
- `pcx.request(method, path, ...)` reaches any operation with JSON in and out.
- Commands take the resource last read: its `resourceVersion` becomes If-Match. With
  `redecide_on_stale` a 409 STALE_RESOURCE_VERSION reads the resource again and sends the command
  on its new version (only for commands whose meaning does not depend on what changed).
- `pcx.list(...)` follows `nextCursor` over every page; `pcx.events(...)` is the feed consumer.
"""

from __future__ import annotations

import json as jsonlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar

import httpx

from .errors import PcxProblem, is_problem, problem_of, problem_of_answer
from .feed import AppliedStore, CursorStore, FeedConsumer
from .generated.api.events import list_events
from .generated.client import AuthenticatedClient
from .generated.models.event import Event
from .generated.models.event_page import EventPage
from .generated.models.problem import Problem
from .generated.types import UNSET, Response
from .keys import PrivateJwk
from .retry import DEFAULT_RETRY, RetryPolicy
from .tokens import ClientCredentials, StaticToken, TokenSource
from .transport import GuardedTransport, RetryInfo

__version__ = "0.1.0"

T = TypeVar("T")
R = TypeVar("R")


class Versioned(Protocol):
    """A generated model of a resource (CommonEnvelope and the like)."""

    @property
    def id(self) -> Any: ...

    @property
    def resource_version(self) -> int: ...


Target = Mapping[str, Any] | Versioned | tuple[str, int]
"""The resource a command applies to as last read (a JSON object, a generated model) or (id, version)."""


def id_of(target: Target | str) -> str:
    if isinstance(target, str):
        return target
    if isinstance(target, tuple):
        return target[0]
    if isinstance(target, Mapping):
        return str(target["id"])
    return str(target.id)


def if_match_of(target: Target) -> str:
    """The If-Match of a resource as read: its resourceVersion as a strong ETag ('"3"')."""
    if isinstance(target, tuple):
        return f'"{target[1]}"'
    if isinstance(target, Mapping):
        return f'"{target["resourceVersion"]}"'
    return f'"{target.resource_version}"'


def unwrap(response: Response[T | Problem]) -> T:
    """The typed result of a generated operation's answer, or the PcxProblem it was refused with."""
    if int(response.status_code) >= 400 or isinstance(response.parsed, Problem):
        # The problem's `instance` names the request; the generated Response does not.
        raise problem_of_answer(int(response.status_code), httpx.Headers(response.headers), response.content)
    if response.parsed is None:
        raise PcxProblem({"status": int(response.status_code), "code": "INTERNAL_ERROR",
                          "detail": "an answer the document does not describe"})
    return response.parsed


@dataclass(frozen=True)
class Answer:
    data: Any
    response: httpx.Response


class PcxClient:
    def __init__(self, base_url: str, *, client_id: str | None = None, client_secret: str | None = None,
                 private_key: PrivateJwk | None = None, access_token: str | Callable[[bool], str] | None = None,
                 token_url: str | None = None, scope: str | None = None, retry: RetryPolicy = DEFAULT_RETRY,
                 timeout: float = 30.0, user_agent: str | None = None,
                 on_retry: Callable[[RetryInfo], None] | None = None,
                 inner_transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.tokens: TokenSource
        if access_token is not None:
            self.tokens = StaticToken(access_token)
        elif client_id and (client_secret or private_key):
            self.tokens = ClientCredentials(base_url=self.base_url, client_id=client_id, client_secret=client_secret,
                                            private_key=private_key, token_url=token_url, scope=scope)
        else:
            raise TypeError("PcxClient needs client_id and client_secret (or private_key), or access_token")
        transport = GuardedTransport(self.tokens, retry=retry, user_agent=user_agent or f"pcx-client-python/{__version__}",
                                     on_retry=on_retry, inner=inner_transport)
        self.http = httpx.Client(base_url=self.base_url, transport=transport, timeout=timeout)
        # The generated client, on the same httpx client: its own token is never used (the
        # transport sets Authorization on every attempt, renewing it as needed).
        self.api = AuthenticatedClient(base_url=self.base_url, token="set-by-the-transport").set_httpx_client(self.http)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def access_token(self) -> str:
        return self.tokens.token()

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Any = None,
                if_match: str | None = None, idempotency_key: str | None = None) -> Answer:
        """Any operation: JSON in and out; a refusal raises PcxProblem."""
        headers = {"accept": "application/json"}
        if if_match is not None:
            headers["if-match"] = if_match
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        query = {k: v for k, v in (params or {}).items() if v is not None}
        response = self.http.request(method.upper(), path, params=query, json=json, headers=headers)
        if response.status_code >= 400:
            raise problem_of(response)
        return Answer(jsonlib.loads(response.content) if response.content else None, response)

    def get(self, collection: str, id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.request("GET", f"/{collection}/{id}").data
        return data

    def list(self, collection: str, **query: Any) -> Iterator[dict[str, Any]]:
        """Every item over every page (fetched as the loop goes), by nextCursor."""
        cursor: str | None = None
        while True:
            page = self.request("GET", f"/{collection}", params={**query, "cursor": cursor}).data
            yield from page["items"]
            cursor = page.get("nextCursor")
            if not cursor or not page["items"]:
                return

    def create(self, collection: str, body: Any, *, idempotency_key: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = self.request("POST", f"/{collection}", json=body, idempotency_key=idempotency_key).data
        return data

    def command(self, collection: str, target: Target | str, action: str, body: Any = None, *,
                redecide_on_stale: bool | int = False, idempotency_key: str | None = None) -> dict[str, Any]:
        """POST /{collection}/{id}/{action} with If-Match from the target as read. With
        redecide_on_stale (True: 3 attempts, or a number), a 409 STALE_RESOURCE_VERSION reads the
        resource again and sends the command on its new version; a new decision is a new request,
        so the caller's Idempotency-Key belongs to the first attempt only."""
        id = id_of(target)
        attempts = 1 if not redecide_on_stale else (3 if redecide_on_stale is True else int(redecide_on_stale))
        if_match = None if isinstance(target, str) else if_match_of(target)
        for attempt in range(1, attempts + 1):
            try:
                data: dict[str, Any] = self.request("POST", f"/{collection}/{id}/{action}", json=body, if_match=if_match,
                                                    idempotency_key=idempotency_key if attempt == 1 else None).data
                return data
            except PcxProblem as err:
                if err.code != "STALE_RESOURCE_VERSION" or attempt >= attempts:
                    raise
                if_match = if_match_of(self.get(collection, id))
        raise AssertionError("unreachable")

    def retry_on_stale(self, read: Callable[[], R], act: Callable[[R], T], attempts: int = 3, *,
                       first: R | None = None) -> T:
        """Acts on the resource as read (`first`, else `read()`), and on 409 STALE_RESOURCE_VERSION
        reads it again and acts again, up to `attempts`: for decisions that stay right whatever
        changed (the generated operations' way to `redecide_on_stale`)."""
        for attempt in range(1, attempts + 1):
            current = first if attempt == 1 and first is not None else read()
            try:
                return act(current)
            except PcxProblem as err:
                if not is_problem(err, "STALE_RESOURCE_VERSION") or attempt >= attempts:
                    raise
        raise AssertionError("unreachable")

    def read_events(self, cursor: str | None, limit: int | None) -> EventPage:
        """One page of the feed, by the generated operation."""
        return unwrap(list_events.sync_detailed(client=self.api, cursor=cursor if cursor is not None else UNSET,
                                                limit=limit if limit is not None else UNSET))

    def events(self, *, cursor: str | None = None, cursor_store: CursorStore | None = None,
               applied: AppliedStore | None = None, follow: bool = False, poll_interval: float = 1.0,
               limit: int | None = None, stop: Any = None,
               on_skip: Callable[[Event, str], None] | None = None) -> FeedConsumer:
        """The organization's event feed: `for event in pcx.events(follow=True, ...)`; each event once,
        stale versions skipped, the cursor kept where `cursor_store` says."""
        return FeedConsumer(self.read_events, cursor=cursor, cursor_store=cursor_store, applied=applied, follow=follow,
                            poll_interval=poll_interval, limit=limit, stop=stop, on_skip=on_skip)
