"""Capture and injection speed, as Claude Code runs the hooks `mnemex init` writes.

    python benchmarks/capture.py [--runs 80] [--events 1000] [--gap 0.25] [--store 100000]

Each hook is a new process: the hook command `mnemex init` writes for this installation (`python
-S .../mnemex/hook_script.py`), the recorded payload on stdin (tests/data/hooks), the answer on
stdout; wall time from spawn to exit. Capture is also timed, in turns with it, through the
console script (`mnemex hook`): the same hook started the usual way. The store holds
the coding-agent set's memories (benchmarks/data/coding_bench.json, 204 memories), or with
`--store N` a copy of `scale.py`'s cached synthetic store of N memories (`scale.py --sizes N` builds it),
the hooks run in its first project and the prompts its queries: hook wall time at 100k.

* floor: `python -c pass`, the interpreter's own start, in the same run (ratios beside times);
* capture: PostToolUse / PostToolUseFailure (Bash, Edit, MultiEdit, Write, Read), no daemon
  running (the hook redacts and spools itself) and then with one running (it hands the use to
  the daemon); hooks `--gap` seconds apart, as an agent's tool uses come;
* injection: SessionStart (a cold start of the daemon once, then warm) and UserPromptSubmit
  with the set's questions as prompts, warm daemon: the context comes from the daemon;
* ingest: `--events` tool events appended to the spool, then ingested by the daemon's Ingester
  in-process (journal rows + tool-event memories, embedded in batches), events/s beside the
  model's own documents/s measured in the same run.

The package is byte-compiled first (an editable install under PYTHONDONTWRITEBYTECODE would
otherwise compile every module at every hook start, which no installed copy does).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "tests" / "data" / "hooks"
CODING = ROOT / "benchmarks" / "data" / "coding_bench.json"
TOOL_PAYLOADS = ("post_tool_use_bash", "post_tool_use_edit", "post_tool_use_read", "post_tool_use_write",
                 "post_tool_use_multiedit", "post_tool_use_failure_bash")


def cpu_name() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return platform.processor() or "unknown CPU"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def summary(name: str, seconds: list[float], floor: float | None = None) -> dict[str, Any]:
    p50, p95 = 1000 * pct(seconds, 0.5), 1000 * pct(seconds, 0.95)
    row = {"what": name, "runs": len(seconds), "p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}
    if floor:
        row["p50_over_floor"] = round(p50 / (1000 * floor), 2)
    return row


def payload(name: str, **changes: Any) -> dict[str, Any]:
    data = json.loads((HOOKS / f"{name}.json").read_text())
    data.update(changes)
    return data


class Hooks:
    """Runs a hook command as Claude Code does, against one scratch store: the command `mnemex
    init` writes for this installation, or (`console=True`) the console script's `mnemex hook`."""

    def __init__(self, env: dict[str, str], project: Path, *, console: bool = False, key: str | None = None):
        from mnemex.clients.launcher import find_launcher

        found = shutil.which("mnemex", path=str(Path(sys.executable).parent))
        launcher = find_launcher(found or "", which=lambda _: None)
        self.argv = [*launcher.argv, "hook"] if console else shlex.split(launcher.hook_command)
        self.env, self.project, self.key = env, project, key or str(project)

    def fire(self, data: dict[str, Any]) -> tuple[float, str]:
        data = {**data, "cwd": self.key}  # the project the hook files under (a path need not exist)
        raw = json.dumps(data).encode()
        start = time.perf_counter()
        done = subprocess.run(self.argv, input=raw, capture_output=True, env=self.env, cwd=self.project, timeout=60)
        took = time.perf_counter() - start
        if done.returncode != 0 or done.stderr.strip():
            raise SystemExit(f"capture benchmark: the hook failed: {done.stderr.decode(errors='replace').strip()}")
        return took, done.stdout.decode()


def timed(argv: list[str], runs: int, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True)
        out.append(time.perf_counter() - start)
    return out


def context_of(answer: str) -> str:
    if not answer.strip():
        return ""
    return json.loads(answer)["hookSpecificOutput"]["additionalContext"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=60, help="hook runs per measurement")
    ap.add_argument("--events", type=int, default=1000, help="tool events for the ingest measurement")
    ap.add_argument("--store", type=int, default=0,
                    help="a copy of scale.py's cached synthetic store of this many memories instead of the coding set")
    ap.add_argument("--gap", type=float, default=0.25,
                    help="seconds between two hooks (an agent's tool uses come seconds apart; back to back, the "
                         "daemon's ingest of the last ones competes for the CPU with the next hook)")
    args = ap.parse_args(argv)

    import mnemex

    if str(ROOT) not in sys.path:  # run as a script: the benchmarks package from this checkout
        sys.path.insert(0, str(ROOT))  # (not through PYTHONPATH: the hooks would inherit it)
    from benchmarks.coding import build
    from mnemex.capture.events import tool_record
    from mnemex.capture.ingest import Ingester
    from mnemex.capture.settings import HookSettings
    from mnemex.capture.spool import Spool
    from mnemex.config import Settings
    from mnemex.engine.factory import build_engine
    from mnemex.server import daemon_client

    compileall.compile_dir(str(Path(mnemex.__file__).parent), quiet=1)
    data = json.loads(CODING.read_text())
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mnemex-capture-bench-") as tmp:
        root = Path(tmp)
        data_dir, project = root / "data", root / "routewise"
        project.mkdir()
        (root / "config.toml").write_text("[capture]\nmax_per_minute = 1000000\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}
        env.update(MNEMEX_DATA_DIR=str(data_dir), MNEMEX_CONFIG=str(root / "config.toml"), HOME=str(root))
        key = str(project)
        if args.store:
            from benchmarks import scale_data

            if not (scale_data.store_dir(args.store) / "build.json").exists():
                raise SystemExit(f"capture benchmark: no cached store of {args.store:,} memories; build it first "
                                 f"with `PYTHONPATH=src:. python benchmarks/scale.py --sizes {args.store}`")
            scale_data.working_copy(args.store, root)  # -> root / "data"
            key = scale_data.PROJECTS[0]
            data = {"cases": [{"query": q} for q in scale_data.queries(max(args.runs, 10))]}
        else:
            data = {**data, "project": str(project)}
            build(data, data_dir).close()
        settings = Settings(data_dir=data_dir)
        hooks, console = Hooks(env, project, key=key), Hooks(env, project, console=True, key=key)

        floor = timed([sys.executable, "-c", "pass"], args.runs, env)
        f50 = pct(floor, 0.5)
        rows.append(summary("python -c pass (floor)", floor))

        def capture(label: str) -> None:
            """The command init writes, and in turns with it the console script's `mnemex hook`."""
            took: dict[str, list[float]] = {"": [], ", `mnemex hook`": []}
            for i in range(args.runs):
                for name, runner in (("", hooks), (", `mnemex hook`", console)):
                    time.sleep(args.gap)
                    took[name].append(runner.fire(payload(TOOL_PAYLOADS[i % len(TOOL_PAYLOADS)],
                                                          tool_use_id=f"toolu_{label}{name}_{i}"))[0])
            rows.extend(summary(f"capture, {label}{name}", t, f50) for name, t in took.items())

        capture("no daemon")
        session = "bench-session-0"
        took, answer = hooks.fire(payload("session_start", session_id=session))
        rows.append({**summary("SessionStart, cold (starts the daemon, loads the model)", [took], f50),
                     "context_chars": len(context_of(answer))})
        capture("daemon running")
        starts, sizes = [], []
        for i in range(args.runs):
            time.sleep(args.gap)
            took, answer = hooks.fire(payload("session_start", session_id=f"bench-session-{i + 1}"))
            starts.append(took)
            sizes.append(len(context_of(answer)))
        rows.append({**summary("SessionStart, warm", starts, f50), "with_context": sum(s > 0 for s in sizes)})
        prompts, given = [], 0
        cases = [c for c in data["cases"] if c.get("query")]
        for i in range(args.runs):
            time.sleep(args.gap)
            took, answer = hooks.fire(payload("user_prompt_submit", session_id=f"bench-prompts-{i}",
                                              prompt=cases[i % len(cases)]["query"]))
            prompts.append(took)
            given += bool(context_of(answer))
        rows.append({**summary("UserPromptSubmit, warm", prompts, f50), "with_context": given})
        daemon_client.stop_daemon(settings, timeout=30)

        hook_settings = HookSettings(data_dir=data_dir)
        spool = Spool(hook_settings.spool_dir)
        templates = [payload(name) for name in TOOL_PAYLOADS]
        for i in range(args.events):
            item = json.loads(json.dumps(templates[i % len(templates)]))
            item.update(tool_use_id=f"toolu_ingest_{i}", session_id=f"bench-ingest-{i // 50}")
            if item.get("tool_input", {}).get("command"):
                item["tool_input"]["command"] += f" -k case_{i}"
            if item.get("tool_input", {}).get("file_path"):
                item["tool_input"]["file_path"] = item["tool_input"]["file_path"].replace(".py", f"_{i}.py")
            record = tool_record(item, hook_settings, str(project))
            if record is not None:
                spool.append(record)
        engine = build_engine(settings, default_project=str(project))
        try:
            texts = [f"pytest tests/test_case_{i}.py -k case_{i} failed: AssertionError in step {i}" for i in range(256)]
            engine.dense.embed_documents(texts[:16])  # warm
            start = time.perf_counter()
            engine.dense.embed_documents(texts)
            model_rate = len(texts) / (time.perf_counter() - start)
            start = time.perf_counter()
            report = Ingester(engine, spool).run()
            spent = time.perf_counter() - start
        finally:
            engine.close()
        rate = report.events / spent if spent else 0.0
        rows.append({"what": "ingest (in-process, daemon's Ingester)", "events": report.events,
                     "stored": report.stored, "seconds": round(spent, 1), "events_per_s": round(rate, 1),
                     "model_docs_per_s": round(model_rate, 1), "ratio_to_model": round(rate / model_rate, 2)})

    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; Python {platform.python_version()}; hook: {' '.join(Path(a).name for a in hooks.argv)}"
          f"; store: {f'{args.store:,} synthetic memories' if args.store else 'the coding set'}")
    print("| measurement | runs | p50 ms | p95 ms | p50 / floor | notes |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        if "p50_ms" not in row:
            continue
        notes = ", ".join(f"{k} {v}" for k, v in row.items() if k in ("context_chars", "with_context"))
        print(f"| {row['what']} | {row['runs']} | {row['p50_ms']} | {row['p95_ms']} | "
              f"{row.get('p50_over_floor', '')} | {notes} |")
    ing = rows[-1]
    print(f"\ningest: {ing['events']} events ({ing['stored']} stored as memories) in {ing['seconds']} s = "
          f"{ing['events_per_s']} events/s; the model embeds {ing['model_docs_per_s']} docs/s in this run "
          f"(ratio {ing['ratio_to_model']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
