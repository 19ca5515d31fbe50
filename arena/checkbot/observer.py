"""The candidate's side of the transport, watched: ids, lateness, actions, one injected error."""

from __future__ import annotations

import json
import time

from arena.checkbot.checks import INJECT_AT_REQUEST, INJECTED_DETAIL
from arena.protocol.codec import WireError, decode_bot, decode_referee, encode
from arena.protocol.messages import Action, Error, ErrorCode, Request
from arena.referee.transport import ZmqTransport


class Observer:
    """Wraps the transport: watches the candidate's traffic and injects one `error`."""

    def __init__(self, inner: ZmqTransport, peer: bytes) -> None:
        self.inner, self.peer = inner, peer
        self.requests = 0
        self.pending: int | None = None
        self.last_answered: int | None = None
        self.sent_at = 0.0
        self.slowest_ms = 0.0
        self.requested: set[int] = set()
        self.answered: set[int] = set()
        """The ids of the requests sent to the candidate, and of those it answered in time."""
        self.late: list[int] = []
        """Ids of requests answered after their deadline (the referee dropped the answer)."""
        self.wrong_ids: list[str] = []
        self.wrong_for: set[int] = set()
        """The requests that got an action with a wrong id while they were pending."""
        self.injected_before: int | None = None
        """The id of the first request sent after the injected error."""
        self.answered_after_error: bool | None = None
        self.actions: list[str] = []
        """The candidate's accepted-id actions since the last `take_actions`, as canonical JSON."""

    def send(self, peer: bytes, frame: bytes) -> bool:
        message = decode_referee(frame) if peer == self.peer else None
        if isinstance(message, Request):
            request_id = message.id
            self.requests += 1
            if self.requests == INJECT_AT_REQUEST and self.injected_before is None:
                error = Error(code=ErrorCode.UNEXPECTED, detail=INJECTED_DETAIL,
                              id=self.last_answered)
                self.inner.send(peer, encode(error))
                self.injected_before, self.answered_after_error = request_id, False
            self.pending, self.sent_at = request_id, time.monotonic()
            self.requested.add(request_id)
        return self.inner.send(peer, frame)

    def recv(self, timeout_ms: float,
             peer: bytes | None = None) -> tuple[bytes, list[bytes]] | None:
        got = self.inner.recv(timeout_ms) if peer is None else self.inner.recv(timeout_ms, peer)
        if got is not None and got[0] == self.peer and len(got[1]) == 1:
            self._watch(got[1][0])
        return got

    def drain(self, peer: bytes) -> int:
        """Drop what the bot sent while not asked, as the referee does, but watch each
        message: a late answer that lands between two requests is still seen as late."""
        dropped = 0
        while self.recv(0, peer) is not None:
            dropped += 1
        return dropped

    def _watch(self, frame: bytes) -> None:
        try:
            message = decode_bot(frame)
        except WireError:
            return  # the referee records it as a fault
        if not isinstance(message, Action):
            return
        if message.id != self.pending:
            self._misdirected(message.id)
            return
        self.slowest_ms = max(self.slowest_ms, (time.monotonic() - self.sent_at) * 1000)
        if message.id == self.injected_before:
            self.answered_after_error = True
        self.last_answered, self.pending = message.id, None
        self.answered.add(message.id)
        self.actions.append(json.dumps(message.action, sort_keys=True))

    def _misdirected(self, got: int) -> None:
        """An action whose id is not the pending request's: late, or a wrong id."""
        if got in self.requested and got not in self.answered:
            # the answer to a request that timed out: one cause, reported as a timeout
            self.late.append(got)
            if got == self.injected_before:
                self.answered_after_error = True  # late, but it carried on after the error
            return
        if self.pending is not None:
            self.wrong_for.add(self.pending)
            if self.pending == self.injected_before:
                self.answered_after_error = True  # it did answer after the error
        again = " (already answered)" if got in self.answered else ""
        waiting = "no request" if self.pending is None else f"request {self.pending}"
        self.wrong_ids.append(f"action id {got}{again} while {waiting} was pending")

    def stranger(self, peer: bytes) -> bytes | None:
        """The transport's (another connection that the last drain dropped)."""
        return self.inner.stranger(peer)

    def refused(self, peer: bytes) -> int:
        """The transport's (connections over the bot's number, refused)."""
        return self.inner.refused(peer)

    def take_actions(self) -> list[str]:
        """Return the actions seen since the last call, and forget them."""
        taken, self.actions = self.actions, []
        return taken

    def close(self) -> None:
        self.inner.close()

