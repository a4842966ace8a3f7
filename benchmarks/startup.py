"""Time from `mnemex serve` process start to its `initialize` reply, cold and warm.

    python benchmarks/startup.py [--runs 5]

Cold: no daemon runs for the store (the relay answers initialize itself while it starts one).
Warm: a daemon already runs. Also times the first tools/list reply (which needs the daemon).
Uses a temporary MNEMEX_DATA_DIR and stops the daemon it started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "startup-bench", "version": "0"}}}


def one_run(env: dict[str, str]) -> tuple[float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mnemex", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin and proc.stdout
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    json.loads(proc.stdout.readline())
    init_ms = (time.perf_counter() - t0) * 1000
    for msg in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    json.loads(proc.stdout.readline())
    list_ms = (time.perf_counter() - t0) * 1000
    proc.stdin.close()
    proc.wait(timeout=30)
    return init_ms, list_ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rows = {"cold": [], "warm": []}
    for _ in range(args.runs):
        data = tempfile.mkdtemp()
        cfg = os.path.join(data, "empty.toml")
        open(cfg, "w").close()
        env = {**os.environ, "MNEMEX_DATA_DIR": data, "MNEMEX_CONFIG": cfg}
        try:
            rows["cold"].append(one_run(env))
            rows["warm"].append(one_run(env))
        finally:
            subprocess.run([sys.executable, "-m", "mnemex", "daemon", "stop"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(data, ignore_errors=True)
    print("| start | runs | initialize reply, median (ms) | first tools/list reply, median (ms) |")
    print("|---|---:|---:|---:|")
    for name, vals in rows.items():
        print(f"| {name} | {len(vals)} | {statistics.median(v[0] for v in vals):.0f} "
              f"| {statistics.median(v[1] for v in vals):.0f} |")


if __name__ == "__main__":
    main()
