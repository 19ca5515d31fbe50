"""The static HTML report of a tournament and the replay viewer, built from the store and
the replays only (`arena report`, `arena view`).

Modules: data (what a run directory holds), tables (rows for the templates), plots (SVG by
pygal), views (a replay as one filtered data set per view), viewdata (writing a game's view
files once per replay, also from `arena run`'s workers), catalogue (cards from the
games' own data), site (writing pages and assets). Templates and assets ship
in this package, so a report opens offline from `file://`.
"""
