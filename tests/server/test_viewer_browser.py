"""The viewer in a real browser: headless Chromium (the system's `chromium`, driven over the
DevTools protocol on a pipe) loads the page from a real uvicorn server on a loopback port, over
a real engine with a seeded store; it searches with the keyboard, opens a memory's history,
edits the memory through the page and checks the store changed. Screenshots land in
tests/artifacts/viewer/ (gitignored)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path

import pytest

from mnemex.models import MemoryKind, NewMemory, Scope
from tests.server.cdp import Chromium, find_chromium

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "viewer"
PROJECT = "/work/shop"
CHROMIUM = find_chromium()

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on PATH (Debian: `apt-get install -y chromium`); the viewer's browser "
                             "test drives the system browser and never downloads one")

SEED = [
    ("The checkout service talks to the payments API on port 8443 in staging.", MemoryKind.FACT, ("payments",)),
    ("We deploy the shop with `make release` from main; staging first, then production.", MemoryKind.PROCEDURE, ()),
    ("Decided to keep PostgreSQL 16 for orders instead of moving to DynamoDB.", MemoryKind.DECISION, ("db",)),
    ("Prefer pytest fixtures over unittest setUp methods in this repo.", MemoryKind.PREFERENCE, ()),
    ("Run `ruff check --fix` before committing; CI fails on lint errors.", MemoryKind.CONVENTION, ()),
    ("Flaky test test_refund_timeout fails when the payments sandbox is slow.", MemoryKind.CORRECTION, ("payments",)),
]


OLDER = [
    ("Staging runs on Kubernetes 1.29 in the eu-west cluster.", MemoryKind.FACT),
    ("Chose Stripe over Adyen for card payments (fees, API quality).", MemoryKind.DECISION),
    ("Name feature branches feat/<ticket>-<slug>.", MemoryKind.CONVENTION),
    ("To reset the local DB: make db-reset && make seed.", MemoryKind.PROCEDURE),
    ("The orders table is partitioned by month.", MemoryKind.FACT),
    ("Prefer small PRs (under 400 lines) for review.", MemoryKind.PREFERENCE),
    ("Nightly export job writes to s3://shop-exports/daily.", MemoryKind.FACT),
    ("Session 12: fixed the refund rounding bug in money.py.", MemoryKind.EPISODE),
]


def _seed_history(engine) -> None:
    """Older memories (an import keeps their dates) and a few days of captured tool use, so the
    timeline and the charts have something to show."""
    from datetime import datetime, timedelta, timezone
    from uuid import uuid4

    from mnemex.models import Memory
    from mnemex.store.journal.capture import CaptureEvent

    now = datetime.now(timezone.utc)
    engine.import_memories([Memory(id=str(uuid4()), content=c, kind=k, project=PROJECT, created_at=now - timedelta(days=2 + i),
                                   recorded_at=now - timedelta(days=2 + i), valid_from=now - timedelta(days=2 + i))
                            for i, (c, k) in enumerate(OLDER)])
    events = [CaptureEvent(id=uuid4().hex, session=f"s{d}", project=PROJECT, at=now - timedelta(days=d, minutes=m),
                           kind="tool", tool="Bash", key="pytest", ref="pytest -q", text="ran pytest -q",
                           failed=m % 4 == 0, duration_ms=1200 + m) for d in range(1, 6) for m in range(3 + 2 * d)]
    engine.journal.log_events(events)


#: Every visible text element's contrast against the background it sits on (WCAG 2 formula);
#: returns those under 4.5:1.
CONTRAST = """(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const low = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || el.closest('svg')) continue;
    const [a, b] = [lum(rgb(getComputedStyle(el).color).slice(0, 3)), lum(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className}: ${ratio.toFixed(2)}`);
  }
  return [...new Set(low)];
})()"""


EVIL = """<!doctype html><html><body><form id="f" method="POST" action="{base}/viewer/api/memory/{id}/pin"
enctype="text/plain"><input name="a" value="b"></form><script>
window.outcome = {{}};
(async () => {{
  try {{ const r = await fetch("{base}/viewer/api/overview", {{credentials: "include"}}); window.outcome.read = String(r.status); }}
  catch (e) {{ window.outcome.read = "blocked: " + e; }}
  try {{ const r = await fetch("{base}/viewer/api/memory/{id}/pin", {{method: "POST", credentials: "include",
        mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: "{{}}"}}); window.outcome.post = r.type === "opaque" ? "opaque" : String(r.status); }}
  catch (e) {{ window.outcome.post = "blocked: " + e; }}
  window.done = true;
  setTimeout(() => document.getElementById("f").submit(), 100);
}})();
</script></body></html>"""


@contextlib.contextmanager
def _evil_page(base: str, memory_id: str):
    """A page served from another port of 127.0.0.1 that tries to read and write the viewer."""
    import http.server

    body = EVIL.format(base=base, id=memory_id).encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def served(engine):
    """The viewer app on a real uvicorn server, 127.0.0.1 on a free port, in a thread."""
    import uvicorn

    from mnemex.server.viewer.app import ViewerSecrets, build_viewer_app
    from mnemex.server.viewer.listener import bind_loopback, embedded_server

    ids = [engine.memorize(NewMemory(content=c, kind=k, tags=t, project=PROJECT,
                                     scope=Scope.PROJECT), project=PROJECT).id for c, k, t in SEED]
    engine.explore.link(ids[0], ids[5], "related_to")
    engine.explore.link(ids[1], ids[0], "elaborates")
    _seed_history(engine)
    sock = bind_loopback(0)
    port = sock.getsockname()[1]
    secrets = ViewerSecrets()
    config = uvicorn.Config(build_viewer_app(engine, secrets, lambda: port), log_level="warning", lifespan="off",
                            interface="asgi3", access_log=False, http="h11", ws="none")
    server = embedded_server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/viewer/?key={secrets.key}", ids
    server.should_exit = True
    thread.join(5)


@pytest.fixture
def browser(tmp_path):
    chromium = Chromium(CHROMIUM, tmp_path / "profile")  # type: ignore[arg-type]
    yield chromium
    chromium.close()


def test_search_history_and_edit_in_a_real_browser(served, browser, engine):
    started = time.monotonic()
    url, ids = served
    browser.call("Page.navigate", url=url)
    browser.wait_for("location.pathname === '/viewer/' && !location.search", what="the key traded for a cookie")
    browser.wait_for("document.querySelectorAll('#results li button.row').length === 14", what="the newest memories")
    browser.wait_for("document.querySelector('#f-project option[value=\"/work/shop\"]')", what="the project filter")
    browser.screenshot(ARTIFACTS / "01-newest.png")

    # search with the keyboard: "/" focuses the box, Enter submits
    browser.js("document.activeElement && document.activeElement.blur()")
    browser.key("/", "Slash")
    assert browser.js("document.activeElement.id") == "q"
    browser.type("which port does the payments API use")
    browser.key("Enter")
    browser.wait_for("document.querySelector('#results-title').textContent.startsWith('Results for')", what="results")
    first = browser.js("document.querySelector('#results li .preview').textContent")
    assert "8443" in first
    assert browser.js("document.querySelector('#results li .why').textContent").startswith("why: ")
    browser.screenshot(ARTIFACTS / "02-search.png")

    # "j" opens the first result; its history, relations and neighbours load
    browser.js("document.activeElement.blur()")
    browser.key("j", "KeyJ")
    browser.wait_for("document.querySelector('#history table') && document.querySelector('#related svg')",
                     what="history and relation graph")
    assert browser.js("document.querySelector('#detail-title').textContent") == f"Memory {ids[0][:8]}"
    assert browser.js("document.querySelectorAll('#related svg circle').length") == 3
    browser.screenshot(ARTIFACTS / "03-history.png")
    low = browser.js(CONTRAST)
    assert low == [], f"text under 4.5:1 contrast: {low}"
    browser.js("document.querySelector('#h-related').scrollIntoView()")
    browser.screenshot(ARTIFACTS / "03b-relations.png")

    # edit it through the page
    browser.js("document.querySelector('#act-edit').click()")
    browser.wait_for("document.activeElement.id === 'edit-content'", what="the edit form")
    browser.js("document.querySelector('#edit-content').value = "
               "'The checkout service talks to the payments API on port 9443 in staging.'")
    browser.js("document.querySelector('#edit-save').click()")
    browser.wait_for("document.querySelector('#detail-content') && "
                     "document.querySelector('#detail-content').textContent.includes('9443')", what="the edited text")
    assert "9443" in engine.get(ids[0]).content
    browser.wait_for("document.querySelectorAll('#history tbody tr').length >= 2", what="the new version")
    assert [o.op for o in engine.journal.ops(memory_id=ids[0], limit=3)][0] == "update"
    browser.screenshot(ARTIFACTS / "04-edited.png")

    browser.js("document.querySelector('#tab-stats').click()")
    browser.wait_for("document.querySelectorAll('#stats figure.chart').length === 4", what="the charts")
    assert browser.js("getComputedStyle(document.querySelector('#view-memories')).display") == "none"
    assert browser.js("document.querySelectorAll('#stats svg rect').length") > 0
    browser.screenshot(ARTIFACTS / "05-stats.png")

    browser.js("document.querySelector('#tab-sessions').click()")
    browser.wait_for("document.querySelectorAll('#sessions tbody tr').length === 5", what="the captured sessions")
    browser.js("document.querySelector('#sessions tbody button').click()")
    browser.wait_for("document.activeElement.id === 'session-title'", what="a session's events")
    browser.screenshot(ARTIFACTS / "06-sessions.png")
    browser.js("document.querySelector('#tab-timeline').click()")
    browser.wait_for("document.querySelectorAll('#timeline section.day').length >= 2", what="the timeline")
    browser.screenshot(ARTIFACTS / "07-timeline.png")
    browser.js("document.querySelector('#tab-blocks').click()")
    browser.wait_for("document.querySelectorAll('#blocks .block').length > 0", what="the memory blocks")
    browser.screenshot(ARTIFACTS / "08-blocks.png")

    assert browser.problems() == []  # no script error, no CSP violation

    # dark scheme: same contrast floor
    browser.call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": "dark"}])
    browser.js("document.querySelector('#tab-memories').click()")
    low = browser.js(CONTRAST)
    assert low == [], f"dark scheme: text under 4.5:1 contrast: {low}"
    browser.screenshot(ARTIFACTS / "09-dark.png")

    # another page on this machine (same site: 127.0.0.1, another port) tries to drive the viewer
    # while its cookie is in the browser: a simple cross-origin POST, a form POST, a read
    target = ids[3]
    with _evil_page(url.split("/viewer/")[0], target) as evil:
        browser.call("Page.navigate", url=evil)
        browser.wait_for("window.done === true", what="the foreign page's attempts")
        attempts = browser.js("window.outcome")
        browser.wait_for("location.href.includes('/pin')", what="the form post", timeout=5)
        refused = browser.js("document.body.innerText")
    assert attempts == {"read": "blocked: TypeError: Failed to fetch", "post": "opaque"}  # learns nothing
    assert "only answers its own page" in refused  # the form POST: refused on its Origin
    assert engine.get(target).pinned is False
    assert [o.op for o in engine.journal.ops(memory_id=target, limit=5)] == ["create"]
    assert time.monotonic() - started < 20
