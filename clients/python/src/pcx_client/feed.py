"""The event feed consumer (GET /events), mirrors sdk/src/feed.ts.

Events come at least once and in order per resource, so the consumer skips an event id it applied
before and an event whose resourceversion is not above the one applied for its subject (a stale
event: an older version delivered after a newer one). Iterating yields each event to apply; the
event counts as applied, and the cursor moves past its page, only when the loop asks for the next
one, so a crash or an exception in the loop body gets the event again next time (make applying
idempotent, or keep the applied store durable).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Protocol

from .generated.models.event import Event
from .generated.models.event_page import EventPage

ReadPage = Callable[[str | None, int | None], EventPage]
"""Reads one page after a cursor (None: the feed's beginning), with a limit (None: the broker's)."""


class AppliedStore(Protocol):
    """What a consumer has applied: event ids, and per subject the highest version applied."""

    def has_event(self, event_id: str) -> bool: ...

    def applied_version(self, subject: str) -> int | None: ...

    def record(self, event_id: str, subject: str, resourceversion: int) -> None: ...


class CursorStore(Protocol):
    """Where the consumer keeps its place: the cursor after the last finished page."""

    def load(self) -> str | None: ...

    def save(self, cursor: str) -> None: ...


class MemoryAppliedStore:
    """An AppliedStore in memory (one process, tests): the last `max_event_ids` ids, every subject's version."""

    def __init__(self, max_event_ids: int = 10_000) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._versions: dict[str, int] = {}
        self._max = max_event_ids

    def has_event(self, event_id: str) -> bool:
        return event_id in self._ids

    def applied_version(self, subject: str) -> int | None:
        return self._versions.get(subject)

    def record(self, event_id: str, subject: str, resourceversion: int) -> None:
        self._ids.pop(event_id, None)
        self._ids[event_id] = None
        while len(self._ids) > self._max:
            self._ids.popitem(last=False)
        if resourceversion > self._versions.get(subject, 0) or subject not in self._versions:
            self._versions[subject] = resourceversion


def classify(event: Event, applied: AppliedStore) -> str:
    """'duplicate' (its id was applied), 'stale' (its subject is at its version or above) or 'apply'."""
    if applied.has_event(event.id):
        return "duplicate"
    version = applied.applied_version(event.subject)
    if version is not None and event.resourceversion <= version:
        return "stale"
    return "apply"


class FeedConsumer:
    def __init__(self, read_page: ReadPage, *, cursor: str | None = None, cursor_store: CursorStore | None = None,
                 applied: AppliedStore | None = None, follow: bool = False, poll_interval: float = 1.0,
                 limit: int | None = None, stop: threading.Event | None = None,
                 on_skip: Callable[[Event, str], None] | None = None) -> None:
        self._read = read_page
        self.cursor = cursor
        self._store = cursor_store
        self.applied: AppliedStore = applied if applied is not None else MemoryAppliedStore()
        self._follow = follow
        self._poll = poll_interval
        self._limit = limit
        self._stop = stop or threading.Event()
        self._on_skip = on_skip

    def skip_to_end(self) -> str:
        """Moves the cursor to the feed's end without yielding what is before it, and saves it. A
        consumer that acts on what happens after it starts calls this before it acts (before it
        publishes), so that no answer to its own action can fall before its cursor."""
        while True:
            page = self._read(self.cursor, 200)
            moved = page.next_cursor != self.cursor
            self.cursor = page.next_cursor
            if not page.items or not moved:
                break
        assert self.cursor is not None
        if self._store:
            self._store.save(self.cursor)
        return self.cursor

    def __iter__(self) -> Iterator[Event]:
        if self.cursor is None and self._store:
            self.cursor = self._store.load()
        while not self._stop.is_set():
            page = self._read(self.cursor, self._limit)
            for event in page.items:
                verdict = classify(event, self.applied)
                if verdict != "apply":
                    if self._on_skip:
                        self._on_skip(event, verdict)
                    continue
                yield event
                # The loop asked for the next one: this one is applied.
                self.applied.record(event.id, event.subject, event.resourceversion)
            moved = page.next_cursor != self.cursor
            self.cursor = page.next_cursor
            if moved and self._store:
                self._store.save(page.next_cursor)
            if not page.items:
                if not self._follow:
                    return
                self._stop.wait(self._poll)
