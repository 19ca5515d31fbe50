"""The report's plots, as SVG made by pygal (no hand-drawn paths, no script, no web font).

Each chart is rendered without pygal's tooltip script (it would be loaded from the web) so
that a report opens offline; every value is also in the SVG as a `<desc class="value">`,
which the browser tests read back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pygal
from pygal.style import Style

from arena.tournament.standings import Standings

STYLE = Style(background="transparent", plot_background="transparent",
              font_family="system-ui, sans-serif", colors=("#3b6ea8", "#c0504d", "#4f9a55",
                                                           "#8064a2", "#d08a2c", "#2c9ab0"))


def _inline(chart: Any, name: str) -> str:
    """Return the chart's SVG for inlining in a page: its random id replaced by `name` and
    the XML declaration and comments (one dated) dropped, so a rebuilt page is the same."""
    chart.setup()
    chart.uuid = name
    svg = str(chart.render(is_unicode=True))
    return re.sub(r"<\?xml[^>]*\?>|<!--.*?-->", "", svg, flags=re.S)


@dataclass(frozen=True, slots=True)
class Point:
    """One rating with its 95% interval (half-width), for a plot."""

    label: str
    rating: float
    interval: float | None


def ratings_chart(table: Standings) -> str | None:
    """Return the batch ratings with their 95% intervals as an SVG document (best on top),
    or None when the table has no fit (too few games)."""
    points = [Point(r.bot, r.fit_elo, r.interval) for r in table.rows if r.fit_elo is not None]
    if not points:
        return None
    low = min(p.rating - (p.interval or 0) for p in points)
    high = max(p.rating + (p.interval or 0) for p in points)
    pad = max(25.0, (high - low) * 0.05)
    chart = pygal.HorizontalBar(
        js=[], style=STYLE, show_legend=False, width=800, height=120 + 36 * len(points),
        range=(round(low - pad), round(high + pad)), title="Rating (Elo scale) with 95% interval",
        print_values=False, margin=10, truncate_label=40, zero=round(low - pad))
    # pygal lays the first label at the bottom: reversed, the best is on top as in the table
    ordered = list(reversed(points))
    chart.x_labels = [p.label for p in ordered]
    chart.add("rating", [_value(p) for p in ordered])
    return _inline(chart, "ratings")


def _value(point: Point) -> dict[str, object]:
    value: dict[str, object] = {"value": round(point.rating, 1), "label": point.label}
    if point.interval is not None:
        value["ci"] = {"low": point.rating - point.interval,
                       "high": point.rating + point.interval}
    return value


@dataclass(frozen=True, slots=True)
class Series:
    """One bot's rating over time, and where a new version of it started."""

    bot: str
    points: Sequence[tuple[float, float, float | None]]
    """(x, rating, interval) with x the snapshot's position (time or index)."""
    versions: Sequence[tuple[float, str]] = ()
    """(x, version) where the bot's version changed."""


def history_chart(series: Sequence[Series], x_title: str) -> str | None:
    """Return ratings over time with their 95% intervals, a new version marked by a large
    dot labelled with it, as an SVG document; None when there is nothing to plot."""
    xs = sorted({x for line in series for x, _, _ in line.points})
    if not xs:
        return None
    spans = [(y - (i or 0), y + (i or 0)) for line in series for _, y, i in line.points]
    low, high = min(a for a, _ in spans), max(b for _, b in spans)
    pad = max(10.0, (high - low) * 0.05)
    chart = pygal.Line(js=[], style=STYLE, width=900, height=420, dots_size=2,
                       range=(round(low - pad), round(high + pad)),
                       title="Rating history (Elo scale) with 95% intervals", x_title=x_title,
                       legend_at_bottom=True, truncate_legend=30, allow_interruptions=True,
                       x_labels=[f"{x:g}" for x in xs])
    for line in series:
        at = {x: (y, i) for x, y, i in line.points}
        chart.add(line.bot, [_history_value(*at[x]) if x in at else None for x in xs])
    for line in series:
        if line.versions:
            rating = {x: y for x, y, _ in line.points}
            marks = {x: version for x, version in line.versions}
            chart.add(f"{line.bot}: new version",
                      [{"value": round(rating[x], 1), "label": marks[x]}
                       if x in marks and x in rating else None for x in xs],
                      stroke=False, dots_size=6)
    return _inline(chart, "history")


def _history_value(rating: float, interval: float | None) -> dict[str, object]:
    value: dict[str, object] = {"value": round(rating, 1)}
    if interval:
        value["ci"] = {"low": rating - interval, "high": rating + interval}
    return value
