"""The Claude Code hook command `mnemex init` writes on POSIX systems:
`<this Python> -S <this file>`. Claude Code starts it at every tool use, so its start is most of
the hook's cost: run as a file without `site` (`-S`, ~5 ms) and without the console script's own
`import re` (~10 ms on a slow core), a tool use handed to the daemon took p50 28 ms against 46
through `mnemex hook` in the same run (benchmarks/capture.py, RESULTS). The directory holding the package goes first on the path (where `site` would have
found it); the hook's own path, taken when no daemon answers, loads `site` first."""

import os
import sys

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:  # the package's own folder
        del sys.path[0]
    sys.path.insert(0, os.path.dirname(here))
    from mnemex.entry import run_hook

    sys.exit(run_hook())
