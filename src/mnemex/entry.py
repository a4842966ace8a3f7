"""The `mnemex` command's entry point: `mnemex hook` (run by Claude Code at every tool use) goes
straight to the hook, importing nothing else (no argparse, no settings model); every other
command goes to `mnemex.cli`."""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"] and not {"-h", "--help"} & set(argv):
        return run_hook()
    from mnemex.cli import main as cli_main

    return cli_main(argv)


def run_hook() -> int:
    """`mnemex hook`: one hook event; context from the store's daemon. Always 0."""
    from mnemex.capture.hook import main as hook_main
    from mnemex.private import private_umask

    private_umask()

    def daemon_context():  # imported only by the events that inject (http.client costs ~0.1 s)
        from mnemex.server.hook_context import DaemonContext

        return DaemonContext()

    return hook_main(context_factory=daemon_context)
