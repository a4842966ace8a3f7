"""The per-store daemon: owns the embedded store and serves MCP (streamable HTTP) on a Unix socket.

On request (`mnemex viewer`) it also serves the memory viewer on a loopback TCP port
(`server/viewer/listener.py`); MCP itself is never served on TCP here.

Run in the foreground with `python -m mnemex.server.daemon` (what the relay spawns) or
`mnemex daemon run`. One daemon per store: it takes the owner lock in the run dir first, and
exits 0 when another daemon already holds it. Each request's project comes from the
`x-mnemex-project` header the relay sets, so the engine has no default project.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

from mnemex.errors import ConfigError, MnemexError
from mnemex.heap import settle
from mnemex.private import private_umask
from mnemex.server.runfiles import OwnerLock, RunFiles

log = logging.getLogger("mnemex.daemon")

LOCK_WAIT_SECONDS = 30.0      # a CLI command may hold the store for a few seconds; wait for it
IDLE_OPTIMIZE_SECONDS = 3.0   # optimizing (a copy, in a child process) takes CPU: only when idle this long
TICK_SECONDS = 0.5
SETTLE_IDLE_SECONDS = 1.0  # once the model is loaded and no call came for this long: `heap.settle` (gc.freeze)
#: No call for this long and points written since the store last flushed: flush them now. A flush
#: holds the GIL for a mostly fixed cost (`EdgeStore.flush_pending`); inside the write that crossed
#: `edge.FLUSH_EVERY` it stalled that call and every call beside it; inside a dream or sweep on the
#: year benchmark it took 78-134 ms, and the search that met it waited 101-172 ms longer than alone
#: (benchmarks/RESULTS.md).
IDLE_FLUSH_SECONDS = 1.0
OPTIMIZE_RETRY_SECONDS = 600.0
INGEST_RETRY_SECONDS = 30.0
#: Host headers the daemon accepts. DNS-rebinding protection stays on although a browser cannot
#: reach a Unix socket: it costs nothing, and any Origin header (browsers send one) is refused.
ALLOWED_HOSTS = ["localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*", "mnemex"]


class Activity:
    """ASGI wrapper that counts requests in flight and remembers when the last one ended."""

    def __init__(self, app: Any):
        self.app = app
        self.in_flight = 0
        self.last = time.monotonic()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        await self.counted(self.app, scope, receive, send)

    async def counted(self, app: Any, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        self.in_flight += 1
        try:
            await app(scope, receive, send)
        finally:
            self.in_flight -= 1
            self.last = time.monotonic()

    def wrap(self, app: Any) -> Any:
        """Another app (the viewer's listener) whose requests count here too."""
        async def counted_app(scope: dict, receive: Any, send: Any) -> None:
            await self.counted(app, scope, receive, send)
        return counted_app

    def idle_for(self) -> float:
        return 0.0 if self.in_flight else time.monotonic() - self.last


def acquire_daemon_lock(files: RunFiles, wait: float = LOCK_WAIT_SECONDS) -> OwnerLock | int:
    """The owner lock, or an exit status: 0 when a daemon already owns the store, 1 when a
    direct server does (or the lock stays busy past `wait`)."""
    deadline = time.monotonic() + wait
    while True:
        lock = files.acquire_owner_lock("daemon")
        if lock is not None:
            return lock
        owner = files.owner() or {}
        role, pid = owner.get("role"), owner.get("pid")
        if role == "daemon":
            print(f"mnemex daemon already running for {files.run_dir.parent} (pid {pid})", file=sys.stderr)
            return 0
        if role and role.startswith("direct"):
            transport = role.partition("-")[2] or "stdio"
            print(f"mnemex: the memory store is open in `mnemex serve --transport {transport}` without the "
                  f"daemon (pid {pid}); stop that server first", file=sys.stderr)
            return 1
        if time.monotonic() > deadline:
            print(f"mnemex: the store stayed locked by {role or 'another process'} (pid {pid}) for "
                  f"{wait:.0f} s", file=sys.stderr)
            return 1
        time.sleep(0.05)  # a CLI command or a stale-file check holds it for a moment


def socket_security() -> Any:
    """Host/Origin checks for the socket: the SDK's localhost defaults want a port in the Host
    header, which a Unix-socket client has none of, so allow the bare names too."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=ALLOWED_HOSTS,
                                     allowed_origins=[])


def bind_socket(files: RunFiles) -> socket.socket:
    """Listen on the run dir's socket, mode 0600 (we hold the lock, so an old file is stale). The pid
    file is written first: a socket that answers always has its daemon's pid beside it (under load,
    a client could connect before `_serve` wrote it, and read no pid or the last daemon's)."""
    files.write_pid()
    path = str(files.socket)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    os.chmod(path, 0o600)  # the 0700 dir already keeps other users out; belt and braces
    sock.listen(128)
    sock.setblocking(False)
    return sock


def write_server_info(files: RunFiles, server: Any) -> None:
    """Save the initialize answer (minus protocolVersion) so relays can replay it while we start."""
    opts = server._lowlevel_server.create_initialization_options()
    info = {
        "serverInfo": {k: v for k, v in {"name": opts.server_name, "title": opts.title,
                                         "version": opts.server_version}.items() if v is not None},
        "capabilities": opts.capabilities.model_dump(by_alias=True, mode="json", exclude_none=True),
        "instructions": opts.instructions,
    }
    tmp = files.info_file.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(info, indent=1))
    os.replace(tmp, files.info_file)


async def maintain(uv: Any, activity: Activity, engine: Any, files: RunFiles,
                   socket_ino: int, idle_exit: float, ingester: Any = None, handover: Any = None) -> None:
    """Ingest what the capture hooks spooled; flush what was written, optimize the index, sweep the
    lifecycle tiers and dream when idle; exit when the socket file vanished or no request came for `idle_exit` seconds
    (0 = never; open sessions do not count: the relay starts a new daemon on its next request),
    after a pending optimize so the next start finds it done."""
    retry_at = 0.0
    flush_at = 0.0
    ingest_at = 0.0
    settled = False
    while not uv.should_exit:
        await asyncio.sleep(TICK_SECONDS)
        if ingester is not None and time.monotonic() >= ingest_at and ingester.pending():
            try:
                await asyncio.to_thread(ingester.run)
            except Exception:  # the spool stays; try again in a while
                log.exception("capture: ingesting the spool failed; retrying in %.0f s", INGEST_RETRY_SECONDS)
                ingest_at = time.monotonic() + INGEST_RETRY_SECONDS
        try:
            if os.stat(files.socket).st_ino != socket_ino:
                raise FileNotFoundError
        except FileNotFoundError:
            log.warning("socket %s was removed; shutting down", files.socket)
            uv.should_exit = True
            return
        idle = activity.idle_for()
        if handover is not None and (handover.running or (idle >= IDLE_OPTIMIZE_SECONDS and handover.wanted(engine))):
            # a burst of writes left many points unindexed and an optimized copy waits: a successor
            # process loads it and takes the store over (`handoff.py`); nothing else runs meanwhile
            if await handover.step(uv, activity, engine):
                return
            continue
        if not settled and idle >= SETTLE_IDLE_SECONDS and getattr(engine.dense, "loaded", True):
            # warm and idle: the modules, the model and the engine stay for the daemon's life
            log.info("warm: %d objects frozen out of garbage collection", settle())
            settled = True
        leaving = bool(idle_exit) and idle >= idle_exit
        if idle >= IDLE_FLUSH_SECONDS and not leaving and time.monotonic() >= flush_at and engine.upkeep.flush_due():
            flushed = 0
            try:
                flushed = await asyncio.to_thread(engine.upkeep.flush_pending)
                log.debug("idle: flushed %d points written since the last flush", flushed)
            except Exception:  # the writes stay in the store's write-ahead log; try again later
                log.exception("flushing the store failed; retrying in %.0f s", OPTIMIZE_RETRY_SECONDS)
                flush_at = time.monotonic() + OPTIMIZE_RETRY_SECONDS
            if flushed:
                continue  # look at the clock again: a call may have come meanwhile
        if (idle >= IDLE_OPTIMIZE_SECONDS or leaving) and time.monotonic() >= retry_at and engine.upkeep.needs_optimize():
            log.info("idle: optimizing the index")
            started = time.monotonic()
            try:
                await asyncio.to_thread(engine.upkeep.optimize, detached=True)
                log.info("optimized in %.1f s", time.monotonic() - started)
            except Exception:  # keep serving; searches work unoptimized, try again later
                log.exception("optimize failed; retrying in %.0f s", OPTIMIZE_RETRY_SECONDS)
                retry_at = time.monotonic() + OPTIMIZE_RETRY_SECONDS
            activity.last = time.monotonic()
            continue  # that took a while: look at the clock again before leaving
        if handover is None and idle >= IDLE_OPTIMIZE_SECONDS and not leaving and engine.upkeep.swap_due():
            # a burst of writes left many points unindexed: the optimized copy is loaded now, while
            # no call is waiting (calls wait for the load: 0.4-0.75 s at 100k memories), not at
            # close
            started = time.monotonic()
            try:
                if await asyncio.to_thread(engine.upkeep.swap_waiting):
                    log.info("optimized copy swapped in, %.1f s", time.monotonic() - started)
            except Exception:  # the store is as it was; the copy is dropped and made again later
                log.exception("swapping in the optimized copy failed")
            activity.last = time.monotonic()
            continue
        if idle >= IDLE_OPTIMIZE_SECONDS and not leaving and engine.lifecycle.sweep_due():
            try:
                report = await asyncio.to_thread(engine.sweep)
                log.info("lifecycle sweep: %d promoted, %d demoted of %d", report.promoted, report.demoted,
                         report.scanned)
            except Exception:  # keep serving; the next interval tries again
                log.exception("lifecycle sweep failed")
            continue  # bounded (sweep_max_moves) and quick: it does not count as activity
        if idle >= IDLE_OPTIMIZE_SECONDS and not leaving and engine.dreamer.due():
            try:
                report = await asyncio.to_thread(engine.dream)
                log.info("dream: %d themes (%d merged), %d dormant, %d rehearsed in %.1f s", report.themes,
                         report.merged, sum(report.forgotten.values()), report.rehearsed, report.elapsed_seconds)
            except Exception:  # keep serving; the next interval tries again
                log.exception("dream failed")
            continue  # bounded (dream.max_changes), in small batches: it does not count as activity
        if leaving:  # open relay sessions do not hold it: a relay restarts the daemon on its next request
            log.info("no client request for %.0f s; exiting", idle)
            uv.should_exit = True


class App(NamedTuple):
    """What the daemon serves, built before the engine is bound (a successor builds it while the
    daemon it replaces still serves)."""

    runtime: Any
    ingester: Any
    viewer: Any
    activity: Activity
    server: Any
    config: Any

    def bind(self, engine: Any) -> None:
        self.runtime.engine = engine
        self.ingester.engine = engine
        self.viewer.engine = engine


def build_app(settings: Any, files: RunFiles, engine: Any = None) -> App:
    import uvicorn

    from mnemex.capture.ingest import Ingester
    from mnemex.server.app import build_server
    from mnemex.server.capture_endpoint import HookEndpoint
    from mnemex.server.viewer.listener import ViewerEndpoint, ViewerListener
    from mnemex.tools.runtime import ToolRuntime

    ingester = Ingester.for_settings(engine, settings)
    runtime = ToolRuntime.from_settings(engine, settings)
    runtime.before_session = lambda: ingester.run(wait=5.0)  # the last session's episode and fixes first
    server = build_server(runtime)
    app = server.streamable_http_app(transport_security=socket_security())
    activity = Activity(HookEndpoint(app, settings.data_dir, runtime))  # hooks hand their events over here
    viewer = ViewerListener(engine, files, settings.server.viewer_port, wrap=activity.wrap)
    activity.app = ViewerEndpoint(activity.app, viewer)  # `mnemex viewer` opens its loopback listener here
    config = uvicorn.Config(activity, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=5, http="h11", ws="none")
    return App(runtime, ingester, viewer, activity, server, config)


async def _serve(settings: Any, files: RunFiles, engine: Any, app: App, sock: socket.socket,
                 handover: Any = None) -> None:
    import uvicorn

    write_server_info(files, app.server)
    uv = uvicorn.Server(app.config)
    files.write_pid()
    log.info("mnemex daemon pid %d serving %s on %s", os.getpid(), settings.data_dir, files.socket)
    task = asyncio.create_task(maintain(uv, app.activity, engine, files, os.stat(files.socket).st_ino,
                                        settings.server.daemon_idle_seconds, app.ingester, handover))
    global _serving
    _serving = True
    try:
        await uv.serve(sockets=[sock])
    finally:
        task.cancel()
        await app.viewer.close()
        sock.close()


_serving = False


def load_model(embedder: Any) -> None:
    """Load the embedding model while the MCP stack is imported and the socket opens, so the
    first search does not wait for both one after the other (loading is locked: a search that
    comes first waits for this load instead of starting its own). A failure is left for that
    search to report."""
    started = time.monotonic()
    try:
        embedder.load()
        log.info("embedding model loaded in %.2f s", time.monotonic() - started)
    except Exception:  # the first embedding raises it again, with the reason, to the caller
        log.warning("loading the embedding model failed; the first call that embeds will say why")


def _stop_before_serving(signum: int, frame: Any) -> None:
    # Before uvicorn runs, a signal aborts start-up (cleanup runs in `finally`). uvicorn restores
    # this handler after a graceful stop and re-raises the signal it caught: then it is a no-op.
    if not _serving:
        raise SystemExit(0)


def run_daemon(settings: Any, *, hand_over: bool = False, follow: bool = False) -> int:
    """Own the store and serve it until SIGTERM/SIGINT (or idle exit); returns the exit status.

    0 when another daemon already owns the store; the engine is closed (store flushed) and the
    socket and pid files are removed on every way out — unless the store was handed over to a
    successor process (`hand_over`: done when an optimized copy should be served, `handoff.py`),
    which then owns them. `follow` (a daemon in the foreground): once handed over, this process
    becomes `server/follow.py`, which keeps its pid until the daemons after it are gone.
    """
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    private_umask()  # the store, the journal, their WALs and server.json: owner-only from creation
    files = RunFiles.for_settings(settings)
    lock = acquire_daemon_lock(files)
    if isinstance(lock, int):
        return lock
    engine = None
    handover = None
    loader: threading.Thread | None = None
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop_before_serving)
    try:
        from mnemex.embed.dense import embedder_for

        # the model loads while the engine's modules import and its store opens, then while the MCP
        # stack imports: the first search waits for whichever ends last, not for all three in a row
        embedder = embedder_for(settings)
        loader = threading.Thread(target=load_model, args=(embedder,), name="mnemex-model", daemon=True)
        loader.start()
        from mnemex.engine.factory import build_engine

        started = time.monotonic()
        # a daemon that hands its store over links it first: then no handover moves a directory
        # its shard has open, and none has to close that shard first (~60 ms at 100k)
        engine = build_engine(settings, default_project=None, embedder=embedder, linked_store=hand_over)
        log.info("engine ready in %.2f s", time.monotonic() - started)
        if hasattr(engine.store, "fill_page_cache"):  # the embedded store: its first searches read from memory
            threading.Thread(target=_fill_page_cache, args=(engine.store,), name="mnemex-pages", daemon=True).start()
        app = build_app(settings, files, engine)
        sock = bind_socket(files)
        if hand_over:
            from mnemex.server.handoff import Handover

            handover = Handover(settings, lock_fd=lock.fd, listen_fd=sock.fileno())
        asyncio.run(_serve(settings, files, engine, app, sock, handover))
        return 0
    except MnemexError as exc:
        if loader is not None:
            loader.join(timeout=60)  # its log line must not come after the reason (the last line is what callers show)
        print(f"mnemex daemon: {exc}", file=sys.stderr)
        return 1
    finally:
        if loader is not None:
            # leaving while onnxruntime builds its session aborts the process ("terminate called
            # without an active exception") and the reason above is lost: let the load end first
            loader.join(timeout=60)
        if handover is not None and handover.done:
            _leave_handed_over(engine, lock.fd, files.lock_file if follow else None)  # never returns
        try:
            if engine is not None:
                engine.close()
                log.info("store closed")
        finally:
            files.remove_runtime_files()
            lock.release()


def _leave_handed_over(engine: Any, lock_fd: int, follow: Path | None = None) -> None:
    """End a daemon that handed its store over: its journal and vocabulary close, the owner lock's
    descriptor closes without unlocking (the successor holds the same lock, and the run files are
    its), and the process ends at once. Tearing down the interpreter would close the shard and free
    every object (0.4-0.5 s at 100k) while the successor answers its first calls on the same cores.
    `follow` (the owner lock file of a daemon in the foreground): exec `server/follow.py` instead,
    so the pid a terminal or a service manager waits on lives while a daemon serves the store."""
    try:
        if engine is not None:
            engine.close_handed_over()
        log.info("handed over: %s", "following the daemons after this one" if follow else "leaving")
    except Exception:
        log.exception("closing after the handover failed")
    finally:
        os.close(lock_fd)
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        if follow is not None:
            from mnemex.server.follow import STOP_SIGNALS

            # held, not lost, while the follower starts: the mask and pending signals survive exec
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            try:
                os.execv(sys.executable, [sys.executable, "-m", "mnemex.server.follow", str(follow)])
            except OSError:
                pass  # cannot exec: leave as a detached daemon does
        os._exit(0)


def _fill_page_cache(store: Any) -> None:
    try:
        started = time.monotonic()
        done = store.fill_page_cache()
        log.info("store pages read into the page cache (%.0f MB in %.2f s)", done / 1e6, time.monotonic() - started)
    except Exception:  # only a warm-up: the searches read what they need
        log.warning("reading the store's pages ahead failed", exc_info=True)


def warm_up(embedder: Any, sparse: Any, store: Any) -> None:
    """What the successor's first call would otherwise pay (its wait comes on top of the handover's):
    the model's first inference, the token counter's encoding, and the store's pages (read into the
    page cache, then touched by a hybrid query). Reads only: the store is not this process's yet."""
    from mnemex.engine.tokens import estimate_tokens
    from mnemex.store.base import VectorQuery

    text = "where is the warm-up query for the successor"
    _fill_page_cache(store)
    try:
        store.query_many([VectorQuery(dense=embedder.embed_query(text)), VectorQuery(sparse=sparse.embed_query(text))])
        estimate_tokens(text)
    except Exception:  # only a warm-up: the first call does it again and says what fails
        log.warning("successor: warming up failed", exc_info=True)


def run_successor(argv: list[str]) -> int:
    """`python -m mnemex.server.daemon --successor <control fd> <lock fd> <socket fd> <copy dir>`:
    the process a daemon hands its store over to (`handoff.py`). Loads everything it can while the
    daemon serves, says ready, and on "go" takes the store over and serves on the inherited socket."""
    from mnemex.server.handoff import Predecessor

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    private_umask()
    control, lock_fd, listen_fd, copy = int(argv[0]), int(argv[1]), int(argv[2]), Path(argv[3])
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop_before_serving)
    started = time.monotonic()
    daemon = Predecessor(socket.socket(fileno=control))
    engine = store = vocabulary = handover = None
    files = None
    try:
        from mnemex.config import load_settings
        from mnemex.embed.dense import embedder_for
        from mnemex.embed.sparse import SparseEncoder
        from mnemex.embed.vocabulary import Vocabulary
        from mnemex.engine.factory import build_engine
        from mnemex.store.edge import EdgeStore

        settings = load_settings()
        files = RunFiles.for_settings(settings)
        embedder = embedder_for(settings)
        embedder.load()
        store = EdgeStore(settings.store_dir, dim=embedder.identity.dim, adopt=copy)
        sparse = SparseEncoder(settings.store.bm25_avg_len)
        vocabulary = Vocabulary(embedder, sparse, settings.vocabulary_path)
        app = build_app(settings, files)
        warm_up(embedder, sparse, store)
        frozen = settle()  # now, not in its first calls: a full collection over all of this took ~30 ms
        log.info("successor: ready (the model, the optimized store and the app loaded in %.2f s; %d objects "
                 "frozen out of garbage collection)", time.monotonic() - started, frozen)
    except Exception as exc:
        log.exception("successor: could not get ready")
        daemon.failed(str(exc))
        return 1
    daemon.ready()
    if daemon.wait_go() != copy:
        daemon.failed("handed another copy than the one loaded")
        return 1
    try:
        went = time.monotonic()
        previous = store.take_over()
        took = time.monotonic()
        if previous is not None:
            from mnemex.store.edge_detached import remove_tree

            daemon.after_exit = lambda: remove_tree(previous)  # the old daemon had it open until it exited
        vocabulary.refresh()
        engine = build_engine(settings, default_project=None, embedder=embedder, store=store, vocabulary=vocabulary)
        engine.carry_timers(daemon.timers)
        app.bind(engine)
        record = json.dumps({"role": "daemon", "pid": os.getpid(), "started": time.time(),
                             "successor_of": os.getppid()}).encode()
        os.ftruncate(lock_fd, 0)
        os.pwrite(lock_fd, record, 0)
        log.info("successor pid %d took the store over (replayed in %.0f ms, engine opened in %.0f ms)", os.getpid(),
                 (took - went) * 1000, (time.monotonic() - took) * 1000)
        from mnemex.server.handoff import Handover

        handover = Handover(settings, lock_fd=lock_fd, listen_fd=listen_fd)  # the next burst: handed on again
        asyncio.run(_serve(settings, files, engine, app, socket.socket(fileno=listen_fd), handover))
        return 0
    except Exception:
        log.exception("successor: taking the store over failed; the next request starts a new daemon")
        return 1
    finally:
        if handover is not None and handover.done:
            _leave_handed_over(engine, lock_fd)  # handed on in turn; never returns
        try:
            if engine is not None:
                engine.close()
            else:
                for part in (store, vocabulary):
                    if part is not None:
                        part.close()
        finally:
            if files is not None:
                files.remove_runtime_files()
            OwnerLock(lock_fd, "daemon").release()


def main(argv: list[str] | None = None) -> int:
    """`python -m mnemex.server.daemon`: settings from env/config; config errors exit 2. Detached
    (as relays and CLI commands start it), it hands its store over to a successor when an
    optimized copy should be served (`handoff.py`)."""
    from mnemex.config import load_settings

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--successor"]:
        return run_successor(argv[1:])
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"mnemex daemon: {exc}", file=sys.stderr)
        return 2
    return run_daemon(settings, hand_over=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
