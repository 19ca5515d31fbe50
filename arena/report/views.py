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

A seat's view is stored as what it adds to the public view (`stored_views`: its own state
keys, the events only it sees, its actions and fault details), the viewer laying it over
the public view (`overlay`): the public part, the same in every view, is stored once a game
instead of once per view, which makes a game's view data about three times smaller. The
public view holds no secret, so a seat's data still holds nothing of another seat's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
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


def changes(frames: Sequence[Moment], seat: int) -> list[dict[str, Json]]:
    """Return, frame by frame, the keys of `seat`'s observation whose value changed since the
    frame before (every key at the deal), with their new values."""
    out: list[dict[str, Json]] = []
    previous: dict[str, Json] = {}
    for moment in frames:
        observed = moment.observations[seat]
        out.append({k: v for k, v in observed.items() if k not in previous or previous[k] != v})
        previous = observed
    return out


def public_keys(frames: Sequence[Moment],
                changed: Sequence[Sequence[Mapping[str, Json]]] | None = None) -> list[str]:
    """Return the observation keys whose value is the same for every seat in every frame.

    `changed` is each seat's `changes` (computed here when not given): a key that no seat's
    observation changed at a frame keeps the values it had, equal if they were, so only the
    keys some seat changed are compared again (a frame whose keys differ from the frame
    before is compared whole).
    """
    if not frames:
        return []
    seats = range(len(frames[0].observations))
    if changed is None:
        changed = [changes(frames, seat) for seat in seats]
    keys = list(frames[0].observations[0])
    public = set(keys)
    before: Sequence[Mapping[str, Json]] = ()
    for n, moment in enumerate(frames):
        first, *others = observations = moment.observations
        suspects: Iterable[str] = public
        if n and all(now.keys() == then.keys()
                     for now, then in zip(observations, before, strict=True)):
            suspects = public.intersection(chain.from_iterable(seat[n] for seat in changed))
        public -= {k for k in suspects
                   if any(other.get(k) != first.get(k) for other in others)}
        before = observations
    return [k for k in keys if k in public]


def build_views(replay: Replay, game: Game[Any, Any]) -> dict[str, dict[str, Json]]:
    """Return the viewer's data for every view of one game, each whole: `public`, `seat0`,
    `seat1`... (`stored_views`, each seat's laid over the public view).

    Raises:
        ArenaError: the replay does not re-simulate.
    """
    stored = stored_views(replay, game)
    public = stored[PUBLIC]
    return {name: view if name == PUBLIC else overlay(public, view)
            for name, view in stored.items()}


def stored_views(replay: Replay, game: Game[Any, Any]) -> dict[str, dict[str, Json]]:
    """Return the views of one game as they are stored: `public` whole, and for each seat
    (`seat0`, `seat1`...) what it adds to the public view (`overlay` makes it whole).

    A seat's state keys that are public change at the same frames, to the same values, as
    seat 0's, which the public view shows: so what a seat adds is its changes to the other
    keys, found without comparing its state with the public view's.

    Raises:
        ArenaError: the replay does not re-simulate.
    """
    frames = moments(replay, game)
    players = int(replay.header["players"])
    changed = [changes(frames, seat) for seat in range(players)]
    shared = set(public_keys(frames, changed))
    forfeits = _forfeits(replay)
    public = [_frame(moment.step, {k: v for k, v in own.items() if k in shared}, None, forfeits)
              for moment, own in zip(frames, changed[0], strict=True)]
    views: dict[str, dict[str, Json]] = {PUBLIC: {
        "view": PUBLIC, "seat": None, "header": _header(replay), "frames": public,
        "end": _end(replay)}}
    for seat in range(players):
        views[seat_view_name(seat)] = {
            "view": seat_view_name(seat), "seat": seat, "base": PUBLIC,
            "frames": [_added(_frame(moment.step, {}, seat, forfeits), base,
                              {k: v for k, v in own.items() if k not in shared})
                       for moment, own, base in zip(frames, changed[seat], public,
                                                    strict=True)]}
    return views


def _added(frame: dict[str, Json], base: Mapping[str, Json],
           state: dict[str, Json]) -> dict[str, Json]:
    """What a seat's `frame` adds to the public view's `base`: the keys whose value differs
    (its events, action, fault) and its own `state` keys, if any changed."""
    added = {k: v for k, v in frame.items() if k != "state" and base.get(k) != v}
    if state:
        added["state"] = state
    return added


def _forfeits(replay: Replay) -> dict[int, list[Json]]:
    """The forfeits at each decision (0: before the first one)."""
    out: dict[int, list[Json]] = {}
    for line in replay.forfeits:
        out.setdefault(int(line.get("decision", 0)),
                       []).append({"seat": line.get("seat"), "reason": line.get("reason")})
    return out


def overlay(public: Mapping[str, Json], extra: Mapping[str, Json]) -> dict[str, Json]:
    """Return the whole view of a seat from the public view and what the seat adds to it
    (what viewer.js does on load)."""
    frames = [{**base, **own, "state": {**base["state"], **own.get("state", {})}}
              for base, own in zip(public["frames"], extra["frames"], strict=True)]
    return {**public, "view": extra["view"], "seat": extra["seat"], "frames": frames}


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
