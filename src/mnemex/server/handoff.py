"""A daemon hands its store to a successor process, so that loading an optimized store never stalls a call.

After a burst of writes (a bulk import) an optimized copy of the store waits, and searches are
slow until it serves (`EdgeStore.swap_due`). Loading a shard holds the GIL (0.3-0.5 s at 100k
memories): done in the daemon, a call arriving meanwhile waits for all of it. So the daemon starts
a successor (`python -m mnemex.server.daemon --successor ...`) that inherits the owner lock and the
listening socket, imports, loads the model and the optimized copy, builds its MCP app, and says
"ready" while the daemon goes on serving. At the next idle moment the daemon stops accepting (the
kernel queues new connections on the socket both processes hold), lets the calls in flight end,
writes into the copy what changed since it was taken (`EdgeStore.hand_over`: a few milliseconds)
and says "go"; the successor replays that, points the store at the copy (`EdgeStore.take_over`),
opens the journal and the engine, and accepts. A call that arrives meanwhile waits only for this.

Failures: a successor that dies or fails before "go" is dropped and the daemon serves on (the copy
waits for close, as before); a daemon that dies before "go" takes the successor with it (it exits
on the end of the control socket, having changed nothing). After "go" the old daemon exits in any
case; a successor that fails then leaves the store path as it was (or pointing at a complete copy),
and the relays start a new daemon, as after any crash. Like a daemon restart, a handover starts
working memory, co-activation and hit-rate windows afresh, and relays reopen their sessions; the
dream and sweep schedules carry on.

The control socket carries one JSON object per line: successor → daemon `{"ready": true}` or
`{"error": "..."}`; daemon → successor `{"go": "<copy dir>", "timers": {...}}` (seconds since its
last dream and sweep, which the successor carries on instead of dreaming at once).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("mnemex.daemon")

SUCCESSOR_FLAG = "--successor"
READY_TIMEOUT_SECONDS = 300.0  # a successor not ready by then is dropped (a stuck model load, a full disk)
HANDOVER_IDLE_SECONDS = 0.5    # the daemon hands over only after this long without a call
DRAIN_SECONDS = 5.0            # calls in flight when it stops accepting: how long they may take to end
RETRY_SECONDS = 600.0          # after a failed successor, the next try


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.setblocking(True)
    conn.sendall(json.dumps(message).encode() + b"\n")


class Successor:
    """The successor process, as the daemon handing over sees it."""

    def __init__(self, proc: subprocess.Popen, conn: socket.socket, generation: Path):
        self.proc = proc
        self.conn = conn
        self.generation = generation
        self.started = time.monotonic()
        self.state = "starting"  # starting | ready | failed
        self.reason = ""
        self._buffer = b""

    @classmethod
    def start(cls, settings: Any, *, lock_fd: int, listen_fd: int, generation: Path) -> "Successor":
        from mnemex.server.daemon_client import daemon_env

        ours, theirs = socket.socketpair()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "mnemex.server.daemon", SUCCESSOR_FLAG, str(theirs.fileno()), str(lock_fd),
                 str(listen_fd), str(generation)],
                stdin=subprocess.DEVNULL, env=daemon_env(settings), pass_fds=(theirs.fileno(), lock_fd, listen_fd),
                start_new_session=True)  # it outlives this process: its own session, as a daemon has
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        return cls(proc, ours, generation)

    def poll(self) -> str:
        """Read what the successor said (without waiting); returns `state`."""
        if self.state == "failed":
            return self.state
        try:
            while True:
                chunk = self.conn.recv(4096)
                if not chunk:
                    return self._fail(f"it exited (status {self.proc.wait(timeout=5)})")
                self._buffer += chunk
        except BlockingIOError:
            pass
        except (OSError, subprocess.TimeoutExpired) as exc:
            return self._fail(str(exc))
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            try:
                message = json.loads(line)
            except ValueError:
                return self._fail(f"it said {line[:200]!r}")
            if message.get("ready"):
                self.state = "ready"
            elif "error" in message:
                return self._fail(str(message["error"]))
        if self.state == "starting" and time.monotonic() - self.started > READY_TIMEOUT_SECONDS:
            return self._fail(f"not ready after {READY_TIMEOUT_SECONDS:.0f} s")
        return self.state

    def _fail(self, reason: str) -> str:
        self.state, self.reason = "failed", reason
        self.abandon()
        return self.state

    def abandon(self) -> None:
        """Stop the successor before "go" (it has changed nothing)."""
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.conn.close()

    def go(self, generation: Path, timers: dict[str, Any]) -> None:
        """The store is handed over: the successor serves from here (`timers`: the engine's, to carry
        on). The control socket stays open until this process exits (the successor then removes the
        old shard this process had open)."""
        _send(self.conn, {"go": str(generation), "timers": timers})


class Handover:
    """The daemon's side: start a successor when an optimized copy should be served, and hand
    the store over at an idle moment (`step`, from the daemon's maintenance loop)."""

    def __init__(self, settings: Any, *, lock_fd: int, listen_fd: int):
        self.settings = settings
        self.lock_fd = lock_fd
        self.listen_fd = listen_fd
        self.successor: Successor | None = None
        self.retry_at = 0.0
        self.done = False

    @property
    def running(self) -> bool:
        return self.successor is not None

    def wanted(self, engine: Any) -> bool:
        return time.monotonic() >= self.retry_at and engine.upkeep.swap_due()

    async def step(self, uv: Any, activity: Any, engine: Any) -> bool:
        """Advance the handover; True once the store is handed over (the daemon then exits)."""
        store = engine.store
        if self.successor is None:
            generation = getattr(store, "waiting_copy", None)
            if generation is None:
                return False
            try:
                self.successor = Successor.start(self.settings, lock_fd=self.lock_fd, listen_fd=self.listen_fd,
                                                 generation=generation)
            except OSError as exc:
                log.warning("could not start a successor process to serve the optimized store (%s); "
                            "the copy is swapped in when the daemon closes", exc)
                self.retry_at = time.monotonic() + RETRY_SECONDS
                return False
            log.info("a successor (pid %d) loads the optimized store", self.successor.proc.pid)
            return False
        successor = self.successor
        if successor.poll() == "failed" or store.waiting_copy != successor.generation:
            if successor.state != "failed":
                successor.abandon()
                successor.reason = "the optimized copy it loaded was replaced"
            log.warning("the successor process was dropped (%s); this daemon serves on", successor.reason)
            self.successor = None
            self.retry_at = time.monotonic() + RETRY_SECONDS
            return False
        if successor.state != "ready" or activity.in_flight or activity.idle_for() < HANDOVER_IDLE_SECONDS:
            return False
        await asyncio.to_thread(store.prepare_hand_over)
        if activity.in_flight or activity.idle_for() < HANDOVER_IDLE_SECONDS:
            return False  # a call came meanwhile: the next idle moment
        started = time.monotonic()
        log.info("handing the store over to pid %d", successor.proc.pid)
        for server in getattr(uv, "servers", []):
            server.close()  # the successor's copy of the socket keeps it listening; new connections queue
        deadline = started + DRAIN_SECONDS
        while (activity.in_flight or uv.server_state.tasks) and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        drained = time.monotonic()
        try:  # from here this daemon leaves, whatever happens (not before: leaving cancels this task)
            generation = await asyncio.to_thread(store.hand_over)
            successor.go(generation, engine.timers())
            self.done = True  # the successor owns the lock, the socket and the run files now
            try:  # this process only shuts down from here: leave the cores to the successor's first calls
                os.nice(19)
            except OSError:
                pass
        except Exception:
            log.exception("handing the store over failed; this daemon exits and the next request starts a new one")
            successor.abandon()
            return True
        finally:
            uv.should_exit = True
        log.info("store handed over to pid %d in %.0f ms (calls in flight ended in %.0f ms)", successor.proc.pid,
                 (time.monotonic() - started) * 1000, (drained - started) * 1000)
        return True


# ------------------------------------------------------------------ the successor
class Predecessor:
    """The successor's side of the control socket: "go" wakes `wait_go`; the end of the socket
    before "go" (the daemon died or dropped us) exits this process at once, having changed nothing;
    after "go" it means the old daemon has closed the old shard, which `after_exit` then removes."""

    def __init__(self, conn: socket.socket):
        self.conn = conn
        self._go = threading.Event()
        self.generation: Path | None = None
        self.timers: dict[str, Any] = {}
        self.after_exit: Any = None
        threading.Thread(target=self._read, name="mnemex-handover", daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self.conn.recv(4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if "go" in message:
                    self.generation = Path(message["go"])
                    self.timers = message.get("timers") or {}
                    self._go.set()
        if not self._go.is_set():
            log.info("successor: the daemon is gone before handing the store over; exiting unchanged")
            os._exit(0)
        if self.after_exit is not None:
            try:
                self.after_exit()
            except Exception:
                log.exception("successor: cleaning up after the old daemon failed")

    def ready(self) -> None:
        _send(self.conn, {"ready": True})

    def failed(self, reason: str) -> None:
        try:
            _send(self.conn, {"error": reason})
        except OSError:
            pass

    def wait_go(self) -> Path:
        self._go.wait()
        assert self.generation is not None
        return self.generation
