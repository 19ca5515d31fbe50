"""`arena check-bot`: a conformance run against one bot, for its author.

Starts the bot as the referee would (`stdio:` bots through the bridge), checks the
handshake, plays a few games against built-in random bots in the same process, sends one
unsolicited `error` to see that the bot carries on, plays the first game again to see that
the bot's actions are the same, then `shutdown`, and reports each check with a hint for each
failure. A failed warning check (`WARNINGS`) is reported but does not fail the bot. Built on
the referee's public pieces (transport, process, `run_game`); the referee itself is not
changed.
"""

from arena.checkbot.checks import (
    BUSY_HINT,
    DIED_HINT,
    DROPPED_HINT,
    HINTS,
    ID_TYPE_HINT,
    INJECT_AT_REQUEST,
    INJECTED_DETAIL,
    QUIT_HINT,
    START_HINT,
    STDIO_CONNECT_HINT,
    WARNINGS,
    CheckId,
    CheckOptions,
    CheckReport,
    CheckResult,
)
from arena.checkbot.run import check_bot

__all__ = ["BUSY_HINT", "DIED_HINT", "DROPPED_HINT", "HINTS", "ID_TYPE_HINT", "INJECTED_DETAIL",
           "INJECT_AT_REQUEST", "QUIT_HINT", "START_HINT", "STDIO_CONNECT_HINT", "WARNINGS",
           "CheckId", "CheckOptions", "CheckReport", "CheckResult", "check_bot"]
