"""A Python sample bot that first writes the cores it may run on to its log (stderr), for
tests/tournament/test_pinned_workers.py. Run as `python affinity_bot.py BOT_SCRIPT`."""

import os
import runpy
import sys

print(f"cores: {sorted(os.sched_getaffinity(0))}", file=sys.stderr, flush=True)
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
