"""run_game against scripted bots on a fake clock: the referee's logic without processes."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.core.game import Termination
from arena.core.record import FaultKind, ForfeitReason, GameRecord
from arena.core.registry import Registry
from arena.protocol import Action, Error, GameOver, GameStart, Request, encode
from arena.protocol.messages import RefereeMessage
from arena.referee.match import FLOOD_LIMIT, run_game
from arena.referee.players import SeatPlayer
from arena.referee.replay import ReplayWriter, read_replay
from arena.referee.review import check_replay, seat_view
from arena.referee.spec import FaultPolicy, TimeControl
from arena.referee.transport import ScriptedReply, ScriptedTransport
from tests.referee.toygame import GAME

Reply = Callable[[Request], list[ScriptedReply]]
FAST = TimeControl(move_ms=100, bank_ms=0)
THREE = FaultPolicy(max_faults=3)


def play_first(delay: float = 1.0) -> Reply:
    def reply(request: Request) -> list[ScriptedReply]:
        hand = request.observation["hand"]
        return [(delay, encode(Action(id=request.id, action={"card": hand[-1]})))]
    return reply


def script(on_request: Reply) -> Callable[[RefereeMessage], list[ScriptedReply]]:
    def run(message: RefereeMessage) -> list[ScriptedReply]:
        return on_request(message) if isinstance(message, Request) else []
    return run


def once_then(first: Reply, then: Reply, times: int = 1) -> Reply:
    calls = [0]

    def reply(request: Request) -> list[ScriptedReply]:
        calls[0] += 1
        return first(request) if calls[0] <= times else then(request)
    return reply


def raw(frame: bytes) -> Reply:
    return lambda request: [(1.0, frame)]


def play(scripts: list[Reply], *, rules: dict[str, object] | None = None, seed: int = 7,
         time: TimeControl = FAST, faults: FaultPolicy = THREE, replay: Path | None = None,
         ) -> tuple[GameRecord, ScriptedTransport]:
    transport = ScriptedTransport()
    players = []
    for seat, on_request in enumerate(scripts):
        peer = f"bot{seat}".encode()
        transport.add(peer, script(on_request))
        players.append(SeatPlayer.remote(f"bot{seat}", peer, "1.0"))
    writer = ReplayWriter(replay) if replay else None
    record = run_game(GAME, rules or {}, seed, players, transport, time, faults,
                      replay=writer, clock=transport.clock)
    if writer:
        writer.close()
    return record, transport


def sent(transport: ScriptedTransport, peer: bytes, kind: type) -> list:  # type: ignore[type-arg]
    return [m for p, m in transport.sent if p == peer and isinstance(m, kind)]


def test_honest_bots_complete_a_game_with_start_and_over() -> None:
    record, transport = play([play_first(), play_first(), play_first()])
    assert record.termination is Termination.COMPLETED
    assert record.faults == ()
    assert sorted(s.placing for s in record.seats)[0] == 1
    assert record.decisions == record.details["turns"]
    for seat in range(3):
        peer = f"bot{seat}".encode()
        starts = sent(transport, peer, GameStart)
        overs = sent(transport, peer, GameOver)
        assert [s.seat for s in starts] == [seat] and len(overs) == 1
        assert overs[0].placings == [s.placing for s in record.seats]
        assert record.seats[seat].time_ms == pytest.approx(
            len(sent(transport, peer, Request)) * 1.0)


def test_a_bot_is_charged_until_its_action_arrives_not_for_the_referees_checks() -> None:
    transport = ScriptedTransport()
    players = []
    for seat in range(2):
        peer = f"bot{seat}".encode()
        transport.add(peer, script(play_first(delay=2.0)))

        def slow_check() -> bool:  # the referee's work after the frame arrived: 50 ms
            transport.now += 0.05
            return True
        players.append(SeatPlayer.remote(f"bot{seat}", peer, alive=slow_check))
    record = run_game(GAME, {}, 3, players, transport, FAST, THREE, clock=transport.clock)
    assert record.faults == ()
    for seat in range(2):
        asked = len(sent(transport, f"bot{seat}".encode(), Request))
        assert record.seats[seat].time_ms == pytest.approx(asked * 2.0)


def test_each_seat_sees_only_its_own_draws_and_every_play() -> None:
    _, transport = play([play_first(), play_first()])
    for seat in range(2):
        peer = f"bot{seat}".encode()
        events = [e for r in sent(transport, peer, Request) for e in r.events]
        events += sent(transport, peer, GameOver)[0].events
        assert {e["seat"] for e in events if e["type"] == "drew"} == {seat}
        assert {e["seat"] for e in events if e["type"] == "played"} == {0, 1}


def test_observations_sent_equal_the_engine_observation_at_that_moment(tmp_path: Path) -> None:
    record, transport = play([play_first()] * 3, replay=tmp_path / "r.jsonl")
    replay = read_replay(tmp_path / "r.jsonl")
    requests = {m.id: (p, m) for p, m in transport.sent if isinstance(m, Request)}
    checked = 0
    for view_seat in range(3):
        for view in seat_view(replay, GAME, view_seat):
            if "observation" in view:
                step = replay.steps[int(view["n"]) - 1]
                peer, request = requests[step["request"]]
                assert peer == f"bot{view_seat}".encode()
                assert request.observation == view["observation"]
                checked += 1
    assert checked == record.decisions


def test_the_bank_absorbs_slow_moves_then_runs_out() -> None:
    record, transport = play([play_first(delay=140), play_first()],
                             time=TimeControl(move_ms=100, bank_ms=100))
    banks = [r.bank_ms for r in sent(transport, b"bot0", Request)]
    assert banks[:3] == [100, 60, 20]
    timeouts = [f for f in record.faults if f.kind is FaultKind.TIMEOUT]
    assert timeouts and all(f.seat == 0 for f in timeouts)
    assert record.seats[0].timeouts == len(timeouts)
    assert record.seats[1].faults == 0


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (raw(b"\x00garbage"), FaultKind.NOT_JSON),
        (raw(b'{"type": "action", "id": "x"}'), FaultKind.BAD_MESSAGE),
        (raw(b'{"type": "hello", "token": "t", "name": "n", "protocol": 1}'),
         FaultKind.BAD_MESSAGE),
        (raw(b'{"type": "action", "id": 1, "action": "' + b"x" * (1 << 20) + b'"}'),
         FaultKind.OVERSIZE),
        (lambda r: [(1.0, encode(Action(id=r.id, action={"card": 99})))],
         FaultKind.ILLEGAL_ACTION),
        (lambda r: [(1.0, encode(Action(id=r.id, action="nine")))], FaultKind.MALFORMED_ACTION),
        (lambda r: [], FaultKind.TIMEOUT),
    ],
    ids=["not-json", "bad-shape", "hello-instead", "oversize", "illegal", "malformed",
         "timeout"],
)
def test_one_bad_reply_is_one_fault_and_the_default_is_played(
        reply: Reply, kind: FaultKind, tmp_path: Path) -> None:
    record, transport = play([once_then(reply, play_first()), play_first()],
                             replay=tmp_path / "r.jsonl")
    assert [(f.seat, f.kind, f.decision) for f in record.faults] == [(0, kind, 1)]
    errors = sent(transport, b"bot0", Error)
    assert [(e.code.value, e.id) for e in errors] == [(kind.value, 1)]
    first = read_replay(tmp_path / "r.jsonl").steps[0]
    hand = sent(transport, b"bot0", Request)[0].observation["hand"]
    assert first["source"] == "default" and first["action"] == {"card": min(hand)}
    assert first["fault"]["kind"] == kind.value
    assert record.termination is Termination.COMPLETED


def test_multipart_frames_are_a_bad_message() -> None:
    transport = ScriptedTransport()
    transport.add(b"a", script(lambda r: []))
    transport.add(b"b", script(play_first()))
    transport.inject(b"a", [b"{}", b"{}"], delay_ms=5)
    record = run_game(GAME, {}, 3, [SeatPlayer.remote("a", b"a"), SeatPlayer.remote("b", b"b")],
                      transport, TimeControl(move_ms=50), FaultPolicy(max_faults=99),
                      clock=transport.clock)
    assert record.faults[0].kind is FaultKind.BAD_MESSAGE
    assert "2 frames" in record.faults[0].detail


def test_stale_and_duplicate_replies_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    def stale_then_right(request: Request) -> list[ScriptedReply]:
        stale = encode(Action(id=request.id + 1000, action={"card": 1}))
        right = encode(Action(id=request.id, action={"card": request.observation["hand"][0]}))
        return [(1.0, stale), (2.0, right), (3.0, right)]  # and a duplicate

    caplog.set_level(logging.WARNING, "arena.referee")
    record, transport = play([stale_then_right, play_first()])
    assert record.faults == ()
    codes = {e.code.value for e in sent(transport, b"bot0", Error)}
    assert codes == {"stale_id"}
    assert "dropped a reply to request" in caplog.text


def test_max_faults_forfeits_and_the_autopilot_finishes(tmp_path: Path) -> None:
    def illegal(request: Request) -> list[ScriptedReply]:
        return [(1.0, encode(Action(id=request.id, action={"card": 42})))]

    record, transport = play([illegal, play_first(), play_first()], rules={"target": 30},
                             replay=tmp_path / "r.jsonl", faults=FaultPolicy(max_faults=2))
    assert record.termination is Termination.FORFEIT
    assert record.seats[0].forfeit is ForfeitReason.MAX_FAULTS
    assert record.seats[0].placing == 3
    assert len(sent(transport, b"bot0", Request)) == 2
    assert sent(transport, b"bot0", Error)[-1].code.value == "forfeit"
    assert len(sent(transport, b"bot0", GameOver)) == 1
    replay = read_replay(tmp_path / "r.jsonl")
    sources = [s["source"] for s in replay.steps if s["seat"] == 0]
    assert sources[:2] == ["default", "default"] and set(sources[2:]) == {"autopilot"}
    assert replay.forfeits == [{"type": "forfeit", "seat": 0, "reason": "max_faults",
                                "decision": 4}]
    assert check_replay(replay, _registry()) == []


def test_a_dead_bot_forfeits_as_crashed() -> None:
    transport = ScriptedTransport()
    alive = [True]

    def dies(request: Request) -> list[ScriptedReply]:
        alive[0] = False
        return []

    transport.add(b"a", script(dies))
    transport.add(b"b", script(play_first()))
    players = [SeatPlayer.remote("a", b"a", alive=lambda: alive[0]), SeatPlayer.remote("b", b"b")]
    record = run_game(GAME, {}, 1, players, transport, TimeControl(move_ms=10_000),
                      clock=transport.clock)
    assert record.seats[0].forfeit is ForfeitReason.CRASHED
    assert record.faults == ()
    assert transport.now < 1.0  # noticed within a poll slice, not at the deadline
    assert record.seats[0].placing == 2
    assert not sent(transport, b"a", GameOver)


def test_waiting_for_a_seat_never_reads_another_peers_messages() -> None:
    transport = ScriptedTransport()
    transport.add(b"a", script(play_first(delay=5)))
    transport.add(b"b", script(play_first()))
    transport.inject(b"intruder", [encode(Action(id=1, action={"card": 3}))], delay_ms=1)
    record = run_game(GAME, {}, 1, [SeatPlayer.remote("a", b"a"), SeatPlayer.remote("b", b"b")],
                      transport, clock=transport.clock)
    assert record.faults == ()
    assert transport.drain(b"intruder") == 1  # still queued: nobody's wait read it


def test_a_flood_of_unsolicited_messages_is_the_senders_fault_not_its_neighbours() -> None:
    transport = ScriptedTransport()
    transport.add(b"a", script(play_first()))
    transport.add(b"b", script(play_first(delay=5)))
    flood = encode(Action(id=999, action={"card": 0}))
    for _ in range(FLOOD_LIMIT + 20):  # queued on the flooder's channel before anything else
        transport.inject(b"b", [flood])
    record = run_game(GAME, {}, 1, [SeatPlayer.remote("a", b"a"), SeatPlayer.remote("b", b"b")],
                      transport, clock=transport.clock)
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.FLOOD)]
    assert "sent while not asked" in record.faults[0].detail
    assert record.seats[0].faults == 0 and record.seats[0].timeouts == 0
    assert record.seats[0].time_ms < record.seats[1].time_ms  # a's clock paid for nothing


def test_engine_bug_is_an_engine_error_not_a_fault(caplog: pytest.LogCaptureFixture) -> None:
    record, transport = play([play_first(), play_first()], rules={"crash_at": 3})
    assert record.termination is Termination.ENGINE_ERROR
    assert record.faults == () and all(s.forfeit is None for s in record.seats)
    assert "toy engine bug" in str(record.details["error"])
    assert sent(transport, b"bot0", GameOver)[0].termination == "engine_error"
    assert "Traceback" in caplog.text or any(r.exc_info for r in caplog.records)


def test_builtin_and_absent_seats() -> None:
    transport = ScriptedTransport()
    transport.add(b"a", script(play_first()))
    players = [SeatPlayer.remote("a", b"a"), SeatPlayer("r", builtin="random"),
               SeatPlayer("gone", absent=ForfeitReason.NO_CONNECT)]
    record = run_game(GAME, {}, 2, players, transport, clock=transport.clock)
    assert record.seats[2].forfeit is ForfeitReason.NO_CONNECT
    assert record.seats[2].placing == 3
    assert record.termination is Termination.FORFEIT
    assert [s.bot for s in record.seats] == ["a", "r", "gone"]


def test_free_form_decisions_send_null_options() -> None:
    _, transport = play([play_first(), play_first()], rules={"free": True})
    assert all(r.options is None for r in sent(transport, b"bot0", Request))
    _, transport = play([play_first(), play_first()])
    assert all(r.options for r in sent(transport, b"bot0", Request))


def _registry() -> Registry:
    registry = Registry()
    registry.register(GAME)
    return registry


def test_replay_checks_out_and_tampering_is_found(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record, _ = play([play_first()] * 3, replay=path)
    replay = read_replay(path)
    assert replay.header["seed"] == 7 and replay.record == GameRecord.from_json(
        json.loads(json.dumps(record.to_json())))
    assert check_replay(replay, _registry()) == []
    lines = path.read_text().splitlines()
    step = json.loads(lines[2])
    step["events"][0]["event"]["card"] = 0
    lines[2] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    assert check_replay(read_replay(path), _registry()) == [f"decision {step['n']}: events differ"]


def test_when_every_seat_forfeits_the_earliest_forfeit_places_last(tmp_path: Path) -> None:
    def illegal(request: Request) -> list[ScriptedReply]:
        return [(1.0, encode(Action(id=request.id, action={"card": 42})))]

    transport = ScriptedTransport()
    transport.add(b"a", script(illegal))
    transport.add(b"b", script(illegal))
    players = [SeatPlayer("never-started", absent=ForfeitReason.NO_CONNECT),
               SeatPlayer.remote("a", b"a"), SeatPlayer.remote("b", b"b")]
    writer = ReplayWriter(tmp_path / "r.jsonl")
    record = run_game(GAME, {"target": 30}, 7, players, transport, FAST,
                      FaultPolicy(max_faults=1), replay=writer, clock=transport.clock)
    writer.close()
    # the never-started seat's autopilot moved first and scored best: it must not count
    assert record.seats[0].score > max(s.score for s in record.seats[1:])
    assert [s.forfeit is not None for s in record.seats] == [True, True, True]
    assert [s.placing for s in record.seats] == [3, 2, 1]  # forfeited at 0, 2 and 3
    replay = read_replay(tmp_path / "r.jsonl")
    assert [f["decision"] for f in replay.forfeits] == [0, 2, 3]
    assert check_replay(replay, _registry()) == []


def test_a_limit_hit_after_the_last_sample_still_forfeits_that_game() -> None:
    """The monitor samples the kernel's counters; a bot that hits a limit after the last
    sample of a game is found by the reading made at the game's end, and forfeits it."""
    transport = ScriptedTransport()
    players = []
    for seat in range(3):
        peer = f"bot{seat}".encode()
        transport.add(peer, script(play_first()))
        late = (lambda: "processes: tried to run more than 32") if seat == 1 else (lambda: None)
        players.append(SeatPlayer.remote(f"bot{seat}", peer, "1.0", recheck=late))
    record = run_game(GAME, {}, 7, players, transport, FAST, THREE, clock=transport.clock)
    assert [s.forfeit for s in record.seats] == [None, ForfeitReason.LIMIT, None]
    [fault] = record.faults
    assert fault.seat == 1 and fault.kind is FaultKind.LIMIT
    assert fault.detail.startswith("processes:")
    assert record.seats[1].placing == 3  # placed last
    assert sent(transport, b"bot1", Error)  # told why, before its game_over


def test_a_replay_keeps_names_outside_ascii_one_line_per_record(tmp_path: Path) -> None:
    # written as UTF-8, not escaped: a line separator of Unicode (U+2028) inside a name must
    # neither split a line nor come back changed
    names = ["Zoë", "王\u2028bot", "bot2"]
    transport = ScriptedTransport()
    players = []
    for seat, name in enumerate(names):
        peer = f"bot{seat}".encode()
        transport.add(peer, script(play_first()))
        players.append(SeatPlayer.remote(name, peer, "ü1"))
    writer = ReplayWriter(tmp_path / "r.jsonl")
    run_game(GAME, {}, 7, players, transport, FAST, THREE, replay=writer,
             clock=transport.clock)
    writer.close()
    data = (tmp_path / "r.jsonl").read_bytes()
    assert "王\u2028bot".encode() in data  # as UTF-8 text
    lines = data.split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])
    replay = read_replay(tmp_path / "r.jsonl")
    assert [b["name"] for b in replay.header["bots"]] == names
    assert {b["version"] for b in replay.header["bots"]} == {"ü1"}
    assert len(replay.steps) + 2 == len(lines) - 1  # header, decisions, outcome
    assert check_replay(replay, _registry()) == []


class _StrangerOnA(ScriptedTransport):
    """Its drain of seat a's channel dropped another connection's messages."""

    def stranger(self, peer: bytes) -> bytes | None:
        return b"a-side" if peer == b"a" else None


@pytest.mark.parametrize("private", [True, False], ids=["sandboxed-ipc", "tcp"])
def test_another_connection_seen_by_a_drain_is_over_the_limit_where_only_the_bot_reaches(
        private: bool) -> None:
    # frames sent between its turns were dropped unseen; where only the bot can reach its
    # endpoint (ipc in its sandbox) it is its own doing, over tcp anyone's
    transport = _StrangerOnA()
    transport.add(b"a", script(play_first()))
    transport.add(b"b", script(play_first()))
    exceeded: list[str] = []
    players = [SeatPlayer.remote("a", b"a", private=private, exceed=exceeded.append),
               SeatPlayer.remote("b", b"b")]
    record = run_game(GAME, {}, 7, players, transport, FAST, THREE, clock=transport.clock)
    alarms = record.details.get("alarms", [])
    if private:
        assert exceeded and exceeded[0].startswith("connections: ")
        assert [(a["bot"], a["kind"]) for a in alarms] == [("a", "intruder")]
    else:
        assert not exceeded and not alarms


def test_what_an_earlier_process_left_queued_is_stale_not_another_connection() -> None:
    # a restarted bot's first request found its last process's late answer: not its own
    # second connection, and no limit
    transport = _StrangerOnA()
    transport.add(b"a", script(play_first()))
    transport.add(b"b", script(play_first()))
    exceeded: list[str] = []
    players = [SeatPlayer.remote("a", b"a", exceed=exceeded.append,
                                 former=frozenset({b"a-side"})),
               SeatPlayer.remote("b", b"b")]
    record = run_game(GAME, {}, 7, players, transport, FAST, THREE, clock=transport.clock)
    assert not exceeded and "alarms" not in record.details



def test_a_faults_detail_is_cut_however_much_the_bot_sent() -> None:
    # a 1 MiB action quoted whole made each fault 3 MiB: printed twice, stored thrice
    huge = encode(Action(id=1, action={"card": "é" * 200_000}))
    record, _ = play([once_then(raw(huge), play_first()), play_first()])
    [fault] = [f for f in record.faults if f.seat == 0][:1]
    assert len(fault.detail) < 1100 and fault.detail.endswith(" characters)"), fault.detail
