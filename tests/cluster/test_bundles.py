"""Bot bundles: named by their content only, unpacked whole or not at all, and the bot's
command rewritten onto the copy; the cluster keys of a tournament file and --cluster."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.errors import ConfigError
from arena.referee.spec import BotSpec
from arena.tournament import bundles
from arena.tournament.bundles import pack, place, unpack, unpacked
from arena.tournament.clusterconf import cluster_problem, local_workers
from arena.tournament.config import parse_config


def bot_dir(tmp_path: Path) -> Path:
    home = tmp_path / "bots" / "mine"
    (home / "lib").mkdir(parents=True)
    (home / "bot.py").write_text("print('hello')\n")
    (home / "lib" / "data.txt").write_text("weights\n")
    (home / "__pycache__").mkdir()
    (home / "__pycache__" / "bot.cpython.pyc").write_bytes(b"\0junk")
    return home


def spec(home: Path, cwd: Path) -> BotSpec:
    return BotSpec("mine", (sys.executable, "-u", str(home / "bot.py"), "--depth", "3"),
                   cwd=str(cwd))


@pytest.mark.parametrize("named", ["bot.py", "./bot.py", "stdio:bot.py"])
def test_a_bot_lying_beside_the_tournament_file_is_refused_in_one_line(
        tmp_path: Path, named: str) -> None:
    """Found by an audit: the file's directory is not packed, so such a bot's script was
    missing on every remote worker and it forfeited every game without a word here."""
    (tmp_path / "bot.py").write_text("print('hello')\n")
    loose = BotSpec("loose", (sys.executable, named), cwd=str(tmp_path))
    with pytest.raises(ConfigError, match="bot 'loose': .*bot.py lies beside the tournament "
                                          "file"):
        pack(loose, default_cwd=tmp_path)
    own = tmp_path / "loose"
    own.mkdir()
    (own / "bot.py").write_text("print('hello')\n")
    moved = pack(BotSpec("loose", (sys.executable, "loose/bot.py"), cwd=str(tmp_path)),
                 default_cwd=tmp_path)
    assert moved is not None and b"print('hello')" in moved.data


def test_the_digest_follows_the_content_not_the_times(tmp_path: Path) -> None:
    home = bot_dir(tmp_path)
    first = pack(spec(home, tmp_path), default_cwd=tmp_path)
    assert first is not None
    os.utime(home / "bot.py", (1, 1))
    (home / "__pycache__" / "bot.cpython.pyc").write_bytes(b"other junk")
    again = pack(spec(home, tmp_path), default_cwd=tmp_path)
    assert again is not None and again.digest == first.digest and again.data == first.data
    (home / "lib" / "data.txt").write_text("new weights\n")
    changed = pack(spec(home, tmp_path), default_cwd=tmp_path)
    assert changed is not None and changed.digest != first.digest
    os.chmod(home / "bot.py", 0o755)
    executable = pack(spec(home, tmp_path), default_cwd=tmp_path)
    assert executable is not None and executable.digest != changed.digest


def test_the_file_directory_is_not_packed_but_a_cwd_of_its_own_is(tmp_path: Path) -> None:
    home = bot_dir(tmp_path)
    (tmp_path / "unrelated.bin").write_bytes(b"x" * 1000)
    only_program = pack(spec(home, tmp_path), default_cwd=tmp_path)
    assert only_program is not None and b"unrelated" not in only_program.data
    with_cwd = pack(spec(home, tmp_path), default_cwd=None)
    assert with_cwd is not None and b"unrelated" in with_cwd.data


def test_a_bot_runs_from_its_unpacked_copy(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bundles.CACHE_ENV, str(tmp_path / "cache"))
    home = bot_dir(tmp_path)
    bundle = pack(spec(home, home), default_cwd=tmp_path)
    assert bundle is not None and unpacked(bundle.digest) is None
    copy = unpack(bundle.digest, bundle.data)
    assert unpacked(bundle.digest) == copy
    placed = place(spec(home, home), bundle.placed, copy)
    assert placed.cmd == (sys.executable, "-u", str(copy / "0" / "bot.py"), "--depth", "3")
    assert placed.cwd == str(copy / "0")
    assert (copy / "0" / "lib" / "data.txt").read_text() == "weights\n"
    assert not (copy / "0" / "__pycache__").exists()


def test_links_travel_as_what_they_point_to(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bundles.CACHE_ENV, str(tmp_path / "cache"))
    home = bot_dir(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "table.txt").write_text("opening book\n")
    (home / "book").symlink_to(shared)
    (home / "same").symlink_to(home / "lib")  # the same directory twice
    (home / "lib" / "up").symlink_to(home)  # a cycle
    (home / "gone").symlink_to(tmp_path / "nowhere")
    bundle = pack(spec(home, home), default_cwd=tmp_path)
    assert bundle is not None
    copy = unpack(bundle.digest, bundle.data) / "0"
    assert (copy / "book" / "table.txt").read_text() == "opening book\n"
    assert not (copy / "book").is_symlink()
    assert (copy / "lib" / "data.txt").is_file() and (copy / "same" / "data.txt").is_file()
    assert not (copy / "gone").exists() and not (copy / "lib" / "up").exists()


def test_a_compiled_bot_named_by_its_path_travels(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bundles.CACHE_ENV, str(tmp_path / "cache"))
    binary = tmp_path / "bots" / "c" / "bin" / "bot"
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"\x7fELF not really")
    binary.chmod(0o755)
    bot = BotSpec("c", ("bots/c/bin/bot", "--fast"), cwd=str(tmp_path))
    bundle = pack(bot, default_cwd=tmp_path)
    assert bundle is not None
    copy = unpack(bundle.digest, bundle.data)
    placed = place(bot, bundle.placed, copy)
    assert placed.cmd == (str(copy / "0" / "bot"), "--fast")
    assert os.access(placed.cmd[0], os.X_OK)


def test_a_damaged_bundle_is_refused_and_leaves_nothing(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bundles.CACHE_ENV, str(tmp_path / "cache"))
    bundle = pack(spec(bot_dir(tmp_path), tmp_path), default_cwd=tmp_path)
    assert bundle is not None
    with pytest.raises(ValueError, match="damaged"):
        unpack(bundle.digest, bundle.data[:-10] + b"0123456789")
    assert unpacked(bundle.digest) is None


def test_an_unwritable_cache_is_an_error_not_a_loop(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv(bundles.CACHE_ENV, str(tmp_path / "file" / "cache"))
    bundle = pack(spec(bot_dir(tmp_path), tmp_path), default_cwd=tmp_path)
    assert bundle is not None
    with pytest.raises(OSError):
        unpack(bundle.digest, bundle.data)


def test_builtins_have_no_bundle_and_a_huge_bot_is_refused(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert pack(BotSpec("r", ("builtin:random",))) is None
    monkeypatch.setattr(bundles, "MAX_BUNDLE_BYTES", 10)
    with pytest.raises(ConfigError, match="too large to send as a bundle.*bot_files: shared"):
        pack(spec(bot_dir(tmp_path), tmp_path), default_cwd=tmp_path)


@pytest.mark.parametrize("address", ["local", "local:3", "tcp://10.0.0.5:8786",
                                     "tls://sched.example.org:8786", "sched:8786",
                                     "tcp://[::1]:8786"])
def test_cluster_addresses_accepted(address: str) -> None:
    assert cluster_problem(address) is None


@pytest.mark.parametrize("address", ["local:0", "local:x", "http://x:1", "nohost", "tcp://x",
                                     "sched:99999", "tcp://sched:0"])
def test_cluster_addresses_refused(address: str) -> None:
    assert cluster_problem(address) is not None


@pytest.mark.parametrize(("address", "workers"), [
    ("local", 0), ("local:3", 3), ("localhost:2", None), ("local.example.org:8786", None),
    ("tcp://local:8786", None)])
def test_only_local_and_local_n_start_a_cluster_here(address: str, workers: int | None) -> None:
    """A scheduler on a host whose name starts with "local" is a scheduler's address."""
    assert cluster_problem(address) is None
    assert local_workers(address) == workers


BASE = "name: t\ngame: machiavelli\nplayers_per_game: 2\nbots:\n" \
       "  - {name: a, cmd: 'builtin:random'}\n  - {name: b, cmd: 'builtin:random'}\n"


def test_the_file_names_the_cluster_and_it_changes_no_fingerprint() -> None:
    plain = parse_config(BASE)
    on = parse_config("executor: dask\ncluster: tls://h:8786\nbot_files: shared\n" + BASE)
    assert plain.cluster is None and plain.bot_files == "bundle"
    assert on.cluster == "tls://h:8786" and on.bot_files == "shared"
    assert on.fingerprint == plain.fingerprint
    assert parse_config("executor: dask\n" + BASE).cluster == "local"


def test_bad_cluster_keys_are_reported_with_their_lines() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("executor: dusk\ncluster: 'nowhere'\nbot_files: copied\n" + BASE, "t.yaml")
    text = "\n".join(caught.value.problems)
    assert "t.yaml:1: executor 'dusk' is not one of local, dask" in text
    assert "t.yaml:2: 'nowhere' is not a cluster address" in text
    assert "t.yaml:3: bot_files 'copied' is not one of bundle, shared" in text


def test_cli_refuses_a_bad_cluster_address(runner: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(BASE)
    result = runner.invoke(main, ["run", str(file), "--cluster", "local:0"])
    assert result.exit_code == 2
    assert "local:N needs 1 <= N <= 1024" in result.output
    assert "Traceback" not in result.output


def test_an_unreachable_scheduler_is_one_line(runner: CliRunner, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournament import cluster_connect

    monkeypatch.setattr(cluster_connect, "CONNECT_S", 1)
    # port 1 on loopback: nothing listens there
    output = _refused_cluster(runner, tmp_path, "tcp://127.0.0.1:1")
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in output


def _refused_cluster(runner: CliRunner, tmp_path: Path, address: str) -> str:
    """Run BASE on the cluster at `address`, which fails in one line; return its output."""
    file = tmp_path / "t.yaml"
    file.write_text(BASE)
    result = runner.invoke(main, ["run", str(file), "--out", str(tmp_path / "out"),
                                  "--cluster", address])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


def test_tls_without_a_certificate_is_one_line(runner: CliRunner, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("CA_FILE", "CLIENT__CERT", "CLIENT__KEY"):
        monkeypatch.delenv(f"DASK_DISTRIBUTED__COMM__TLS__{key}", raising=False)
    assert "tls:// needs this machine's certificate" in _refused_cluster(
        runner, tmp_path, "tls://127.0.0.1:1")


def test_an_unknown_scheduler_host_is_said_at_once(runner: CliRunner, tmp_path: Path) -> None:
    output = _refused_cluster(runner, tmp_path, "tcp://nohost.invalid:8786")
    assert "cannot reach the Dask scheduler at tcp://nohost.invalid:8786: its host name " \
           "cannot be looked up" in output
    assert "Timed out" not in output


def test_a_directory_that_cannot_be_listed_is_refused_not_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by an audit: os.walk's errors were swallowed, so such a directory was missing
    from the bundle, and so on every worker (root can list any directory: a refusal is
    made here by the listing itself)."""
    home = bot_dir(tmp_path)
    listing = os.scandir

    def refuse(path: Any) -> Any:
        if str(path).endswith("lib"):
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", refuse)
    with pytest.raises(ConfigError, match="bot 'mine': cannot pack .*lib: Permission denied"):
        pack(spec(home, tmp_path), default_cwd=tmp_path)


def test_a_bots_content_digest_follows_its_files_not_the_runs_beside_them(
        tmp_path: Path) -> None:
    # `arena compare` resumes only with the same files; its default runs/ lies in the
    # directory it starts from, often the bot's own, and each game changed that
    home = bot_dir(tmp_path)
    bot = BotSpec("mine", (sys.executable, str(home / "bot.py")))
    first = bundles.content_digest(bot)
    run = home / "runs" / "compare-a-vs-b"
    run.mkdir(parents=True)
    (run / "results.sqlite").write_bytes(b"a database")
    (run / "replays").mkdir()
    (run / "replays" / "r1.jsonl").write_text("{}\n")
    assert bundles.content_digest(bot) == first
    (home / "lib" / "data.txt").write_text("other weights\n")
    assert bundles.content_digest(bot) != first
    assert bundles.content_digest(BotSpec("b", ("builtin:random",))) == ""
