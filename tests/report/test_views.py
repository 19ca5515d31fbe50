"""The viewer's data: each view is what the game's own observation gives that seat (or what
every seat sees alike), and a seat's data holds nothing another seat kept secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.core.game import Json
from arena.games import REGISTRY
from arena.referee.replay import Replay, read_replay
from arena.referee.review import engine_for, resimulate
from arena.report.viewdata import read_view, unpack
from arena.report.views import PUBLIC, Moment, build_views, moments, public_keys


def replays(run: Path) -> list[Replay]:
    return [read_replay(p) for p in sorted((run / "replays").glob("*.jsonl"))]


def merged(view: dict[str, Json]) -> list[dict[str, Json]]:
    """The whole state at every frame, as the viewer merges the frames' changes."""
    out: list[dict[str, Json]] = []
    state: dict[str, Json] = {}
    for frame in view["frames"]:
        state = {**state, **frame["state"]}
        out.append(state)
    return out


def observations(replay: Replay, seat: int) -> list[dict[str, Json]]:
    """What re-simulating the replay gives `seat` at the deal and after every decision."""
    game = engine_for(replay, REGISTRY)
    header: dict[str, Any] = replay.header
    state = game.new_game(header["players"], header["rules"], header["seed"])
    return [game.observation(state, seat),
            *(game.observation(item.after, seat) for item in resimulate(replay, game))]


def test_each_seat_view_is_that_seats_observation_at_every_frame(finished_run: Path) -> None:
    for replay in replays(finished_run):
        views = build_views(replay, engine_for(replay, REGISTRY))
        for seat in range(int(replay.header["players"])):
            assert merged(views[f"seat{seat}"]) == observations(replay, seat)


def test_the_public_view_is_what_every_seat_sees_alike(finished_run: Path) -> None:
    for replay in replays(finished_run):
        game = engine_for(replay, REGISTRY)
        shared = public_keys(moments(replay, game))
        assert "hand" not in shared and "seat" not in shared
        assert {"hand_sizes"} <= set(shared)
        public = merged(build_views(replay, game)[PUBLIC])
        seat0 = observations(replay, 0)
        assert public == [{k: obs[k] for k in shared} for obs in seat0]


def every_seat_alike(frames: list[Moment]) -> list[str]:
    """The public keys by their definition: frame 0's keys whose value every seat shares at
    every frame (a key a seat lacks reads as None)."""
    return [k for k in frames[0].observations[0]
            if all(len({json.dumps(o.get(k)) for o in m.observations}) == 1 for m in frames)]


def test_public_keys_compare_again_only_what_changed_and_are_those_alike(
        finished_run: Path) -> None:
    for replay in replays(finished_run):
        frames = moments(replay, engine_for(replay, REGISTRY))
        assert public_keys(frames) == every_seat_alike(frames)


def test_a_key_one_seat_changes_or_drops_is_no_longer_public() -> None:
    def frame(*observations: dict[str, Json]) -> Moment:
        return Moment(None, observations)

    same = {"a": 1, "b": [1], "c": 1}
    frames = [frame(same, same, same),
              frame({**same, "b": [2]}, {**same, "b": [2]}, {**same, "b": [2]}),  # all alike
              frame({**same, "b": [2]}, {**same, "b": [2], "a": 2}, {**same, "b": [2]}),
              frame({**same, "b": [2]}, {"a": 2, "b": [2]}, {**same, "b": [2]})]  # c dropped
    assert public_keys(frames) == every_seat_alike(frames) == ["b"]
    assert public_keys(frames[:3]) == every_seat_alike(frames[:3]) == ["b", "c"]


def compact(value: Json) -> str:
    return json.dumps(value, separators=(",", ":"))


def secrets_of(replay: Replay, seat: int, other: int) -> list[str]:
    """Texts that `seat` knows and the game never shows `other`: its private events, its
    hands of five cards or more (an ordered list that long cannot turn up elsewhere by
    chance) unless the rules hand them over (a Magician's swap), and the game seed."""
    events = [e for step in replay.steps for e in step["events"]]
    shown = "".join([*map(compact, observations(replay, other)),
                     *(compact(e["event"]) for e in events
                       if e["visible_to"] is None or other in e["visible_to"])])
    out = {compact(e["event"]) for e in events if e["visible_to"] == [seat]}
    out |= {compact(obs["hand"]) for obs in observations(replay, seat)
            if len(obs["hand"]) >= 5 and compact(obs["hand"]) not in shown}
    return sorted(out | {str(replay.header["seed"])})


def test_seat_0s_data_holds_none_of_seat_1s_secrets(finished_run: Path) -> None:
    checked = 0
    for replay in replays(finished_run):
        key = Path(str(replay.outcome["record"]["replay"])).stem  # type: ignore[index]
        folder = finished_run / "report" / "data" / key
        texts = {name: compact(unpack((folder / f"{name}.js").read_text()))
                 for name in ("public", "seat0", "seat1")}
        secrets = secrets_of(replay, 1, 0)
        assert len(secrets) > 10  # private draws and hands: the check has something to find
        for secret in secrets:
            assert secret not in texts["seat0"], f"seat 1's {secret} is in seat 0's data"
            assert secret not in texts["public"], f"seat 1's {secret} is in the public data"
        # the same search finds seat 1's hands and private events in its own view
        assert sum(s in texts["seat1"] for s in secrets) >= len(secrets) - 1
        checked += 1
    assert checked == 4


def test_actions_and_fault_details_reach_only_their_own_seat(finished_run: Path) -> None:
    for replay in replays(finished_run)[:1]:
        views = build_views(replay, engine_for(replay, REGISTRY))
        assert all("action" not in f for f in views[PUBLIC]["frames"])
        for frame in views["seat0"]["frames"]:
            assert ("action" in frame) == (frame["seat"] == 0)


def test_a_seat_file_is_what_the_seat_adds_to_the_public_view_and_makes_it_whole(
        finished_run: Path) -> None:
    for replay in replays(finished_run):
        key = Path(str(replay.outcome["record"]["replay"])).stem  # type: ignore[index]
        folder = finished_run / "report" / "data" / key
        views = build_views(replay, engine_for(replay, REGISTRY))
        for name, view in views.items():
            assert read_view(folder, name) == view, f"{key}: {name} does not come back whole"
        stored = unpack((folder / "seat0.js").read_text())
        # the public part is not stored again: no header, and no public event list repeated
        assert stored["base"] == PUBLIC and "header" not in stored
        public_events = [f["events"] for f in views[PUBLIC]["frames"]]
        assert any(f["events"] for f in views[PUBLIC]["frames"])
        assert all("events" not in own or own["events"] != events
                   for own, events in zip(stored["frames"], public_events, strict=True))

