"""`mnemex import` of a large file as a user meets it: time, rate, progress output and outcomes.

    PYTHONPATH=. python benchmarks/importing.py [--rows 10000] [--keep DIR]
    PYTHONPATH=.:src python benchmarks/importing.py --rows 1500 --gate    # what the gate did, in-process, with examples

Writes `--rows` varied project memories (mnemex JSONL rows with only `content`, `kind` and
`tags`, as a user or a script would write them; every row a distinct fact) and runs the installed
`mnemex import FILE` on a fresh data dir under a pseudo-terminal, so the progress bar is drawn as
on a user's terminal. Reports the wall time, rows per second, the ratio to the model's own
embedding throughput measured in the same run, the summary line, the outcome counts, and the
last frames of the progress bar. Every row states a different fact (another component, setting,
environment or person), so `superseded` and `updated` count the write gate's mistakes on
bulk data, and `reinforced`/`skipped` its merges of distinct rows.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import random
import re
import resource
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVICES = ["billing", "auth", "search", "ingest", "notifier", "gateway", "scheduler", "reports", "exports",
            "webhooks", "ledger", "catalog", "checkout", "inventory", "pricing", "media", "profile", "audit",
            "metrics", "sessions", "uploads", "mailer", "geo", "feeds", "ranking", "fraud", "payouts", "tax",
            "shipping", "returns"]
ROLES = ["api", "worker", "cron", "ui", "sdk", "db", "cache"]
ENVS = ["dev", "staging", "production", "the load-test cluster", "CI"]
SETTINGS = [("request timeout", "{n} s", (2, 120)), ("worker pool size", "{n} workers", (2, 64)),
            ("retry limit", "{n} retries", (1, 12)), ("cache TTL", "{n} minutes", (1, 240)),
            ("connection pool", "{n} connections", (5, 200)), ("rate limit", "{n} requests per second", (10, 5000)),
            ("batch size", "{n} rows", (50, 10000)), ("log retention", "{n} days", (3, 400))]
TOOLS = [("pytest", "unittest"), ("ruff", "flake8"), ("uv", "pip-tools"), ("Postgres", "MySQL"),
         ("Redis", "Memcached"), ("Kafka", "RabbitMQ"), ("Terraform", "Pulumi"), ("Grafana", "Kibana"),
         ("Sentry", "Rollbar"), ("Celery", "RQ"), ("httpx", "requests"), ("pydantic", "attrs"),
         ("GitHub Actions", "Jenkins"), ("Helm", "Kustomize"), ("OpenTelemetry", "StatsD")]
DUTIES = ["alerts", "deploys", "database", "dashboards"]
PEOPLE = ["Priya", "Marcus", "Lena", "Tomás", "Aiko", "Femi", "Jonas", "Chloé", "Ravi", "Sofia", "Noah", "Ines"]
REASONS = ["it halves the cold-start time", "the old one leaked connections under load", "the team already knows it",
           "it has first-class async support", "licensing of the alternative changed", "it keeps the image small",
           "we need per-tenant isolation", "the vendor dropped support", "it integrates with our SSO"]
AREAS = ["API handlers", "database migrations", "frontend components", "background jobs", "CLI scripts",
         "integration tests", "Terraform modules", "Helm charts", "feature flags", "error handling"]
RULES = ["use snake_case file names", "keep one public class per module", "log with structured fields only",
         "never catch bare exceptions", "put fixtures next to the tests that use them", "pin every dependency",
         "write the changelog entry in the same PR", "name branches after the ticket", "prefer pure functions",
         "add a docstring to every public function"]
TASKS = [("regenerate the API client", "make gen-client"), ("reset the local database", "make db-reset"),
         ("rotate the signing key", "scripts/rotate_key.sh"), ("rebuild the search index", "manage.py reindex"),
         ("refresh the fixtures", "pytest --update-fixtures"), ("profile a slow endpoint", "py-spy record -o out.svg"),
         ("seed demo data", "manage.py seed --demo"), ("bump the version", "bumpversion patch")]


def rows(n: int, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    out: list[dict] = []
    seen: set[str] = set()

    def add(kind: str, text: str, *tags: str) -> None:
        if text not in seen:
            seen.add(text)
            out.append({"content": text, "kind": kind, "tags": list(tags)})

    makers = []
    for svc in [f"{s}-{role}" for s in SERVICES for role in ROLES]:
        for env in ENVS:
            for name, unit, (lo, hi) in SETTINGS:
                makers.append(lambda svc=svc, env=env, name=name, unit=unit, lo=lo, hi=hi: add(
                    "fact", f"The {svc} service's {name} in {env} is {unit.format(n=rnd.randint(lo, hi))}.", svc, env))
            makers.append(lambda svc=svc, env=env: add(
                "fact", f"In {env}, the {svc} service listens on port {rnd.randint(3000, 9999)}.", svc, "ports"))
        for new, old in TOOLS:
            makers.append(lambda svc=svc, new=new, old=old: add(
                "decision", f"The {svc} service uses {new} rather than {old} because {rnd.choice(REASONS)}.", svc))
        for duty in DUTIES:  # one owner per duty: no two rows say different things of one subject
            makers.append(lambda svc=svc, duty=duty: add(
                "fact", f"{rnd.choice(PEOPLE)} is the on-call owner of the {svc} service's {duty}.", svc, "owners"))
        for task, cmd in TASKS:
            makers.append(lambda svc=svc, task=task, cmd=cmd: add(
                "procedure", f"To {task} for the {svc} service, run `{cmd}` from services/{svc}/.", svc))
    for area in AREAS:
        for rule in RULES:
            makers.append(lambda area=area, rule=rule: add("convention", f"In {area}, {rule}.", "style"))
    for person in PEOPLE:
        for area in AREAS:
            makers.append(lambda person=person, area=area: add(
                "preference", f"{person} prefers small, separate PRs for {area}.", "review"))
    rnd.shuffle(makers)
    while len(out) < n and makers:
        makers.pop()()
    return out[:n]


def model_rate(texts: list[str], data_dir: Path) -> tuple[float, float]:
    """The model's own embedding rate on these texts, in this process: (docs per wall second, docs per
    CPU second of all its threads; the second holds on a busy machine)."""
    os.environ["MNEMEX_DATA_DIR"] = str(data_dir)
    from mnemex.config.settings import load_settings
    from mnemex.engine.factory import build_embedder

    embedder = build_embedder(load_settings())
    embedder.embed_documents(texts[:16])  # load and warm up
    t0, c0 = time.perf_counter(), time.process_time()
    embedder.embed_documents(texts)
    return len(texts) / (time.perf_counter() - t0), len(texts) / (time.process_time() - c0)


def run_under_pty(cmd: list[str], env: dict[str, str]) -> tuple[int, str, float, float]:
    """Run with stderr on a pseudo-terminal (the progress bar is drawn); (exit code, output, wall
    seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    master, slave = pty.openpty()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    code = proc.wait()
    wall = time.perf_counter() - t0
    os.close(master)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return code, b"".join(chunks).decode("utf-8", "replace"), wall, cpu


def frames(output: str, last: int = 4) -> list[str]:
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)
    shown = [f.strip() for f in re.split(r"[\r\n]+", plain) if f.strip()]
    return shown[-last:]


def gate_probe(data: list[dict], examples: int = 6) -> None:
    """The rows through `memorize_many` in-process: each outcome's count, and examples of rows that were
    not created with the memory they went into (every row is a distinct fact)."""
    from mnemex.config import Settings
    from mnemex.engine.factory import build_engine
    from mnemex.models import MemoryKind, NewMemory

    with tempfile.TemporaryDirectory(prefix="mnemex-gate-") as tmp:
        engine = build_engine(Settings(data_dir=Path(tmp)), default_project="/work/bulk")
        try:
            first: dict[str, str] = {}
            counts: dict[str, int] = {}
            shown: dict[str, list[str]] = {}
            for i in range(0, len(data), 32):
                batch = data[i:i + 32]
                news = [NewMemory(content=r["content"], kind=MemoryKind(r["kind"]), tags=r["tags"]) for r in batch]
                for r, out in zip(batch, engine.memorize_many(news)):
                    action = out.action.value
                    counts[action] = counts.get(action, 0) + 1
                    if out.id:
                        first.setdefault(out.id, r["content"])
                    if action != "created" and len(shown.setdefault(action, [])) < examples:
                        into = (out.affected_ids or ((out.id,) if out.id else ()))[:1]
                        shown[action].append(f"{r['content']}\n      -> {first.get(into[0], '?') if into else '-'} ({out.reason})")
        finally:
            engine.close()
    print(f"{len(data)} distinct rows: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    for action, lines in shown.items():
        print(f"  {action}:")
        for line in lines:
            print(f"    {line}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--keep", help="keep the data dir here (default: a temporary one, removed)")
    ap.add_argument("--gate", action="store_true", help="only run the rows through the write gate in-process")
    args = ap.parse_args()
    data = rows(args.rows)
    if args.gate:
        gate_probe(data)
        return
    kinds: dict[str, int] = {}
    for r in data:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    tmp = Path(tempfile.mkdtemp(prefix="mnemex-import-"))
    home = Path(args.keep) if args.keep else tmp / "data"
    src = tmp / "memories.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    rate, cpu_rate = model_rate([r["content"] for r in data[:500]], tmp / "model-probe")
    mnemex = shutil.which("mnemex", path=str(Path(sys.executable).parent)) or "mnemex"
    env = {**os.environ, "MNEMEX_DATA_DIR": str(home), "COLUMNS": "100", "LINES": "24"}
    try:
        code, output, seconds, cpu = run_under_pty([mnemex, "import", str(src)], env)
        summary = next((line for line in reversed(frames(output, 50)) if line.startswith("imported")), "")
        counts = {k: int(v) for v, k in re.findall(r"(\d+) (created|updated|reinforced|superseded|skipped)", summary)}
        print(f"rows {len(data)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); exit {code}")
        print(f"import wall time {seconds:.1f} s = {len(data) / seconds:.1f} rows/s; "
              f"model alone {rate:.1f} docs/s; ratio {len(data) / seconds / rate:.2f}")
        print(f"CPU time {cpu:.1f} s = {len(data) / cpu:.1f} rows per CPU second; model alone {cpu_rate:.1f} docs "
              f"per CPU second; ratio {len(data) / cpu / cpu_rate:.2f} (holds on a busy machine)")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"summary: {summary}")
        print(f"outcomes: {counts}")
        print("last progress frames:")
        for f in frames(output):
            print("   ", f)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
