"""Swiss rounds of k seats anchored to a resolvable design, so that no meeting repeats.

Where arena builds a perfect resolvable design for the field (`designs.resolvable`: every
pair of bots meets exactly once over its rounds), a Swiss can avoid every repeat for as
many rounds as the design has, but a round chosen greedily can spoil the rounds
after it: 15 bots at tables of 3 run out of new opponents before round 7 in about one
table of five. So each round after the first is chosen such that the rounds played so
far, with it, are parallel classes of one relabelling of the design (the bots placed on
its points): the design's unplayed classes then remain, under that placing, a way to pair
every round left without a repeat. Round 1 needs nothing (any partition into tables is a
class of some placing).

Whether the rounds fit is decided by `placing.embed`, a bounded search for such a
placing, found again from the stored rounds at every round (nothing else is kept, so a
resumed run pairs as an uninterrupted one). Fields too large for the search keep the
placing that round 1 fixes alone (`fixed_round`), which needs no search but offers fewer
rounds to choose from by score.

The round itself is chosen by score as far as that allows (`anchored_round`): among the
unanchored Swiss tables (when they fit) and the design's unplayed classes under a seeded
sample of placings of the played rounds (each placing found by the same search, led by
random preferences: they differ by the relabellings that keep the played rounds, such as
permuting their tables), the one with the lowest Swiss cost (rank distance within
tables) is played. Sampling placings beyond a few, or cutting tables seat by seat from
the ranking under fresh searches, brought the tables no closer in score in simulation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.tournament.grouping import Cost, Met
from arena.tournament.placing import Design, Placing, Tables, design_for, embed

ANCHOR_FIELD, TRIPLES_FIELD = 64, 57
"""Fields of at most `ANCHOR_FIELD` bots are anchored (64: the affine space of order 4 and
the plane of order 8), at tables of 3 of at most `TRIPLES_FIELD`: measured, the Kirkman
systems of 15 to 57 bots had no repeat, but in the one of 63 (built by tripling) the
rounds played were not placed again within the bounds from some round on (68 of 651
tables repeated in one 31-round Swiss, 20 s a round), so it and larger fields take the
placing round 1 fixes (`fixed_round`: no repeat in that Swiss, 2.6 s for all 31 rounds)."""
TRIAL_NODES = 20
"""A candidate round is tried with at most this many assignments per bot (a placing that
fits is found in about one assignment per bot, up to twenty in the less symmetric Kirkman
systems; one that does not fit would search on to the budget)."""
FIXED_FIELD = 300
"""Fields beyond the searched limits above, up to this many bots, are anchored by the
placing that round 1 fixes alone (`fixed_round`): no search, fewer choices by score."""
PLACINGS = 8
"""Placings of the played rounds sampled per round (each searched with the budget of a
candidate): each offers the design's unplayed classes under it as the next round."""


def anchored_round(ranked: Sequence[str], played: Sequence[Tables], cost: Cost, met: Met,
                   rng: random.Random, candidates: Sequence[list[list[str]]] = ()
                   ) -> list[list[str]] | None:
    """Tables for the next round of a Swiss on `ranked` (best first) after the rounds
    `played` that keep every round up to the design's last free of repeats; None where
    the field is not anchored (no design for it, all its rounds played, a field that
    changed, or played rounds that do not fit the design).

    A Swiss of more rounds than the design has is anchored for its first ones: after
    them every pair has met once, so every later table repeats a meeting, as the
    design's own later rounds do; before them none does.

    The options: each of `candidates` (the unanchored Swiss tables, say) that fits, and
    the design's unplayed classes under `PLACINGS` placings of the played rounds (the
    search led by random preferences from `rng`); the one cheapest under `cost` is played.
    """
    size = len(played[0][0]) if played and played[0] else 0
    design = design_for(len(ranked), size) if size and len(ranked) <= FIXED_FIELD else None
    if design is None or len(played) >= design.classes:
        return None
    field = set(ranked)
    for tables in played:
        if (any(len(t) != size for t in tables) or sum(map(len, tables)) != len(field)
                or {b for t in tables for b in t} != field):
            return None
    if len(ranked) > (TRIPLES_FIELD if size == 3 else ANCHOR_FIELD):
        return fixed_round(design, played, cost)
    placing = embed(design, played)
    if placing is None:
        return None
    options: list[list[list[str]]] = []
    for tables in candidates:
        if (all(len(t) == size for t in tables)
                and not any(met(a, b) for t in tables for a in t for b in t if a < b)
                and embed(design, [*played, tables], placing, TRIAL_NODES * len(ranked))):
            options.append([list(t) for t in tables])
    for sample in range(PLACINGS):
        if sample:
            points = list(range(design.points))
            rng.shuffle(points)
            found = embed(design, played, Placing(dict(zip(ranked, points, strict=True)), ()),
                          TRIAL_NODES * len(ranked))
            if found is None:
                continue
            placing = found
        at = {p: b for b, p in placing.point.items()}
        options.extend([[at[p] for p in block] for block in design.members[c]]
                       for c in range(design.classes) if c not in placing.kind)
    return min(options, key=cost.total)


def fixed_round(design: Design, played: Sequence[Tables], cost: Cost) -> list[list[str]] | None:
    """The next round on a field too large for the placing search: the placing is the one
    round 1 fixes alone (its tables, sorted, on the blocks of the design's first class, in
    order, each table's bots sorted on its points), worked out again from the stored round
    1 at every round; the cheapest of the design's classes not played under it is the
    round. None when a played round is not one of its classes (a run paired otherwise)."""
    first = sorted(sorted(t) for t in played[0])
    at = {p: bot for table, block in zip(first, design.members[0], strict=True)
          for bot, p in zip(table, block, strict=True)}
    classes = [[[at[p] for p in block] for block in blocks] for blocks in design.members]
    index = {frozenset(map(frozenset, tables)): c for c, tables in enumerate(classes)}
    done = {index.get(frozenset(map(frozenset, tables))) for tables in played}
    if None in done:
        return None
    options = [tables for c, tables in enumerate(classes) if c not in done]
    return min(options, key=cost.total) if options else None
