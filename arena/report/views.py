"""What the replay viewer shows: a replay turned into one data set per view.

A replay holds everything, every seat's hand and the deck order included, so the viewer
never gets it. For each view (the public view, and each seat's) this module re-simulates
the game with its engine and keeps, frame by frame, only what that view may know:

- a seat's state is the game's own `observation(state, seat)`, the one function per game
  that filters hidden information; nothing here filters a game's state by hand;
- the public state is the part of the observation that is the same for every seat at every
  frame of the game (a key that ever differs between seats, such as a hand or one's own
  characters, is someone's secret, and the public view drops it for the whole game);
- events are kept where their `visible_to` allows; a seat sees its own actions and the
  details of its own faults, the others only that a fault of that kind happened.

The game seed never goes into a view: with it, anyone could deal the game again. Frames
store only the state keys that changed since the frame before (the viewer merges them
back), which keeps a game's views a few times smaller than its replay.

A seat's view is stored as what it adds to the public view (`difference`: its own state
keys, the events only it sees, its actions and fault details), the viewer laying it over
the public view (`overlay`): the public part, the same in every view, is stored once a game
instead of once per view, which makes a game's view data about three times smaller. The
public view holds no secret, so a seat's data still holds nothing of another seat's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.core.game import Game, Json
from arena.referee.replay import Replay
from arena.referee.review import resimulate

PUBLIC = "public"


def seat_view_name(seat: int) -> str:
    """Return the file name (without extension) of a seat's view."""
    return f"seat{seat}"


@dataclass(frozen=True, slots=True)
class Moment:
    """One frame before filtering: the step that led to it and every seat's observation."""

    step: Mapping[str, Json] | None
    """The replay's decision line (None for the deal, before any decision)."""
    observations: tuple[dict[str, Json], ...]
    """The observation of each seat after the step."""


def moments(replay: Replay, game: Game[Any, Any]) -> list[Moment]:
    """Return the deal and every decision of the replay, each with all seats' observations.

    Raises:
        ArenaError: a recorded action does not apply (names the decision).
    """
    header = replay.header
    players = int(header["players"])
    start = game.new_game(players, header["rules"], int(header["seed"]))
    out = [Moment(None, tuple(game.observation(start, s) for s in range(players)))]
    for item in resimulate(replay, game, copies=False):
        if item.decision is None:
            break
        out.append(Moment(item.step, tuple(game.observation(item.after, s)
                                           for s in range(players))))
    return out


def public_keys(frames: Sequence[Moment]) -> list[str]:
    """Return the observation keys whose value is the same for every seat in every frame."""
    keys = list(frames[0].observations[0]) if frames else []
    # one pass per frame over the keys still public, not one generator per key
    public = set(keys)
    for moment in frames:
        first, *others = moment.observations
        for other in others:
            public = {k for k in public if other.get(k) == first.get(k)}
    return [k for k in keys if k in public]


def build_views(replay: Replay, game: Game[Any, Any]) -> dict[str, dict[str, Json]]:
    """Return the viewer's data for every view of one game: `public`, `seat0`, `seat1`...

    Raises:
        ArenaError: the replay does not re-simulate.
    """
    frames = moments(replay, game)
    shared = public_keys(frames)
    players = int(replay.header["players"])
    forfeits: dict[int, list[Json]] = {}
    for line in replay.forfeits:
        forfeits.setdefault(int(line.get("decision", 0)),
                            []).append({"seat": line.get("seat"), "reason": line.get("reason")})
    views = {PUBLIC: _view(replay, frames, None, shared, forfeits)}
    for seat in range(players):
        views[seat_view_name(seat)] = _view(replay, frames, seat, shared, forfeits)
    return views


def difference(public: Mapping[str, Json], view: Mapping[str, Json]) -> dict[str, Json]:
    """Return what a seat's `view` adds to the `public` view of the same game, frame by
    frame: the frame's keys whose value differs (its events, action, fault) and the state
    keys that differ or that the public view lacks; `overlay` makes the view again."""
    frames: list[Json] = []
    for base, own in zip(public["frames"], view["frames"], strict=True):
        extra = {k: v for k, v in own.items() if k != "state" and base.get(k) != v}
        state = {k: v for k, v in own["state"].items()
                 if k not in base["state"] or base["state"][k] != v}
        if state:
            extra["state"] = state
        frames.append(extra)
    return {"view": view["view"], "seat": view["seat"], "base": PUBLIC, "frames": frames}


def overlay(public: Mapping[str, Json], extra: Mapping[str, Json]) -> dict[str, Json]:
    """Return the view that `difference` took `extra` from (what viewer.js does on load)."""
    frames = [{**base, **own, "state": {**base["state"], **own.get("state", {})}}
              for base, own in zip(public["frames"], extra["frames"], strict=True)]
    return {**public, "view": extra["view"], "seat": extra["seat"], "frames": frames}


def _view(replay: Replay, frames: Sequence[Moment], seat: int | None, shared: Sequence[str],
          forfeits: Mapping[int, list[Json]]) -> dict[str, Json]:
    previous: dict[str, Json] = {}
    out: list[Json] = []
    for moment in frames:
        # the public view reads seat 0's observation, its shared keys only (no copy)
        observed = moment.observations[0 if seat is None else seat]
        keys: Iterable[str] = observed if seat is not None else shared
        changed = {k: observed[k] for k in keys
                   if k not in previous or previous[k] != observed[k]}
        previous = observed
        out.append(_frame(moment.step, changed, seat, forfeits))
    return {"view": PUBLIC if seat is None else seat_view_name(seat), "seat": seat,
            "header": _header(replay), "frames": out, "end": _end(replay)}


def _frame(step: Mapping[str, Json] | None, changed: dict[str, Json], seat: int | None,
           forfeits: Mapping[int, list[Json]]) -> dict[str, Json]:
    if step is None:
        frame: dict[str, Json] = {"n": 0, "seat": None, "kind": "deal", "state": changed,
                                  "events": []}
        if 0 in forfeits:
            frame["forfeits"] = forfeits[0]
        return frame
    actor, n = int(step["seat"]), int(step["n"])
    own = seat == actor
    events = [e["event"] for e in step["events"]
              if e["visible_to"] is None or (seat is not None and seat in e["visible_to"])]
    frame = {"n": n, "seat": actor, "kind": step["kind"],
                              "source": step["source"], "state": changed, "events": events}
    if own:
        frame["action"] = step["action"]
    fault = step.get("fault")
    if isinstance(fault, dict):
        frame["fault"] = fault if own else {"kind": fault.get("kind"), "seat": actor}
    # a forfeit line names the decision it happened at (0: before the first one)
    if n in forfeits:
        frame["forfeits"] = forfeits[n]
    return frame


def _header(replay: Replay) -> dict[str, Json]:
    header = replay.header
    return {"game": header["game"], "players": header["players"], "rules": header["rules"],
            "bots": [{"seat": b.get("seat"), "name": b.get("name"), "version": b.get("version")}
                     for b in header.get("bots", []) if isinstance(b, dict)]}


def _end(replay: Replay) -> dict[str, Json] | None:
    if replay.outcome is None:
        return None
    return {key: replay.outcome.get(key) for key in ("termination", "placings", "scores")}
