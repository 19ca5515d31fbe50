"""The hostile-bot zoo: each attack of docs/security.md tried by a real bot in bubblewrap.

Each must hold: the attacked seats keep their seats and hands, the game ends with the right
result, the attack is recorded against the attacker where it is visible, and no process of
the run is left.
"""

from __future__ import annotations

import json
import logging
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from arena.core.game import Termination
from arena.core.record import FaultKind, ForfeitReason
from arena.games.machiavelli import actions as machiavelli_actions
from arena.protocol.codec import PEEK_BYTES, decode_bot
from arena.protocol.messages import MAX_MESSAGE_BYTES
from arena.referee import match, sandbox
from arena.referee.limits import Limits
from arena.referee.match import FLOOD_LIMIT
from arena.referee.referee import HELLO_JUNK, HELLO_JUNK_LOGGED
from arena.referee.roster import ALARM_DETAIL_CHARS, ALARMS_KEPT
from arena.referee.sandbox import SandboxMode
from arena.referee.spec import LOOPBACK_TCP
from tests.conditions import wait_until
from tests.polyglot.starters import missing
from tests.security.zoo import (
    HOSTILE,
    assert_neighbours_unharmed,
    found,
    need_bwrap,
    play_attack,
    survivors,
)


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    need_bwrap()


@pytest.mark.parametrize("endpoint", [None, LOOPBACK_TCP], ids=["ipc", "tcp"])
def test_token_theft_finds_nothing_and_a_guessed_token_is_an_alarm(
        tmp_path: Path, endpoint: str | None) -> None:
    outcome = play_attack("thief", tmp_path, endpoint=endpoint)
    assert found(outcome, "0 foreign tokens")
    assert_neighbours_unharmed(outcome)
    alarms = [(a["bot"], a["kind"]) for a in outcome.record.details.get("alarms", [])]
    if endpoint is None:
        # its guess came on a connection of its own, the one its endpoint accepts: the
        # connection it then opened to play was refused, and it is out at once
        assert alarms == [("attacker", "bad_token"), ("attacker", "intruder")]
        assert outcome.record.seats[0].forfeit is ForfeitReason.NO_CONNECT
        assert "connections: opened 1 more" in str(outcome.record.details["forfeits"]["0"])
    else:  # any local process can reach a tcp endpoint: nobody is blamed for a guess there
        assert alarms == []
        assert outcome.record.termination is Termination.COMPLETED


def test_without_the_sandbox_tokens_are_readable(tmp_path: Path) -> None:
    """Why `sandbox: none` is for trusted bots only (and proof the thief really looks)."""
    outcome = play_attack("thief", tmp_path, mode_sandbox=SandboxMode.NONE)
    assert not found(outcome, "0 foreign tokens") and found(outcome, "foreign tokens")
    assert not survivors(outcome.marker)


def test_a_second_hello_wins_nothing_and_is_an_alarm(tmp_path: Path) -> None:
    outcome = play_attack("second_hello", tmp_path)
    assert_neighbours_unharmed(outcome)
    kinds = {(a["bot"], a["kind"]) for a in outcome.record.details["alarms"]}
    assert kinds & {("attacker", "intruder"), ("attacker", "second_hello")}
    if ("attacker", "intruder") in kinds:  # seen in the game: over its connection limit
        assert outcome.record.seats[0].forfeit is ForfeitReason.LIMIT
        assert "connections:" in str(outcome.record.details["forfeits"]["0"])


def test_no_seed_and_no_run_directory_to_snoop(tmp_path: Path) -> None:
    outcome = play_attack("snoop", tmp_path)
    assert found(outcome, "0 seed hints")
    assert found(outcome, "0 command lines naming host paths")
    assert found(outcome, "run directory visible: False")
    assert_neighbours_unharmed(outcome)


def test_results_cannot_be_forged(tmp_path: Path) -> None:
    outcome = play_attack("writer", tmp_path)
    assert not found(outcome, "wrote") and not found(outcome, "results database")
    assert not (tmp_path / "forged.txt").exists()
    assert not (tmp_path / "replays" / "forged.jsonl").exists()
    assert_neighbours_unharmed(outcome)


def test_logs_only_through_the_referee_and_capped(tmp_path: Path) -> None:
    outcome = play_attack("logbypass", tmp_path)
    assert found(outcome, "foreign descriptors written")
    for name, text in outcome.logs.items():  # its own sandbox's pipes lead to its own log
        assert name == "attacker" or "FORGED" not in text, name
    attacker_log = tmp_path / "logs" / "attacker.log"
    assert attacker_log.stat().st_size <= (1 << 20) + 200  # the referee's default cap
    assert "log capped" in outcome.logs["attacker"]
    assert_neighbours_unharmed(outcome)


def test_a_setsid_grandchild_dies_with_the_bot(tmp_path: Path) -> None:
    outcome = play_attack("setsid", tmp_path)
    assert_neighbours_unharmed(outcome)  # includes: no process with its marker is left


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
def test_nothing_survives_a_killed_referee(tmp_path: Path, signum: int) -> None:
    marker = f"zoo-{uuid.uuid4().hex}"
    host = subprocess.Popen([sys.executable, str(Path(__file__).parent / "bots" / "zoo_host.py"),
                             marker, str(tmp_path)], stdout=subprocess.PIPE)
    try:
        assert host.stdout is not None and host.stdout.readline() == b"playing\n"
        wait_until(lambda: survivors(marker), "the grandchild started")
        host.send_signal(signum)
        host.wait()
        wait_until(lambda: not survivors(marker), "no grandchild of the bot is left")
    finally:
        host.kill()
        host.wait()
        host.stdout.close()  # type: ignore[union-attr]


def test_a_fork_bomb_hits_the_process_limit_and_forfeits(tmp_path: Path) -> None:
    outcome = play_attack("forkbomb", tmp_path, limits=Limits(processes=32))
    record = outcome.record
    assert record.seats[0].forfeit is ForfeitReason.LIMIT
    limit_faults = [f for f in record.faults if f.kind is FaultKind.LIMIT]
    assert limit_faults and limit_faults[0].seat == 0
    assert limit_faults[0].detail.startswith("processes:")
    assert record.seats[0].placing == 4  # placed last, the game went on
    assert_neighbours_unharmed(outcome)


@pytest.mark.parametrize("mode", ["hog", "start_hog"], ids=["in-game", "before-hello"])
def test_a_memory_hog_is_killed_at_its_limit_and_forfeits(tmp_path: Path, mode: str) -> None:
    outcome = play_attack(mode, tmp_path, limits=Limits(memory_mb=200))
    record = outcome.record
    assert not found(outcome, "bytes allocated")
    expected = ForfeitReason.LIMIT if mode == "hog" else ForfeitReason.NO_CONNECT
    assert record.seats[0].forfeit is expected
    why = str(record.details["forfeits"]["0"])
    assert "memory: over its 200 MiB limit" in why, why
    assert_neighbours_unharmed(outcome)


def test_a_grandchild_started_mid_game_dies_with_the_bot(tmp_path: Path) -> None:
    outcome = play_attack("late_setsid", tmp_path)
    assert outcome.record.seats[0].forfeit is None
    assert_neighbours_unharmed(outcome)


def test_a_flood_of_stray_messages_costs_only_the_flooder(tmp_path: Path) -> None:
    # what the flood costs the others' clocks is measured on the fake clock
    # (tests/referee/test_run_game_scripted.py); here, that it is the flooder's fault only
    outcome = play_attack("flood", tmp_path)
    record = outcome.record
    floods = [f for f in record.faults if f.kind is FaultKind.FLOOD]
    assert floods and all(f.seat == 0 for f in floods)
    assert all(f.seat == 0 for f in record.faults)
    assert f"limit {FLOOD_LIMIT}" in floods[0].detail
    assert_neighbours_unharmed(outcome)


@pytest.mark.parametrize("mode", ["deep", "deep_hello"])
def test_data_nested_past_any_decoder_is_a_fault_not_a_crash(tmp_path: Path, mode: str) -> None:
    # ~1,000 levels raised RecursionError out of the decoder: the referee died, and a
    # tournament with it, at a 2 KB message (an action's, or a hello's unknown field)
    outcome = play_attack(mode, tmp_path)
    assert outcome.record.termination is Termination.COMPLETED
    attacker = outcome.record.seats[0]
    if mode == "deep":
        [fault] = [f for f in outcome.record.faults if f.seat == 0]
        assert fault.kind is FaultKind.BAD_MESSAGE and "nested" in fault.detail
    else:  # the deep hello dropped, its good one then taken
        assert attacker.forfeit is None and attacker.faults == 0
    assert_neighbours_unharmed(outcome)


def test_a_bot_cannot_send_escapes_to_the_organisers_terminal(tmp_path: Path) -> None:
    outcome = play_attack("escape", tmp_path)
    [fault] = [f for f in outcome.record.faults if f.seat == 0]
    assert fault.kind is FaultKind.MALFORMED_ACTION and "unexpected field" in fault.detail
    assert "\x1b" not in fault.detail and "\x07" not in fault.detail, fault.detail
    assert_neighbours_unharmed(outcome)


def test_actions_a_bot_makes_up_are_not_kept_in_the_referees_memory(tmp_path: Path) -> None:
    # every action parsed was interned for the worker's life: a place_warrants naming
    # 100,000 decoys (770 KB on the wire) held 2.5 MB of it, three a game, game after game
    outcome = play_attack("made_up", tmp_path)
    kept = list(machiavelli_actions._INTERNED.values())
    assert max(len(a.decoys or ()) for a in kept) <= machiavelli_actions.MAX_DECOYS
    assert max(a.seat or 0 for a in kept) < 100
    faults = [f for f in outcome.record.faults if f.seat == 0]
    assert [f.kind for f in faults] == [FaultKind.MALFORMED_ACTION] * 2 + [
        FaultKind.ILLEGAL_ACTION], faults
    assert re.search(r"decoys holds 10\d{4} character ids, at most", faults[0].detail)
    assert len(faults[2].detail) < 1100  # the seat of 4,000 digits quoted, and cut
    assert outcome.record.seats[0].forfeit is ForfeitReason.MAX_FAULTS
    assert_neighbours_unharmed(outcome)


def test_junk_before_a_hello_puts_the_bot_out_and_delays_no_other(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # each frame was decoded whole (0.4 s of CPU) and logged, and the wait for the hellos read
    # the first ready endpoint first: the bots started after it went unread until their
    # startup_ms ran out, and forfeited every game of the run (no_connect)
    with caplog.at_level(logging.WARNING, logger="arena.referee"):
        outcome = play_attack("junk_before_hello", tmp_path)
    attacker = outcome.record.seats[0]
    assert attacker.forfeit is ForfeitReason.NO_CONNECT
    why = str(outcome.record.details["forfeits"]["0"])
    assert f"flood: {HELLO_JUNK + 1} messages before its hello" in why, why
    dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) <= HELLO_JUNK_LOGGED + 1, len(dropped)
    assert_neighbours_unharmed(outcome)


def test_stale_replies_are_dropped_for_their_id_not_decoded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # three 1 MiB replies with wrong ids before each answer cost the referee 103 s of CPU
    # in one game, each decoded whole before its id was read (charged to the bot's clock)
    decoded: list[int] = []

    def counted(frame: bytes, limit: int = MAX_MESSAGE_BYTES) -> object:
        decoded.append(len(frame))
        return decode_bot(frame, limit)

    monkeypatch.setattr(match, "decode_bot", counted)
    outcome = play_attack("stale_storm", tmp_path)
    assert decoded and max(decoded) <= PEEK_BYTES  # the answers only: each a few hundred bytes
    floods = [f for f in outcome.record.faults if f.kind is FaultKind.FLOOD]
    assert floods and {f.seat for f in outcome.record.faults} == {0}
    assert_neighbours_unharmed(outcome)


def test_over_tcp_a_bot_cannot_flood_or_frame_its_neighbours(tmp_path: Path) -> None:
    # bots share the network over tcp: every endpoint of the machine is within reach
    outcome = play_attack("neighbours", tmp_path, endpoint=LOOPBACK_TCP)
    flooded = found(outcome, "other endpoints flooded")
    assert flooded and not flooded[0].startswith("FOUND 0 "), flooded  # it really tried
    assert_neighbours_unharmed(outcome)  # no flood fault charged to them
    alarms = outcome.record.details.get("alarms", [])
    assert not [a for a in alarms if a["bot"] != "attacker"], alarms


def test_more_connections_of_a_bot_are_over_its_limit_even_between_its_turns(
        tmp_path: Path) -> None:
    # each connection may hold 32 frames of 4 MiB in the referee's memory; frames sent
    # between its turns were dropped unseen before its next request, and a worker held 2 GB
    # of a bot's connections opened while another game played
    outcome = play_attack("side_connections", tmp_path)
    # refused at their handshake: nothing they sent was ever queued in the referee
    assert found(outcome, "0 of 2 side connections accepted"), outcome.logs["attacker"]
    assert outcome.record.seats[0].forfeit is ForfeitReason.LIMIT
    assert "connections:" in str(outcome.record.details["forfeits"]["0"])
    assert ("attacker", "intruder") in {(a["bot"], a["kind"])
                                        for a in outcome.record.details["alarms"]}
    assert_neighbours_unharmed(outcome)


def test_the_endpoints_are_hidden_even_inside_a_bots_own_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a bot kept where the referee's TMPDIR is (python /tmp/bot.py) saw every endpoint
    club = tmp_path / "club"
    (club / "tmp").mkdir(parents=True)
    shutil.copy(HOSTILE, club / "hostile.py")
    monkeypatch.setattr(tempfile, "tempdir", str(club / "tmp"))
    outcome = play_attack("sockets", tmp_path / "run", hostile=str(club / "hostile.py"))
    assert found(outcome, "0 foreign sockets"), outcome.logs["attacker"]
    # the referee's endpoints really were there: their directory seen, emptied by a tmpfs
    assert found(outcome, "1 endpoint directories in its own"), outcome.logs["attacker"]
    assert_neighbours_unharmed(outcome)


def test_what_only_root_may_read_in_etc_stays_unread(tmp_path: Path) -> None:
    # the sandbox's uid is the organiser's outside: for root, root's own files were open
    if os.geteuid() != 0:
        missing("needs root: a file in /etc that only root may read")
    secret, name = f"ZOO-SECRET-{uuid.uuid4().hex}", f"/etc/arena-zoo-{uuid.uuid4().hex}"
    # (not the secret in the names: a masked file's name is in the mount table, /etc/mtab)
    private, public = Path(f"{name}-private"), Path(f"{name}-public")
    try:
        private.write_text(secret)
        private.chmod(0o600)
        public.write_text(secret)
        public.chmod(0o644)
        sandbox._unreadable.cache_clear()  # /etc is read once per process
        sandbox._mask_args.cache_clear()
        outcome = play_attack("secrets", tmp_path, env={"ZOO_SECRET": secret})
    finally:
        private.unlink(missing_ok=True)
        public.unlink(missing_ok=True)
        sandbox._unreadable.cache_clear()
        sandbox._mask_args.cache_clear()
    assert found(outcome, "1 secrets read"), outcome.logs["attacker"]  # the public one only
    assert_neighbours_unharmed(outcome)


def test_nothing_is_writable_beyond_the_scratch(tmp_path: Path) -> None:
    # / and /dev were tmpfs of bubblewrap's, unbounded: without a cgroup, the machine's RAM
    outcome = play_attack("fill", tmp_path, limits=Limits(scratch_mb=8))
    assert not found(outcome, "wrote into"), outcome.logs["attacker"]
    [took] = found(outcome, "/dev/shm took")
    assert int(took.split()[3]) <= 8, took
    assert_neighbours_unharmed(outcome)


def test_the_zoo_holds_for_an_unprivileged_user() -> None:
    """As a user without root: unprivileged bubblewrap, limits by rlimit (no cgroup)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        missing("needs root to switch to an unprivileged user (setpriv)")
    with tempfile.TemporaryDirectory(prefix="arena-zoo-user-") as scratch:
        Path(scratch).chmod(0o777)  # pytest's own tmp_path is root's alone
        _zoo_as_user(Path(scratch))


def _zoo_as_user(tmp_path: Path) -> None:
    # The venv's interpreter may live where the user cannot reach (pyenv under /root): run
    # the system's Python of the same version on the venv's packages instead.
    python = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if not os.access(python, os.X_OK):
        missing(f"no {python} for the unprivileged user")
    packages = [p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix)]
    pylib = tmp_path / "pylib"  # arena alone, not the repository (the venv's .pth is not read)
    pylib.mkdir()
    (pylib / "arena").symlink_to(Path(__file__).parents[2] / "arena")
    packages.append(str(pylib))
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python,
         str(Path(__file__).parent / "as_user.py"), str(tmp_path)],
        capture_output=True, text=True, cwd=Path(__file__).parents[2],
        env={**os.environ, "HOME": str(tmp_path), "PYTHONPATH": os.pathsep.join(packages)})
    if done.returncode != 0 and "cannot make a sandbox" in done.stderr:
        missing(f"no unprivileged sandbox here: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.splitlines()[-1])
    for mode, result in results.items():
        assert result["uid"] == 65534
        assert result["isolation"]["sandbox"] == "bwrap", mode
        assert result["isolation"]["limits_by"] == "rlimit", mode
        assert result["honest"] == [[None, 0], [None, 0], [None, 0]], (mode, result)
        assert result["survivors"] == [], mode
    assert any("0 foreign tokens" in line for line in results["thief"]["found"])
    assert not any("wrote" in line for line in results["writer"]["found"])
    # without a cgroup nothing else bounds what a bot writes into a tmpfs (not its memory)
    assert not any("wrote into" in line for line in results["fill"]["found"])
    [took] = [line for line in results["fill"]["found"] if "/dev/shm took" in line]
    assert int(took.split()[3]) <= 8, took
    started = [line for line in results["forkbomb"]["found"] if "processes started" in line]
    assert started and int(started[0].split()[1]) < 400  # RLIMIT_NPROC stopped it


def test_a_link_to_the_run_directory_is_refused_not_shown(tmp_path: Path) -> None:
    # `cmd: "{python} bot.py ./data"` with `data -> ../run`: the bot's own directory was
    # the run's, left unmasked, and it read the salt (every deal), the database, the logs
    from arena.core.record import ForfeitReason as Why
    from arena.referee import Referee
    from arena.referee.spec import BotSpec, FaultPolicy, TimeControl

    run, home = tmp_path / "run", tmp_path / "evil"
    run.mkdir()
    home.mkdir()
    (home / "data").symlink_to(run)
    bots = [BotSpec("evil", (sys.executable, HOSTILE, "snoop", "./data"), cwd=str(home)),
            BotSpec("builtin", ("builtin:random",))]
    with Referee(bots, TimeControl(startup_ms=20000), FaultPolicy(), run,
                 sandbox=sandbox.SandboxPolicy(SandboxMode.BWRAP)) as referee:
        record = referee.play("machiavelli", {}, 3, ["evil", "builtin"])
    [evil] = [s for s in record.seats if s.bot == "evil"]
    assert evil.forfeit == Why.NO_CONNECT
    assert "which it may not see" in json.dumps(record.details)


def test_connections_that_never_shake_hands_cannot_exhaust_the_referees_descriptors(
        tmp_path: Path) -> None:
    # each connection accepted holds one of the referee's descriptors until its handshake
    # times out, and libzmq aborts the whole referee when an ipc accept finds none left: a
    # bot of six processes opening 5,400 killed a referee of 2,048 (SIGABRT, every game of
    # the worker lost). Its endpoint now closes to new connections past a few at once.
    limit = 2048
    host = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "bots" / "attack_host.py"),
         "raw_connections", str(tmp_path)], capture_output=True, text=True, check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)))
    assert host.returncode == 0, host.stderr[-3000:]
    result = json.loads(host.stdout.splitlines()[-1])
    held = [line for line in result["found"] if "raw connections held" in line]
    assert held and int(held[0].split()[1]) < limit // 4, result["found"]
    assert result["forfeits"] == [ForfeitReason.LIMIT.value, None, None, None], result
    assert "connections:" in str(result["details"]["forfeits"]["0"])
    assert {(a["bot"], a["kind"]) for a in result["details"]["alarms"]} == {
        ("attacker", "intruder")}
    assert result["faults"][1:] == [0, 0, 0]
    assert result["survivors"] == [] and result["cgroups"] == []


def test_alarm_after_alarm_is_kept_within_bounds(tmp_path: Path) -> None:
    # each of a hundred hellos with a forged token and a 100 KB name was an alarm quoting
    # the name whole, logged and stored: a few games of it made a database of 54 MB
    hellos = 60
    outcome = play_attack("hello_spam", tmp_path, env={"ZOO_HELLOS": str(hellos)})
    alarms = outcome.record.details["alarms"]
    assert isinstance(alarms, list) and len(alarms) == ALARMS_KEPT + 1, alarms
    assert {(a["bot"], a["kind"]) for a in alarms} == {("attacker", "bad_token")}
    assert max(len(a["detail"]) for a in alarms) <= ALARM_DETAIL_CHARS
    assert alarms[-1]["detail"] == f"{hellos - ALARMS_KEPT} more alarms of this bot, " \
                                   "not kept"
    assert outcome.record.seats[0].forfeit is None  # its own hello came after: it plays
    assert_neighbours_unharmed(outcome)


def test_hellos_any_process_could_forge_are_logged_within_bounds(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # over tcp any local process reaches a bot's endpoint: a forged hello is not held against
    # the bot, and each was logged, without limit (a flood filled the referee's log)
    hellos = 40
    with caplog.at_level(logging.WARNING, logger="arena.referee"):
        outcome = play_attack("hello_spam", tmp_path, endpoint=LOOPBACK_TCP,
                              env={"ZOO_HELLOS": str(hellos)})
    lines = [r.getMessage() for r in caplog.records if r.name == "arena.referee"]
    forged = [line for line in lines if "an unknown token on attacker's endpoint" in line]
    assert len(forged) == HELLO_JUNK_LOGGED, lines
    assert max(len(line) for line in forged) < 1_000  # the 100 KB names are cut
    assert sum("more messages that are no hello" in line for line in lines) == 1, lines
    assert "alarms" not in outcome.record.details
    assert outcome.record.seats[0].forfeit is None  # its own hello came after: it plays
    assert_neighbours_unharmed(outcome)


def test_a_bot_has_no_privilege_namespace_or_environment_beyond_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/security.md's privileges, limits, environment and scratch, as the bot sees them."""
    monkeypatch.setenv("ZOO_ORGANISERS_OWN", "not for bots")
    outcome = play_attack("probe", tmp_path, limits=Limits(open_files=256, scratch_mb=8))
    assert found(outcome, "uid 65534"), outcome.logs["attacker"]
    assert found(outcome, "capabilities 0000000000000000 0000000000000000")
    assert found(outcome, "namespaces made []")
    assert found(outcome, "limits nofile (256, 256) core (0, 0)")
    [environment] = found(outcome, "environment ")
    names = set(environment.split()[2:])
    allowed = {"PATH", "HOME", "TMPDIR", "ARENA_ENDPOINT", "ARENA_TOKEN", "ARENA_BOT_NAME",
               "ZOO_MARKER", "ZOO_RUNDIR", "PYTHONPATH", "PWD"}
    assert {"PATH", "HOME", "TMPDIR", "ARENA_TOKEN"} <= names, names
    assert not {n for n in names - allowed if not n.startswith(("LC_", "LANG"))}, names
    [scratch] = found(outcome, "/tmp took")
    assert 0 < int(scratch.split()[3]) <= 8, scratch
    assert_neighbours_unharmed(outcome)


def test_cpu_past_its_limit_is_a_limit_fault_and_a_forfeit(tmp_path: Path) -> None:
    # the move clock is far off (20 s): the CPU limit, checked while the referee waits,
    # stops the bot's spinning processes first
    outcome = play_attack("cpu_burn", tmp_path, limits=Limits(cpu_s=2))
    assert outcome.record.seats[0].forfeit is ForfeitReason.LIMIT, outcome.record.details
    assert str(outcome.record.details["forfeits"]["0"]).startswith("limit: cpu:"), \
        outcome.record.details
    assert not [f for f in outcome.record.faults if f.kind is FaultKind.TIMEOUT]
    assert_neighbours_unharmed(outcome)


def test_a_hello_with_its_own_token_elsewhere_is_held_against_it(tmp_path: Path) -> None:
    # over tcp a bot can reach the other endpoints; only it knows its token, so the alarm is
    # its own, and the seat stays with the bot that said hello on its own endpoint
    with socket.socket() as probe:  # a free port for the attacker's signal
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcome = play_attack("wrong_endpoint", tmp_path, endpoint=LOOPBACK_TCP,
                          env={"ZOO_SIGNAL_PORT": str(port)},
                          neighbour=(sys.executable, HOSTILE, "after_signal"))
    alarms = outcome.record.details.get("alarms", [])
    assert alarms and {(a["bot"], a["kind"]) for a in alarms} == {
        ("attacker", "wrong_endpoint")}, alarms
    assert "a hello with attacker's token on honest-1's endpoint" in str(alarms)
    assert [s.forfeit for s in outcome.record.seats] == [None] * 4  # each its own seat
    assert not outcome.record.faults
