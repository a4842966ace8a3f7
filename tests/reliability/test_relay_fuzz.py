"""Hostile input into the stdio relay: malformed lines never crash or wedge it.

One relay (in a thread, fed through OS pipes) and one small in-thread MCP server serve the whole
module. Every line sent gets the answers the JSON-RPC 2.0 rules call for, which `expect()`
works out on its own: exactly one answer with the id of each line that carried a request with
a valid id, one error with id null for each line that could not be read as a message (or each
invalid batch member), nothing for a notification passed on. The last test checks that the
relay still serves an ordinary session after all of it.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemex.server.daemon_client import META_PREFIX, MODERN_VERSION
from mnemex.server.jsonrpc_check import MAX_DEPTH
from mnemex.server.relay import HANDSHAKE_VERSIONS, MAX_BATCH, MAX_LINE_BYTES, Relay
from mnemex.server.runfiles import RunFiles
from tests.reliability.relay_harness import INIT, FakeDaemon, Pipes, call

FUZZ = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.data_too_large])
ANSWER_TIMEOUT = 10.0  # answers come in milliseconds; a miss fails fast (and shrinks in reasonable time)


# ------------------------------------------------------------------ the oracle
def valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(name)


NULL, MAYBE_NULL = ("null",), ("maybe null",)


def expect_member(msg: Any) -> tuple:
    """("id", id): exactly one answer with that id; NULL: one error with id null; MAYBE_NULL:
    none, or one error with id null (a notification or a client's response, passed on or refused)."""
    if not isinstance(msg, dict):
        return NULL
    if "method" in msg:
        if valid_id(msg.get("id")):
            return ("id", msg["id"])
        return NULL if "id" in msg else MAYBE_NULL
    if "result" in msg or "error" in msg:
        return MAYBE_NULL
    return ("id", msg["id"]) if valid_id(msg.get("id")) else NULL


def expect(raw: bytes) -> list[tuple]:
    """What the relay must answer to one line (without its newline)."""
    if not raw.strip(b" \t\r\n"):
        return []
    if len(raw) > MAX_LINE_BYTES:
        return [NULL]
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return [NULL]
    if depth(value) > MAX_DEPTH:
        return [NULL]
    if isinstance(value, list):
        return [expect_member(m) for m in value] if 0 < len(value) <= MAX_BATCH else [NULL]
    return [expect_member(value)]


# --------------------------------------------------------------- the harness
def key(request_id: Any) -> str:
    return json.dumps(request_id)


class Collector:
    """Reads the relay's output: how many answers came per id, and with id null."""

    def __init__(self, pipes: Pipes):
        self.by_id: Counter[str] = Counter()
        self.answers: dict[str, dict] = {}  # the last answer per id (small ones), to look at
        self.null_answers: list[dict] = []
        self.null = 0
        self.malformed: list[bytes] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._run, args=(pipes,), daemon=True).start()

    def _run(self, pipes: Pipes) -> None:
        while line := pipes.lines.get():
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            error = msg.get("error") if isinstance(msg, dict) else None
            well_formed = (isinstance(msg, dict) and msg.get("jsonrpc") == "2.0" and "id" in msg
                           and ("result" in msg) != ("error" in msg)
                           and (error is None or (isinstance(error, dict) and isinstance(error.get("code"), int)
                                                  and isinstance(error.get("message"), str))))
            with self.cond:
                if not well_formed:
                    self.malformed.append(line[:300])
                elif msg["id"] is None:
                    self.null += 1
                    self.null_answers.append(msg)
                else:
                    self.by_id[key(msg["id"])] += 1
                    if len(line) < 10_000:
                        self.answers[key(msg["id"])] = msg
                self.cond.notify_all()

    def code(self, request_id: Any) -> int | None:
        with self.cond:
            return self.answers[key(request_id)].get("error", {}).get("code")

    def wait_for(self, keys: list[str], timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: all(self.by_id[k] for k in keys), timeout)


@dataclass
class Mark:
    """Stands for a valid id in a generated message; `Fire.line` puts in a fresh unique one."""

    kind: str
    suffix: str = ""


class Fire:
    """The shared relay under fire, and the checks made after each batch of lines."""

    def __init__(self, pipes: Pipes, relay: Relay):
        self.pipes = pipes
        self.relay = relay
        self.collector = Collector(pipes)
        self.counter = itertools.count(1000)
        self.sent: set[str] = {key(0)}

    def fresh(self, mark: Mark | None = None) -> int | str:
        n = next(self.counter)
        if mark is not None and mark.kind == "str":
            return f"fz-{n}-{mark.suffix}"
        if mark is not None and mark.kind == "big":
            return 2**70 + n
        return n

    def with_ids(self, value: Any) -> Any:
        if isinstance(value, list):  # a batch (or a list nested in one, which is an invalid member)
            return [self.with_ids(m) for m in value]
        if isinstance(value, dict) and isinstance(value.get("id"), Mark):
            return {**value, "id": self.fresh(value["id"])}
        return value

    def exchange(self, lines: list[bytes]) -> None:
        """Send the lines, then check the relay answered each as `expect` says, and lives on."""
        expected = [e for raw in lines for e in expect(raw)]
        ids = [key(e[1]) for e in expected if e[0] == "id"]
        assert len(set(ids)) == len(ids), "the test sent one id twice"
        self.sent.update(ids)
        with self.collector.cond:
            null_before = self.collector.null
        for raw in lines:
            self.pipes.send(raw)
        sentinel = self.fresh()
        self.sent.add(key(sentinel))
        self.pipes.send({"jsonrpc": "2.0", "id": sentinel, "method": "ping"})
        # Errors for unreadable lines are written before the next line is read, so once the
        # sentinel (sent last) is answered, every id-null error for these lines is in.
        arrived = self.collector.wait_for(ids + [key(sentinel)], ANSWER_TIMEOUT)
        shown = [raw[:200] for raw in lines[:3]]
        assert arrived, f"unanswered: {[k for k in ids if not self.collector.by_id[k]]} for {shown}"
        assert self.pipes.thread.is_alive(), "the relay stopped"
        with self.collector.cond:
            assert all(self.collector.by_id[k] == 1 for k in ids), f"answered twice: {shown}"
            nulls = self.collector.null - null_before
            assert not self.collector.malformed, self.collector.malformed
        low = expected.count(NULL)
        assert low <= nulls <= low + expected.count(MAYBE_NULL), (nulls, expected, shown)


@pytest.fixture(scope="module")
def fire(tmp_path_factory: pytest.TempPathFactory):
    files = RunFiles(Path(tmp_path_factory.mktemp("fuzz")) / "run")
    daemon = FakeDaemon(files)
    relay = Relay(files, project="/fuzz", start_timeout=10)
    pipes = Pipes(relay)
    target = Fire(pipes, relay)
    pipes.send(INIT)
    assert target.collector.wait_for([key(0)], ANSWER_TIMEOUT)
    yield target
    pipes.close()
    daemon.stop()


def line(value: Any, encoding: str = "ascii") -> bytes:
    if encoding == "ascii":
        return json.dumps(value).encode()
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")  # lone surrogates as raw bytes


# ---------------------------------------------------------- the hostile lines
def test_the_ten_invalid_messages_each_get_an_invalid_request_error(fire) -> None:
    invalid = [{}, [], "text", 42, None] + [{"jsonrpc": "2.0", "id": bad, "method": "ping"}
                                            for bad in ({"a": 1}, [1], 1.5, True, False)]
    fire.exchange([line(v) for v in invalid])
    with fire.collector.cond:
        assert [m["error"]["code"] for m in fire.collector.null_answers[-10:]] == [-32600] * 10


def test_initialize_with_bad_params_is_refused_and_a_good_one_still_works(fire) -> None:
    good = INIT["params"]
    bad_params = [None, {}, "x", [], {**good, "clientInfo": "x"}, {**good, "clientInfo": {}},
                  {**good, "clientInfo": {"name": 5, "version": "1"}}, {**good, "protocolVersion": 2025},
                  {k: v for k, v in good.items() if k != "capabilities"}, {**good, "capabilities": {"roots": 1}}]
    ids = [fire.fresh() for _ in bad_params]
    fire.exchange([line({"jsonrpc": "2.0", "id": i, "method": "initialize", "params": params})
                   for i, params in zip(ids, bad_params)] + [line({"jsonrpc": "2.0", "id": 1, "method": "initialize"})])
    assert [fire.collector.code(i) for i in ids + [1]] == [-32602] * (len(ids) + 1)
    assert fire.relay.init_params == good  # nothing of the refused ones stuck
    again, ok = fire.fresh(), fire.fresh()
    fire.exchange([line(INIT | {"id": again}), line(call(ok, "echo", {"text": "ok"}))])
    assert "result" in fire.collector.answers[key(again)]
    assert fire.collector.answers[key(ok)]["result"]["structuredContent"] == {"text": "ok"}


def test_json_nested_a_thousand_deep_is_refused(fire) -> None:
    request_id = fire.fresh()
    deep = "[" * 1000 + "]" * 1000
    fire.exchange([f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":"echo",'
                   f'"arguments":{{"text":{deep}}}}}}}'.encode(), ("{" + '"a":{' * 2000 + "}" * 2001).encode()])


def test_lone_surrogates_are_refused_with_the_request_id(fire) -> None:
    ids = [fire.fresh(), fire.fresh(Mark("str", "\ud800"))]
    fire.exchange([line(call(ids[0], "echo", {"text": "\udfff"}), "utf8"),
                   line({"jsonrpc": "2.0", "id": ids[1], "method": "ping"})])
    assert [fire.collector.code(i) for i in ids] == [-32602, -32600]


def test_meta_of_the_wrong_type_is_invalid_params(fire) -> None:
    ids = [fire.fresh() for _ in range(4)]

    def modern(request_id: int, meta: Any) -> bytes:
        return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": meta}})

    fire.exchange([modern(ids[0], "x"), modern(ids[1], {META_PREFIX + "protocolVersion": {}}),
                   modern(ids[2], {META_PREFIX + "protocolVersion": MODERN_VERSION, META_PREFIX + "clientInfo": 5}),
                   modern(ids[3], {META_PREFIX + "protocolVersion": "\n\x00é"})])  # a header the daemon refuses
    assert [fire.collector.code(i) for i in ids[:3]] == [-32602] * 3
    assert fire.collector.code(ids[3]) is not None


def test_the_line_size_limit_is_exact(fire) -> None:
    def padded(size: int) -> bytes:
        head, tail = f'{{"jsonrpc":"2.0","id":{fire.fresh()},"method":"ping","params":{{"pad":"', '"}}'
        return (head + "x" * (size - len(head) - len(tail)) + tail).encode()

    fire.exchange([padded(MAX_LINE_BYTES), padded(MAX_LINE_BYTES + 1), padded(100)])


def test_batches_get_an_answer_per_member(fire) -> None:
    fire.exchange([b"[]", line([{"jsonrpc": "2.0", "id": fire.fresh(), "method": "ping"}, 5, {"jsonrpc": "2.0"},
                                {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}, []]),
                   line([{"jsonrpc": "2.0", "method": "ping"}] * (MAX_BATCH + 1))])


# ------------------------------------------------------------- property tests
SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
TEXT = st.text(st.characters() | SURROGATE, max_size=10)
LEAF = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT
VALUE = st.recursive(LEAF, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(TEXT, kids, max_size=3),
                     max_leaves=8)
VALID_ID = st.builds(Mark, st.sampled_from(["int", "str", "big"]), TEXT)
ANY_ID = VALID_ID | st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | \
    st.lists(LEAF, max_size=2) | st.dictionaries(TEXT, LEAF, max_size=2)
METHOD = st.sampled_from(["initialize", "tools/call", "tools/list", "ping", "resources/list", "resources/read",
                          "prompts/list", "prompts/get", "server/discover", "completion/complete",
                          "notifications/initialized", "notifications/progress", "no/such/method"])
TOOL_PARAMS = st.fixed_dictionaries({"name": st.sampled_from(["echo", "whoami", "no_such_tool"]) | VALUE},
                                    optional={"arguments": st.fixed_dictionaries({"text": TEXT}) | VALUE})
INIT_PARAMS = st.fixed_dictionaries({}, optional={
    "protocolVersion": st.sampled_from(HANDSHAKE_VERSIONS) | VALUE, "capabilities": st.just({}) | VALUE,
    "clientInfo": st.fixed_dictionaries({}, optional={"name": TEXT | VALUE, "version": TEXT | VALUE}) | VALUE})
META = st.fixed_dictionaries({}, optional={
    META_PREFIX + "protocolVersion": st.just(MODERN_VERSION) | VALUE,
    META_PREFIX + "clientInfo": st.fixed_dictionaries({"name": TEXT | VALUE}) | VALUE,
    META_PREFIX + "clientCapabilities": st.just({})}) | VALUE
PARAMS = TOOL_PARAMS | INIT_PARAMS | VALUE | st.builds(lambda p, m: {**p, "_meta": m}, TOOL_PARAMS, META)
ANY_MESSAGE = st.fixed_dictionaries({}, optional={
    "jsonrpc": st.just("2.0") | VALUE, "id": ANY_ID, "method": METHOD | TEXT | VALUE, "params": PARAMS,
    "result": VALUE, "error": st.fixed_dictionaries({"code": st.integers(), "message": TEXT}) | VALUE})
REQUEST = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": VALID_ID, "method": METHOD},
                                optional={"params": PARAMS})
MESSAGE = ANY_MESSAGE | REQUEST
ENCODING = st.sampled_from(["ascii", "utf8"])


@settings(FUZZ, max_examples=500)
@given(messages=st.lists(MESSAGE | VALUE, min_size=1, max_size=3), encoding=ENCODING)
def test_fuzz_messages(fire, messages: list[Any], encoding: str) -> None:
    fire.exchange([line(fire.with_ids(m), encoding) for m in messages])


@settings(FUZZ, max_examples=150)
@given(batch=st.lists(MESSAGE | VALUE | st.lists(MESSAGE, max_size=2), max_size=5), encoding=ENCODING)
def test_fuzz_batches(fire, batch: list[Any], encoding: str) -> None:
    fire.exchange([line(fire.with_ids(batch), encoding)])


@settings(FUZZ, max_examples=200)
@given(raw=st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\n", b" ")), min_size=1, max_size=3))
def test_fuzz_random_bytes(fire, raw: list[bytes]) -> None:
    fire.exchange(raw)


@settings(FUZZ, max_examples=80)
@given(levels=st.integers(1, 5000), kind=st.sampled_from(["[", '{"a":', "mixed"]), closed=st.booleans(),
       wrapped=st.booleans())
def test_fuzz_deep_nesting(fire, levels: int, kind: str, closed: bool, wrapped: bool) -> None:
    opens = ["[", '{"a":'] * (levels // 2 + 1) if kind == "mixed" else [kind] * levels
    opens = opens[:levels]
    closes = "".join("]" if o == "[" else "}" for o in reversed(opens)) if closed else ""
    inner = "".join(opens) + "1" + closes
    if wrapped:
        inner = (f'{{"jsonrpc":"2.0","id":{fire.fresh()},"method":"tools/call",'
                 f'"params":{{"name":"echo","arguments":{{"text":{inner}}}}}}}')
    fire.exchange([inner.encode()])


@settings(FUZZ, max_examples=10)
@given(size=st.sampled_from([100_000, 3_000_000, MAX_LINE_BYTES - 100, MAX_LINE_BYTES + 1, 6_000_000]),
       char=st.sampled_from(["x", "é", "\\ud800", '\\"']))
def test_fuzz_huge_lines(fire, size: int, char: str) -> None:
    head = f'{{"jsonrpc":"2.0","id":{fire.fresh()},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"'
    body = (char * (size // len(char.encode())))
    fire.exchange([(head + body + '"}}}').encode()])


# ------------------------------------------------------------------ and after
def test_after_all_that_an_ordinary_session_still_works(fire) -> None:
    fire.pipes.send(INIT | {"id": "again"})
    fire.pipes.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    fire.pipes.send(call("final", "echo", {"text": "still serving"}))
    assert fire.collector.wait_for([key("again"), key("final")], ANSWER_TIMEOUT)
    assert fire.pipes.thread.is_alive()
    with fire.collector.cond:
        counts = dict(fire.collector.by_id)
    assert all(n == 1 for n in counts.values()), {k: n for k, n in counts.items() if n != 1}
    assert set(counts) <= fire.sent | {key("again"), key("final")}
