"""A bot's program named by a path the sandbox does not show as given still starts: the
sandbox binds a bot's directory where it really is, so an absolute path through a
symbolic link (`/bots/current/bot.py`, `current` a link to a version's directory) or with
`..` in it (`/work/bench/../.venv/bin/python`, what `sys.executable` is when Python was
started so) named nothing inside, and the bot failed before its hello."""

from __future__ import annotations

import os
import sys
import venv
from pathlib import Path

import pytest

from arena.referee.limits import Limits
from arena.referee.sandbox import bwrap_launch
from tests.referee.conftest import sandboxed_output

SCRIPT = "import os, sys\nprint(os.path.basename(sys.argv[0]), 'ran')\n"


def output(bwrap: str, argv: list[str], tmp_path: Path) -> str:
    """What `argv` prints in the sandbox, started from a directory of its own (the bot's
    working directory is bound for it: were it `tmp_path`, every path there would show)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    launch = bwrap_launch(bwrap, argv, {}, str(cwd), endpoint_dir=None, hide=[],
                          network=False, limits=Limits())
    return sandboxed_output(launch)


def test_a_program_behind_a_linked_directory_starts(bwrap: str, tmp_path: Path) -> None:
    version = tmp_path / "bots" / "v2"
    version.mkdir(parents=True)
    (version / "bot.py").write_text(SCRIPT)
    (tmp_path / "bots" / "current").symlink_to(version)
    given = str(tmp_path / "bots" / "current" / "bot.py")
    assert output(bwrap, [sys.executable, given], tmp_path) == "bot.py ran"


def test_an_argument_naming_the_root_gives_the_bot_no_more_than_its_own(
        bwrap: str, tmp_path: Path) -> None:
    # `/` was bound as the bot's own directory: the whole machine, read-only, and bwrap
    # then failed ("Can't mkdir /run/arena")
    (tmp_path / "bot").mkdir()
    (tmp_path / "secret").write_text("not the bot's")
    (tmp_path / "bot" / "bot.py").write_text(
        SCRIPT + f"print(os.path.exists({str(tmp_path / 'secret')!r}))\n")
    got = output(bwrap, [sys.executable, str(tmp_path / "bot" / "bot.py"), "/"], tmp_path)
    assert got.splitlines() == ["bot.py ran", "False"]


def test_a_hidden_folder_inside_the_bots_own_is_not_a_scratch(
        bwrap: str, tmp_path: Path) -> None:
    # the empty tmpfs over it was writable and unbounded (a bot wrote 1.5 GB there)
    own, run = tmp_path / "bot", tmp_path / "bot" / "run"
    run.mkdir(parents=True)
    (own / "bot.py").write_text(
        SCRIPT + f"try:\n    open({str(run / 'x')!r}, 'w').write('x')\n    print('wrote')\n"
        "except OSError as exc:\n    print(exc.strerror)\n")
    launch = bwrap_launch(bwrap, [sys.executable, str(own / "bot.py")], {}, str(own),
                          endpoint_dir=None, hide=[str(run)], network=False, limits=Limits())
    assert sandboxed_output(launch).splitlines() == ["bot.py ran", "Read-only file system"]
    assert not (run / "x").exists()


def test_a_program_given_with_dot_dot_starts(bwrap: str, tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "bot" / "bot.py").write_text(SCRIPT)
    given = str(tmp_path / "elsewhere" / ".." / "bot" / "bot.py")
    assert output(bwrap, [sys.executable, given], tmp_path) == "bot.py ran"


def test_a_venv_interpreter_given_with_dot_dot_keeps_its_environment(
        bwrap: str, tmp_path: Path) -> None:
    root = tmp_path / "bot" / ".venv"
    venv.create(root, with_pip=False, symlinks=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (root / "lib" / version / "site-packages" / "venv_marker.py").write_text("WHERE = 1\n")
    (tmp_path / "bench").mkdir()
    python = os.path.join(tmp_path, "bench", "..", "bot", ".venv", "bin", "python")
    probe = "import venv_marker, sys; print(sys.prefix)"
    assert output(bwrap, [python, "-c", probe], tmp_path) == str(root)


def test_a_bare_file_name_is_found_without_a_cwd(bwrap: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a cwd (`arena play`, `check-bot` without --cwd) the sandbox starts a bot in
    its private /tmp: `python bot.py` from the bot's directory still finds bot.py (a bot
    author's first command, in Node found failing: `Cannot find module '/tmp/bot.js'`)."""
    (tmp_path / "bot.py").write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)
    launch = bwrap_launch(bwrap, [sys.executable, "bot.py"], {}, None, endpoint_dir=None,
                          hide=[], network=False, limits=Limits())
    assert sandboxed_output(launch) == "bot.py ran"


def test_other_bare_names_stay_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a file's bare name after the program, and only without a cwd, becomes a path:
    not a package's directory (`-m pkg` names a module), not an option, not a name that is
    no file here, and nothing when the bot runs in a cwd of its own (names work there)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "bot.py").write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)

    def bot_argv(argv: list[str], cwd: str | None) -> list[str]:
        args = bwrap_launch("bwrap", argv, {}, cwd, endpoint_dir=None, hide=[], network=False,
                            limits=Limits()).argv
        return args[args.index("--") + 1:]

    given = [sys.executable, "-m", "pkg", "--level", "fast", "bot.py"]
    assert bot_argv(given, None) == [*given[:-1], str(tmp_path / "bot.py")]
    assert bot_argv(given, str(tmp_path)) == given


def test_a_bot_inside_another_bots_directory_sees_its_own_alone(
        bwrap: str, tmp_path: Path) -> None:
    # run from a folder holding both, with its program inside the other bot's directory:
    # that directory was left unmasked, whole, since the bot's own lay in it
    top, other, own = tmp_path / "top", tmp_path / "top" / "other", \
        tmp_path / "top" / "other" / "nested"
    own.mkdir(parents=True)
    (other / "strategy.txt").write_text("the other bot's")
    (own / "bot.py").write_text(
        SCRIPT + f"print(os.path.exists({str(other / 'strategy.txt')!r}))\n")
    launch = bwrap_launch(bwrap, [sys.executable, str(own / "bot.py")], {}, str(top),
                          endpoint_dir=None, hide=[str(other)], network=False,
                          limits=Limits())
    assert sandboxed_output(launch).splitlines() == ["bot.py ran", "False"]
