"""Time from `mnemex serve` process start to its `initialize` reply and to its first search
result, cold and warm; and a CLI search with no daemon running, then again.

    python benchmarks/startup.py [--runs 3]

Each run makes a temporary MNEMEX_DATA_DIR holding a few memories (added through a daemon that
is then stopped, untimed), then times:
- serve cold: no daemon runs (the relay answers initialize itself while it starts one);
  the first `tools/call search_memory` waits for the daemon, its model and its store.
- serve warm: the daemon the cold run started still runs.
- cli search cold: `mnemex search` with no daemon running; cli search again: the same command
  right after it (with a daemon left running by the first, if the CLI starts one).
Stops every daemon it started. mnemex's modules are compiled to bytecode first (untimed), as an
installed package has them.
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
SEARCH = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "search_memory", "arguments": {"query": "which port does the API server listen on"}}}
SEED = ["The API server listens on port 8080", "We deploy with ArgoCD from the main branch",
        "Use pnpm, not npm, in every workspace of the monorepo"]


def mnemex(*args: str) -> list[str]:
    return [sys.executable, "-m", "mnemex", *args]


def serve_run(env: dict[str, str]) -> tuple[float, float]:
    """(ms to the initialize reply, ms to the first search result) from process start."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(mnemex("serve"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin and proc.stdout
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    json.loads(proc.stdout.readline())
    init_ms = (time.perf_counter() - t0) * 1000
    for msg in ({"jsonrpc": "2.0", "method": "notifications/initialized"}, SEARCH):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    search_ms = (time.perf_counter() - t0) * 1000
    if reply.get("id") != 2 or "result" not in reply or reply["result"].get("isError"):
        raise SystemExit(f"search failed: {reply}")
    proc.stdin.close()
    proc.wait(timeout=30)
    return init_ms, search_ms


def cli_run(env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(mnemex("search", "which port does the API server listen on"), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def stop(env: dict[str, str]) -> None:
    subprocess.run(mnemex("daemon", "stop"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def one_store(runs: int) -> dict[str, list[float]]:
    rows: dict[str, list[float]] = {k: [] for k in ("init cold", "init warm", "search cold", "search warm",
                                                    "cli cold", "cli again")}
    for _ in range(runs):
        data = tempfile.mkdtemp()
        cfg = os.path.join(data, "empty.toml")
        open(cfg, "w").close()
        env = {**os.environ, "MNEMEX_DATA_DIR": data, "MNEMEX_CONFIG": cfg}
        try:
            subprocess.run(mnemex("daemon", "start"), env=env, check=True, stdout=subprocess.DEVNULL)
            for text in SEED:
                subprocess.run(mnemex("add", text), env=env, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            stop(env)
            init, search = serve_run(env)
            rows["init cold"].append(init)
            rows["search cold"].append(search)
            init, search = serve_run(env)
            rows["init warm"].append(init)
            rows["search warm"].append(search)
            stop(env)
            rows["cli cold"].append(cli_run(env))
            rows["cli again"].append(cli_run(env))
        finally:
            stop(env)
            shutil.rmtree(data, ignore_errors=True)
    return rows


def compile_bytecode() -> None:
    """Compile mnemex's modules first, as `pip install` does: an editable checkout without fresh
    bytecode compiles every changed module at each start (~0.3-0.5 s of a cold start here), and
    PYTHONDONTWRITEBYTECODE would keep it that way."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("mnemex")
    if spec and spec.submodule_search_locations:
        for path in spec.submodule_search_locations:
            compileall.compile_dir(path, quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    compile_bytecode()
    load_before = os.getloadavg()[0]
    rows = one_store(args.runs)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print("| start | runs | initialize reply, median (ms) | first search result, median (ms) |")
    print("|---|---:|---:|---:|")
    for name in ("cold", "warm"):
        print(f"| serve, {name} | {args.runs} | {med['init ' + name]:.0f} | {med['search ' + name]:.0f} |")
    print(f"| `mnemex search`, no daemon running | {args.runs} | - | {med['cli cold']:.0f} |")
    print(f"| `mnemex search` again | {args.runs} | - | {med['cli again']:.0f} |")
    # on a shared machine the figures scale with its load: say what it was
    print(f"\nload average (1 min) before / after: {load_before:.1f} / {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
