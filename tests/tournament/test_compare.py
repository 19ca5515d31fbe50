"""`arena compare`: the schedule of duplicate deals, and whole comparisons through the
command (real referee, sample bots): greedy is found better than random, random is not
found better than random, a killed run resumes to the verdict an uninterrupted run reaches,
and every error exits 3 (never a verdict's status)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.game import Termination
from arena.core.record import GameRecord, SeatRecord
from arena.referee.spec import BotSpec
from arena.tournament.compare import (
    CompareSetup,
    deal_plan,
    deal_result,
    deal_seed,
    fill_opponents,
    seat_score,
)
from arena.tournament.sprt import Pairing
from arena.tournament.store import GameKey
from tests.conditions import PATIENCE_S, wait_until
from tests.tournament.test_resume import READER_GOES, alive, descendants, stored

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "sample_bots" / "python"
GREEDY = f"greedy=python {BOTS / 'greedy_bot.py'}"
RANDOM = f"random=python {BOTS / 'random_bot.py'}"
RANDOM_2 = f"random2=python {BOTS / 'random_bot.py'}"


def spec(name: str) -> BotSpec:
    return BotSpec(name, ("builtin:random",))


def four_seats() -> CompareSetup:
    return CompareSetup("machiavelli", 4, spec("cand"), spec("base"),
                        fill_opponents([spec("opp")], 3))


def test_head_to_head_plays_both_ways_round() -> None:
    setup = CompareSetup("machiavelli", 2, spec("cand"), spec("base"))
    assert setup.pairing is Pairing.HEAD_TO_HEAD
    for deal in (1, 2, 3):
        assert deal_plan(setup, deal).tables[0].seatings == (("cand", "base"),
                                                             ("base", "cand"))


def test_replacement_seats_the_base_where_the_candidate_sat_and_rotates() -> None:
    setup = four_seats()
    assert setup.pairing is Pairing.REPLACEMENT
    seats = []
    for deal in range(1, 9):
        cand, base = deal_plan(setup, deal).tables[0].seatings
        seat = cand.index("cand")
        assert base.index("base") == seat
        assert [b for b in cand if b != "cand"] == [b for b in base if b != "base"]
        seats.append(seat)
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]


def test_both_games_of_a_deal_share_their_seed_and_deals_differ() -> None:
    salt = "ab" * 32
    first = {deal_seed(1, salt, GameKey(1, 0, r)) for r in (0, 1)}
    second = {deal_seed(1, salt, GameKey(2, 0, r)) for r in (0, 1)}
    assert len(first) == len(second) == 1 and first != second
    assert deal_seed(1, "cd" * 32, GameKey(1, 0, 0)) not in first


def test_opponents_fill_the_seats_in_turn_with_their_own_names() -> None:
    names = [b.name for b in fill_opponents([spec("a"), spec("b")], 5)]
    assert names == ["a", "b", "a-2", "b-2", "a-3"]
    # a bare builtin:random given twice is opp-random twice; a name beside its copy's
    assert [b.name for b in fill_opponents([spec("opp"), spec("opp")], 3)] == \
        ["opp", "opp-2", "opp-3"]
    assert [b.name for b in fill_opponents([spec("a"), spec("a-2")], 4)] == \
        ["a", "a-2", "a-3", "a-2-2"]
    with pytest.raises(ValueError):
        fill_opponents([spec("a")] * 4, 3)
    with pytest.raises(ValueError):
        CompareSetup("machiavelli", 3, spec("x"), spec("x"), fill_opponents([spec("o")], 2))


def record(placings: list[int], bots: list[str]) -> GameRecord:
    seats = tuple(SeatRecord(i, b, "", p, 0) for i, (b, p) in enumerate(zip(bots, placings,
                                                                            strict=True)))
    return GameRecord("machiavelli", {}, 1, Termination.COMPLETED, seats, 1)


def test_a_seat_scores_the_share_of_seats_it_finished_ahead_of() -> None:
    game = record([2, 1, 2, 4], ["a", "b", "c", "d"])
    assert [seat_score(game, s) for s in range(4)] == [0.5, 1.0, 0.5, 0.0]
    setup = four_seats()
    cand, base = deal_plan(setup, 2).tables[0].seatings  # the tested seat is 1
    assert deal_result(setup, 2, record([3, 1, 2, 4], list(cand)),
                       record([1, 2, 3, 4], list(base))) == (1.0, 2 / 3)


# whole comparisons ---------------------------------------------------------------------


def arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def compare(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena("compare", "machiavelli", "--out", str(out), "-j", "2",
                                "--sandbox", "none", *args),
                          capture_output=True, text=True, cwd=ROOT)


def report(out: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((out / "compare.json").read_text())
    return data


def test_greedy_is_found_better_than_random(tmp_path: Path) -> None:
    done = compare(tmp_path, "--candidate", GREEDY, "--base", RANDOM, "--elo1", "50",
                   "--max-games", "200")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "H1 accepted: greedy is better than random" in done.stdout
    assert "LLR" in done.stdout and "LOS" in done.stdout and "Elo +" in done.stdout
    result = report(tmp_path)
    assert result["verdict"] == "H1"
    assert isinstance(result["games"], int) and result["games"] < 200
    checked = subprocess.run(arena("verify", str(tmp_path)), capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_random_is_not_found_better_than_random(tmp_path: Path) -> None:
    done = compare(tmp_path, "--candidate", RANDOM, "--base", RANDOM_2, "--elo1", "50",
                   "--players", "3", "--opponents", "builtin:random", "--max-games", "300")
    assert done.returncode in (1, 2), done.stdout + done.stderr
    assert report(tmp_path)["verdict"] in ("H0", "inconclusive")


def test_a_comparison_whose_bot_was_edited_does_not_resume(tmp_path: Path) -> None:
    # --resume mixed the edited bot's games with the first part's, and the verdict came
    # from both (found by a bot author's audit); the fingerprint held its command only
    for name in ("v1", "v2"):
        (tmp_path / name).mkdir()
        shutil.copy(BOTS / "random_bot.py", tmp_path / name / "bot.py")
    out = tmp_path / "out"
    args = ("--candidate", f"v2=python {tmp_path / 'v2' / 'bot.py'}", "--base",
            f"v1=python {tmp_path / 'v1' / 'bot.py'}")
    first = compare(out, *args, "--max-games", "4")
    assert first.returncode == 2, first.stdout + first.stderr
    again = compare(out, *args, "--max-games", "8", "--resume")
    assert again.returncode == 2, again.stdout + again.stderr  # unchanged: it resumes
    games = stored(out)
    with open(tmp_path / "v2" / "bot.py", "a") as bot:
        bot.write("# version 2, edited\n")
    edited = compare(out, *args, "--max-games", "12", "--resume")
    assert edited.returncode == 3
    # it names what differs (it said only what may not: "their commands and their files")
    assert "holds another run" in edited.stderr and "what differs: bot v2: files:" in \
        " ".join(edited.stderr.split())
    assert stored(out) == games


def test_a_comparison_whose_stdout_closes_plays_on_to_its_verdict(tmp_path: Path) -> None:
    # `arena compare ... | head -1`: the progress line after the reader had gone ended the
    # comparison with "cannot write the results in OUT: Broken pipe" and status 3, never
    # its verdict's
    done = subprocess.run([sys.executable, str(READER_GOES), "compare d vs r:", "compare",
                           "machiavelli", "--out", str(tmp_path), "-j", "2", "--sandbox",
                           "none", "--candidate", "d=builtin:default", "--base",
                           "r=builtin:random", "--max-games", "40", "--report-every", "10"],
                          capture_output=True, timeout=PATIENCE_S, cwd=ROOT)
    assert b"stdout was closed: the run goes on without printing there" in done.stderr
    verdict = report(tmp_path)["verdict"]
    assert done.returncode == {"H1": 0, "H0": 1, "inconclusive": 2}[str(verdict)], \
        done.stderr.decode()
    assert stored(tmp_path) == report(tmp_path)["games"]


def test_a_killed_comparison_resumes_to_the_uninterrupted_verdict(tmp_path: Path) -> None:
    """Deals between builtin bots whose Elo difference lies between the bounds, with error
    rates so small that no verdict can come before --max-games (LLR bounds +-27.6; after
    80 games the LLR reads about -7): the killed run is always cut off mid-test. With the
    default 5% the test could end within the first dozen games by chance (the LLR moves
    about 0.13 a deal here), and the run was over before it was killed. The second
    directory is given the first one's salt, so both play the same deals."""
    args = ("--candidate", "d=builtin:default", "--base", "r=builtin:random", "--players",
            "3", "--elo0", "-800", "--elo1", "-300", "--alpha", "1e-12", "--beta", "1e-12",
            "--max-games", "80")
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    process = subprocess.Popen(arena("compare", "machiavelli", "--out", str(killed), "-j",
                                     "2", "--sandbox", "none", *args),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        wait_until(lambda: stored(killed) >= 10 or process.poll() is not None,
                   "10 games stored")
        workers = descendants(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait()
        # orphans finish and commit their game, then see the parent gone (a zombie is gone:
        # an earlier test may have made this process the subreaper that never reaps it)
        wait_until(lambda: not any(alive(w) for w in workers),
                   "the workers of the killed run gone")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    before = stored(killed)
    assert before < 80
    resumed = compare(killed, *args, "--resume")
    lines = resumed.stdout.splitlines()
    assert "already stored" in lines[0]
    # where it stands at once, not only once the next N games are played
    assert lines[1].startswith("games ") and int(lines[1].split()[1]) <= before, lines
    whole.mkdir()
    shutil.copy2(killed / "secret.salt", whole / "secret.salt")
    uninterrupted = compare(whole, *args)
    assert resumed.returncode == uninterrupted.returncode, resumed.stderr + uninterrupted.stderr
    first, second = report(killed), report(whole)
    for key in ("verdict", "games", "llr", "elo", "deal_results"):
        assert first[key] == second[key], key


@pytest.mark.parametrize("args,message", [
    (["--players", "9"], "--players"),
    (["--elo0", "5", "--elo1", "5"], "elo1"),
    (["--opponents", "nameonly"], "NAME=CMD"),
    (["--base", "r=no-such-program-xyz"], "no-such-program-xyz"),
])
def test_errors_exit_3_never_a_verdict(tmp_path: Path, args: list[str], message: str) -> None:
    base = ["--candidate", "c=builtin:random", "--base", "b=builtin:default"]
    done = compare(tmp_path / "out", *(base + args if "--base" not in args else
                                       ["--candidate", "c=builtin:random", *args]))
    assert done.returncode == 3, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_another_runs_directory_is_refused_untouched(tmp_path: Path) -> None:
    first = compare(tmp_path, "--candidate", "c=builtin:default", "--base", "b=builtin:random",
                    "--elo1", "100")
    assert first.returncode == 1, first.stderr
    before = (tmp_path / "results.sqlite").read_bytes()
    other = compare(tmp_path, "--candidate", "c=builtin:random", "--base", "b=builtin:default",
                    "--elo1", "100", "--resume")
    assert other.returncode == 3
    assert "holds another run" in other.stderr
    assert (tmp_path / "results.sqlite").read_bytes() == before
    again = compare(tmp_path, "--candidate", "c=builtin:default", "--base", "b=builtin:random",
                    "--elo1", "100")
    assert again.returncode == 3 and "--resume" in again.stderr


CRASHES = ("import sys\nfrom arena.client import run\n"
           "run(lambda request: sys.exit(1), name='crashes')\n")
"""Says hello, then exits on its first request: every game a crash."""


def test_a_candidate_that_cannot_play_gets_no_verdict_not_h0(tmp_path: Path) -> None:
    """A CI job must never read a broken bot as "the patch is worse": a candidate that
    forfeits nearly every game stops the run with exit 3, which names it and why."""
    bot = tmp_path / "crashes.py"
    bot.write_text(CRASHES)
    done = compare(tmp_path / "out", "--candidate", f"v2=python {bot}", "--base",
                   "v1=builtin:random", "--elo1", "50", "--max-games", "200")
    assert done.returncode == 3, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert "no verdict: v2 forfeited 4 of its 4 games (crashed 4)" in text, text
    assert f"its log {tmp_path / 'out' / 'logs' / 'v2.log'}" in text, text  # not the folder
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "compare.json").exists()  # no verdict written


def test_a_bot_that_hangs_is_told_what_its_forfeits_were(tmp_path: Path) -> None:
    """`max_faults` alone did not say that every fault was a timeout."""
    bot = tmp_path / "hangs.py"
    bot.write_text("import threading\nfrom arena.client import run\n"
                   "run(lambda request: threading.Event().wait(), name='hangs')\n")
    done = compare(tmp_path / "out", "--candidate", f"v2=python {bot}", "--base",
                   "v1=builtin:random", "--move-ms", "50", "--max-faults", "1")
    assert done.returncode == 3, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert "v2 forfeited 4 of its 4 games (max_faults 4; its faults: timeout 4)" in text, text


CRASHES_ONCE = ("import os\nfrom arena.client import run\n"
                "def act(request, rng):\n"
                "    try:\n"
                "        os.close(os.open({marker!r}, os.O_CREAT | os.O_EXCL))\n"
                "    except FileExistsError:\n"
                "        return rng.choice(request.options)\n"
                "    raise RuntimeError('a bug of the first game')\n"
                "run(act, name='crashes-once')\n")
"""Crashes on the first request any of its processes gets, then plays at random."""


def test_a_verdict_says_what_the_compared_bots_forfeited(tmp_path: Path) -> None:
    """A candidate that crashed in some games got its verdict with not a word of it: each
    crash a loss, the verdict read as its play (found by a bot author's audit)."""
    bot = tmp_path / "crashes_once.py"
    bot.write_text(CRASHES_ONCE.format(marker=str(tmp_path / "crashed")))
    out = tmp_path / "out"
    # bounds no deal can reach: the comparison counts all 8 deals, the crash among them
    done = compare(out, "--candidate", f"v2=python {bot}", "--base", "v1=builtin:random",
                   "--alpha", "1e-12", "--beta", "1e-12", "--max-games", "16")
    assert done.returncode == 2, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert (f"warning: v2 forfeited 1 of its 16 games (crashed 1): each counts as a loss, so "
            f"the verdict is not on its play alone; its log {out / 'logs' / 'v2.log'} ends: "
            "RuntimeError: a bug of the first game") in text, text
    forfeits = report(out)["forfeits"]
    assert forfeits == {"v2": {"games": 16, "forfeits": 1, "reasons": {"crashed": 1},
                               "faults": {}}}, forfeits


FAULTS_ONCE = ("import os\nfrom arena.client import run\n"
               "def act(request, rng):\n"
               "    try:\n"
               "        os.close(os.open({marker!r}, os.O_CREAT | os.O_EXCL))\n"
               "    except FileExistsError:\n"
               "        return rng.choice(request.options)\n"
               "    return {{'type': 'no_such_action'}}\n"
               "run(act, name='faults-once')\n")
"""Sends one malformed action (the first request any of its processes gets), then plays."""


def test_a_verdict_says_what_the_compared_bots_faulted(tmp_path: Path) -> None:
    """A fault costs a move (the referee plays a default action), and a verdict said
    nothing of a candidate's faults that did not add up to a forfeit."""
    bot = tmp_path / "faults_once.py"
    bot.write_text(FAULTS_ONCE.format(marker=str(tmp_path / "faulted")))
    out = tmp_path / "out"
    done = compare(out, "--candidate", f"v2=python {bot}", "--base", "v1=builtin:random",
                   "--alpha", "1e-12", "--beta", "1e-12", "--max-games", "16")
    assert done.returncode == 2, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert ("warning: v2 made 1 fault in its 16 games (malformed_action 1): the referee played "
            "a default action for each, so the verdict is not on its play alone; its log "
            f"{out / 'logs' / 'v2.log'}") in text, text
    assert report(out)["forfeits"] == {"v2": {"games": 16, "forfeits": 0, "reasons": {},
                                              "faults": {"malformed_action": 1}}}


def test_an_opponent_that_cannot_play_gets_no_verdict_either(tmp_path: Path) -> None:
    # every deal was a tie while it forfeited, and the run played on to --max-games
    # (20,000 by default) for an inconclusive verdict (found by a bot author's audit)
    bot = tmp_path / "crashes.py"
    bot.write_text(CRASHES)
    done = compare(tmp_path / "out", "--candidate", "d=builtin:default", "--base",
                   "r=builtin:random", "--players", "3", "--opponents", f"opp=python {bot}",
                   "--max-games", "200")
    assert done.returncode == 3, done.stdout + done.stderr
    text = " ".join(done.stderr.split())
    assert re.search(r"no verdict: opp(-2)? forfeited \d+ of its \d+ games \(crashed", text), \
        text
    assert stored(tmp_path / "out") < 200


def test_the_first_progress_line_says_the_elo_is_not_yet_estimated() -> None:
    """'Elo +0.0 ± inf' read as a result (found by a bot author)."""
    from arena.cli.compare import progress_line
    from arena.tournament.sprt import Hypotheses, Sequential

    setup = four_seats()
    status = Sequential(Hypotheses(), setup.pairing).status()
    line = progress_line(status, Hypotheses())
    assert "Elo not yet estimated" in line and "inf" not in line


def test_an_elo_difference_that_rounds_to_zero_is_plus_zero() -> None:
    """'Elo -0.0 ± 149.3' (found by a bot author's audit)."""
    from arena.cli.compare import progress_line
    from arena.tournament.sprt import Hypotheses, Status

    status = Status(200, -1e-9, -2.9, 2.9, -1e-9, 149.3, 0.5, None, None)
    line = progress_line(status, Hypotheses())
    assert "Elo +0.0 ± 149.3" in line and "LLR   0.00 " in line, line


def test_h0_says_the_difference_is_at_most_elo0() -> None:
    """'H0 accepted: rnd is not better than g (Elo difference 0 rather than 100)' was said of
    a bot 600 Elo worse, and read as 'the same' (found by a bot author's audit)."""
    from arena.tournament.sprt import Hypotheses, Verdict

    setup = replace(four_seats(), hypotheses=Hypotheses(elo1=100))
    assert setup.verdict_words(Verdict.H0, 50) == ("H0 accepted: cand is not better than base "
                                                   "(Elo difference <= 0 rather than >= 100)")


def test_deals_counted_at_once_are_reported_one_by_one(tmp_path: Path) -> None:
    """Found by a bot author: with -j 2 lines came at 20, 42, 46 games, with -j 1 at 20, 40,
    46: where several deals complete at once, each is told to the progress lines, so that
    a line every N games comes at N, 2N, ... whatever the workers."""
    from arena.tournament.compare_run import CompareProgress, CompareRun

    setup = CompareSetup("machiavelli", 2, spec("cand"), spec("base"))
    seen: list[int] = []

    def note(progress: CompareProgress) -> None:
        seen.append(progress.games)

    run = CompareRun(setup, tmp_path, max_games=100, on_progress=note)
    for deal in range(1, 6):  # five deals, all complete by the time the test looks
        for repeat, seating in enumerate(deal_plan(setup, deal).tables[0].seatings):
            run.records[GameKey(deal, 0, repeat)] = record([1, 2], list(seating))
    run._advance(report=True)
    assert seen == [2, 4, 6, 8, 10]


def test_a_candidate_that_is_the_base_is_warned_of(tmp_path: Path) -> None:
    # both named the same file (the new version's path forgotten): it played on to
    # "inconclusive" without a word
    same = compare(tmp_path / "same", "--candidate", RANDOM, "--base", RANDOM_2,
                   "--max-games", "2")
    assert "the candidate (random) and the base (random2) are the same bot" in same.stderr
    other = compare(tmp_path / "other", "--candidate", GREEDY, "--base", RANDOM,
                    "--max-games", "2")
    assert other.returncode == 2, other.stderr
    assert "same bot" not in other.stderr
