"""The stdio relay when its daemon dies: every request gets an answer, and a request the daemon
never read (or one that only reads) is retried on the restarted daemon instead of failing.

Most tests run the relay in a thread against a stand-in daemon *process* (tests/reliability/
relay_harness.py: a small MCP server with slow `search_memory` and `memorize` tools and a
journal of what it carried out), SIGKILLed at chosen moments; one runs `python -m
mnemex.server.relay` against the real daemon and kills that.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mnemex.server import daemon_client
from mnemex.server.daemon_client import Interrupted, NotDelivered, post
from mnemex.server.relay import READ_ONLY, Relay
from mnemex.server.runfiles import RunFiles, pid_alive
from tests.reliability.relay_harness import (
    INIT,
    Pipes,
    call,
    gone,
    journal,
    kill_harness_daemons,
    spawn_harness_daemon,
    wait_until,
)

ANSWER_SECONDS = 5.0  # the client must hear about a lost request this soon (it used to wait forever)


def kill(files: RunFiles, sig: int = signal.SIGKILL) -> int:
    pid = files.read_pid()
    assert pid and pid_alive(pid)
    os.kill(pid, sig)
    if sig == signal.SIGKILL:
        assert wait_until(lambda: gone(pid), 10)
    return pid


def started(files: RunFiles, what: str, times: int = 1) -> bool:
    return sum(line.startswith(f"start {what} ") for line in journal(files)) >= times


@pytest.fixture
def harness(tmp_path: Path, monkeypatch):
    """A relay in a thread whose daemon (started and restarted by the relay itself) is the
    harness daemon process; the relay is initialized and its session open."""
    monkeypatch.setattr(daemon_client, "spawn_daemon", spawn_harness_daemon)
    files = RunFiles(tmp_path / "run")
    relay = Relay(files, project=None, start_timeout=30)
    pipes = Pipes(relay)
    pipes.send(INIT)
    assert "result" in pipes.read()
    pipes.send(call("warm", "echo", {"text": "up"}))
    assert pipes.read()["result"]["structuredContent"] == {"text": "up"}
    yield files, relay, pipes
    pipes.close()
    kill_harness_daemons(files)


# ------------------------------------------------------------- post() itself
def one_shot_server(path: str, behaviour) -> threading.Thread:
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)

    def run() -> None:
        conn, _ = srv.accept()
        behaviour(conn)
        conn.close()
        srv.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def read_request(conn: socket.socket) -> bytes:
    got = b""
    while b'"id": 1}' not in got and b'"id":1}' not in got:
        got += conn.recv(65536)
    return got


SSE_HEAD = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")


def sse_chunk(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


@pytest.mark.parametrize("behaviour, outcome", [
    # closed with our request unread: Linux resets the connection (ECONNRESET) -> never read
    (lambda conn: time.sleep(0.2), NotDelivered),
    # read it all, then closed without a word (a clean EOF) -> read, maybe carried out
    (lambda conn: read_request(conn), Interrupted),
    # read it, started an SSE answer, and died before the stream's last chunk
    (lambda conn: (read_request(conn), conn.sendall(SSE_HEAD + sse_chunk("event: message\ndata: {\"jsonrpc\"\n"))),
     Interrupted),
    # a JSON answer shorter than its Content-Length
    (lambda conn: (read_request(conn), conn.sendall(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 90\r\n\r\n{\"jsonrpc\":")),
     Interrupted),
], ids=["unread-reset", "read-then-eof", "sse-cut", "json-cut"])
def test_post_tells_a_request_never_read_from_one_read_and_not_answered(tmp_path: Path, behaviour,
                                                                        outcome) -> None:
    path = str(tmp_path / "s.sock")
    server = one_shot_server(path, behaviour)
    with pytest.raises(outcome):
        post(path, {"jsonrpc": "2.0", "method": "ping", "id": 1}, {}, timeout=5)
    server.join(5)


def test_post_returns_a_complete_sse_answer_and_skips_a_broken_event(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sock")
    events = sse_chunk("event: message\ndata: {not json\n\n") + sse_chunk(
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n') + b"0\r\n\r\n"
    server = one_shot_server(path, lambda conn: (read_request(conn), conn.sendall(SSE_HEAD + events)))
    reply = post(path, {"jsonrpc": "2.0", "method": "ping", "id": 1}, {}, timeout=5)
    assert reply.status == 200 and reply.messages == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    server.join(5)


def test_read_only_list_matches_the_tools_read_only_hints() -> None:
    import asyncio

    from mnemex.server.app import build_server
    from mnemex.strategies import STRATEGIES
    from mnemex.tools.runtime import ToolRuntime

    names: set[str] = set()
    for strategy in STRATEGIES.values():  # every tool any strategy offers; the engine is only used when one runs
        server = build_server(ToolRuntime(None, strategy=strategy))  # type: ignore[arg-type]
        tools = asyncio.run(server.list_tools())
        names |= {t.name for t in tools if t.annotations and t.annotations.read_only_hint}
    assert READ_ONLY["tools/call"] == names


# ------------------------------------------------------- the harness daemon
@pytest.mark.slow
def test_a_write_in_flight_when_the_daemon_dies_is_answered_with_an_error(harness) -> None:
    files, _, pipes = harness
    pipes.send(call(1, "memorize", {"content": "first-write", "seconds": 60}))
    assert wait_until(lambda: started(files, "memorize"), 20)
    first = kill(files)
    killed = time.monotonic()
    reply = pipes.read(timeout=ANSWER_SECONDS)
    assert time.monotonic() - killed < ANSWER_SECONDS
    assert reply["id"] == 1 and reply["error"]["code"] == -32603, reply
    message = reply["error"]["message"]
    assert "stopped while handling" in message and "memorize" in message
    assert "being restarted" in message and "may have taken effect" in message
    # not repeated behind the client's back, and the relay restarted the daemon by itself
    pipes.send(call(2, "echo", {"text": "after"}))
    assert pipes.read()["result"]["structuredContent"] == {"text": "after"}
    assert files.read_pid() not in (None, first)
    assert [line for line in journal(files) if "memorize" in line] == [f"start memorize first-write pid={first}"]


@pytest.mark.slow
def test_a_read_only_call_in_flight_when_the_daemon_dies_is_retried(harness) -> None:
    files, _, pipes = harness
    pipes.send(call(1, "search_memory", {"query": "q1", "seconds": 1.0}))
    assert wait_until(lambda: started(files, "search_memory"), 20)
    first = kill(files)
    reply = pipes.read()
    assert reply["id"] == 1 and "result" in reply, reply
    second = reply["result"]["structuredContent"]["pid"]
    assert second != first
    assert [line.split()[0] for line in journal(files) if "search_memory" in line] == ["start", "start", "end"]


@pytest.mark.slow
def test_a_request_the_daemon_never_read_is_retried_even_when_it_writes(harness) -> None:
    files, _, pipes = harness
    first = kill(files, signal.SIGSTOP)  # it can still accept connections into the backlog, not read them
    try:
        pipes.send(call(1, "memorize", {"content": "never-read"}))
        time.sleep(0.5)  # the relay has connected and sent its request by now
        assert journal(files) == []
    finally:
        os.kill(first, signal.SIGKILL)
    reply = pipes.read()
    assert reply["id"] == 1 and "result" in reply, reply
    assert reply["result"]["structuredContent"]["pid"] != first
    assert [line.split()[:2] for line in journal(files)] == [["start", "memorize"], ["end", "memorize"]]


@pytest.mark.slow
def test_repeated_kills_never_leave_a_request_unanswered(harness) -> None:
    files, _, pipes = harness
    for round_ in range(4):
        base = 10 * (round_ + 1)
        pipes.send(call(base + 1, "search_memory", {"query": f"r{round_}", "seconds": 0.5}))
        pipes.send(call(base + 2, "memorize", {"content": f"w{round_}", "seconds": 60}))
        assert wait_until(lambda: started(files, "memorize", round_ + 1)
                          and started(files, "search_memory", round_ + 1), 20)
        kill(files)
        replies = {r["id"]: r for r in (pipes.read(), pipes.read())}
        assert "result" in replies[base + 1], replies
        assert "may have taken effect" in replies[base + 2]["error"]["message"], replies
        pipes.send(call(base + 3, "echo", {"text": "still here"}))
        assert pipes.read()["result"]["structuredContent"] == {"text": "still here"}


# ------------------------------------------------------------ the real daemon
class RelayProcess:
    """`python -m mnemex.server.relay` with a reader thread, so a missing answer fails, not hangs."""

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "mnemex.server.relay"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(ln) for ln in iter(self.proc.stdout.readline, b"")],
                         daemon=True).start()

    def send(self, msg: dict) -> None:
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def read(self, timeout: float = 30.0) -> dict:
        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s") from None

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(20)




@pytest.mark.slow
def test_real_daemon_killed_again_and_again(daemons) -> None:
    files = RunFiles.for_settings(daemons)
    relay = RelayProcess(daemon_client.daemon_env(daemons))
    try:
        relay.send(INIT)
        assert "result" in relay.read()
        relay.send(call(1, "memory_stats", {}))
        assert "result" in relay.read()
        for round_ in range(3):
            base = 10 * (round_ + 1)
            pid = files.read_pid()
            relay.send(call(base + 1, "memory_stats", {}))
            relay.send(call(base + 2, "memorize", {"content": f"Round {round_} of the crash loop keeps its fact."}))
            time.sleep(0.05 * round_)  # kill before, during and after they reach the daemon
            os.kill(pid, signal.SIGKILL)
            relay.send(call(base + 3, "search_memory", {"query": "crash loop"}))  # just after the kill
            replies = {r["id"]: r for r in (relay.read(), relay.read(), relay.read())}
            assert "result" in replies[base + 1] and "result" in replies[base + 3], replies
            write = replies[base + 2]
            assert "result" in write or "may have taken effect" in write["error"]["message"], write
            assert wait_until(lambda: gone(pid), 10)
        assert files.read_pid() != pid
    finally:
        assert relay.close() == 0
