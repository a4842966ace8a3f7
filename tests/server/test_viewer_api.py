"""The viewer's JSON API over the real engine (embedded store, real model) through Starlette's
TestClient: reads (search with why, filters, history, relations, stats), writes through the
engine with their audit rows, and the guard (Host, Origin, access key, CSRF, POST only)."""

from __future__ import annotations

import pytest

from mnemex.models import MemoryKind, NewMemory, Provenance, Scope

PORT = 48123
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "/work/proj"


@pytest.fixture
def seeded(engine):
    def add(content: str, kind: MemoryKind, **kw):
        out = engine.memorize(NewMemory(content=content, kind=kind, project=PROJECT, **kw), project=PROJECT)
        return out.id

    ids = {
        "deploy": add("We deploy the billing service with `make release` from the main branch.", MemoryKind.PROCEDURE),
        "port": add("The payments API listens on port 8443 in staging.", MemoryKind.FACT, tags=("payments",)),
        "style": add("Use ruff format with a line length of 120 for all Python code.", MemoryKind.CONVENTION,
                     scope=Scope.GLOBAL),
        "sleepy": add("The legacy cron box is called hermes and runs nightly exports.", MemoryKind.FACT),
    }
    engine.explore.link(ids["deploy"], ids["port"], "related_to")
    m = engine.get(ids["sleepy"])
    engine.writer.replace(m, m.model_copy(update={"lifecycle": m.lifecycle.model_copy(
        update={"tier": "dormant", "dormant": True})}), op="demote", reembed=False, by=Provenance(source="test"))
    return ids


@pytest.fixture
def client(engine, seeded):
    from starlette.testclient import TestClient

    from mnemex.server.viewer.app import ViewerSecrets, build_viewer_app

    secrets = ViewerSecrets()
    app = build_viewer_app(engine, secrets, lambda: PORT)
    with TestClient(app, base_url=BASE) as c:
        r = c.get(f"/viewer/?key={secrets.key}", follow_redirects=False)
        assert r.status_code == 303 and "mnemex_viewer=" in r.headers["set-cookie"]
        assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
        c.cookies.set("mnemex_viewer", secrets.key)
        c.csrf = secrets.csrf  # type: ignore[attr-defined]
        yield c


def _post(c, path: str, body: dict | None = None, **headers):
    return c.post(path, json=body or {}, headers={"X-Mnemex-Csrf": c.csrf, **headers})


def test_page_embeds_csrf_and_security_headers(client):
    r = client.get("/viewer/")
    assert r.status_code == 200
    assert f'content="{client.csrf}"' in r.text and "{{CSRF}}" not in r.text
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
    js = client.get("/viewer/static/viewer.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert client.get("/viewer/static/../api.py").status_code == 404


def test_search_explains_why_and_filters(client, seeded):
    r = client.get("/viewer/api/search", params={"q": "which port does the payments API use"}).json()
    assert r["results"][0]["id"] == seeded["port"]
    assert r["results"][0]["why"] and r["results"][0]["confidence"] > 0
    assert seeded["sleepy"] not in {h["id"] for h in r["results"]}  # dormant: not in a default search
    kinds = client.get("/viewer/api/search", params={"kind": "convention"}).json()["results"]
    assert [h["id"] for h in kinds] == [seeded["style"]]
    scoped = client.get("/viewer/api/search", params={"scope": "global"}).json()["results"]
    assert {h["id"] for h in scoped} == {seeded["style"]}
    dormant = client.get("/viewer/api/search", params={"status": "dormant"}).json()["results"]
    assert [h["id"] for h in dormant] == [seeded["sleepy"]] and dormant[0]["tier"] == "dormant"
    tier = client.get("/viewer/api/search", params={"tier": "dormant", "status": "all"}).json()["results"]
    assert [h["id"] for h in tier] == [seeded["sleepy"]]
    tagged = client.get("/viewer/api/search", params={"tag": "payments"}).json()["results"]
    assert [h["id"] for h in tagged] == [seeded["port"]]
    assert client.get("/viewer/api/search", params={"until": "2000-01-01"}).json()["count"] == 0
    bad = client.get("/viewer/api/search", params={"kind": "banana"})
    assert bad.status_code == 400 and "unknown kind" in bad.json()["error"]
    assert client.get("/viewer/api/search", params={"status": "zombie"}).status_code == 400


def test_memory_history_relations_timeline_and_stats(client, seeded):
    m = client.get(f"/viewer/api/memory/{seeded['deploy'][:8]}").json()  # a prefix works as in the CLI
    assert m["id"] == seeded["deploy"] and m["kind"] == "procedure"
    assert client.get("/viewer/api/memory/deadbeefdead").status_code == 404
    h = client.get(f"/viewer/api/memory/{seeded['deploy']}/history").json()
    assert "billing service" in h["versions"][0]["content"] and h["audit"][-1]["op"] == "create"
    g = client.get(f"/viewer/api/memory/{seeded['deploy']}/related").json()
    assert g["edges"] == [{"src": seeded["deploy"], "dst": seeded["port"], "type": "related_to"}]
    assert {n["id"] for n in g["nodes"]} == {seeded["deploy"], seeded["port"]}
    back = client.get(f"/viewer/api/memory/{seeded['port']}/related").json()  # seen from the other end
    assert back["center"] == seeded["port"] and back["edges"] == g["edges"]
    t = client.get(f"/viewer/api/memory/{seeded['port']}/timeline").json()
    assert t["anchor"]["id"] == seeded["port"] and t["earlier"][-1]["id"] == seeded["deploy"]
    s = client.get("/viewer/api/stats").json()
    assert sum(v for row in s["by_kind"] for k, v in row.items() if k != "day") == 4
    assert sum(row.get("create", 0) for row in s["write_ops"]) == 4
    assert s["totals"]["dormant"] == 1
    o = client.get("/viewer/api/overview").json()
    assert o["projects"] == [PROJECT] and "dormant" in o["tiers"] and o["memories_total"] == 4
    blocks = client.get("/viewer/api/blocks", params={"project": PROJECT}).json()["blocks"]
    assert blocks and all("label" in b for b in blocks)
    assert client.get("/viewer/api/sessions").json() == {"sessions": []}


def test_captured_sessions_and_capture_volume(client, engine):
    from datetime import datetime, timedelta, timezone

    from mnemex.store.journal.capture import CaptureEvent

    now = datetime.now(timezone.utc)
    # noon two days ago: minutes before it stay on that day whatever the hour the test runs at
    # (anchored on `now` itself, a run just after midnight put them three days back)
    noon = now.replace(hour=12, minute=0, second=0, microsecond=0) - timedelta(days=2)
    engine.journal.log_events([
        CaptureEvent(id=f"e{i}", session="sess-1", project=PROJECT, at=noon - timedelta(minutes=10 - i),
                     kind="tool", tool="Bash", key="pytest", ref="pytest -q", text="ran pytest", failed=i == 2)
        for i in range(3)] + [CaptureEvent(id="p0", session="sess-2", project="/other", at=now, kind="prompt")])
    sessions = client.get("/viewer/api/sessions", params={"project": PROJECT}).json()["sessions"]
    assert [(s["session"], s["events"], s["tool_uses"], s["failures"]) for s in sessions] == [("sess-1", 3, 3, 1)]
    assert len(client.get("/viewer/api/sessions").json()["sessions"]) == 2
    events = client.get("/viewer/api/sessions/sess-1", params={"project": PROJECT}).json()["events"]
    assert [e["failed"] for e in events] == [False, False, True]
    assert client.get("/viewer/api/sessions/sess-1").status_code == 400  # which project's session?
    capture = client.get("/viewer/api/stats").json()["capture"]
    assert [(c.get("ok", 0), c.get("failed", 0)) for c in capture[-3:]] == [(2, 1), (0, 0), (1, 0)]


def test_writes_go_through_the_engine_and_the_audit_log(client, seeded, engine):
    mid = seeded["port"]
    r = _post(client, f"/viewer/api/memory/{mid}/edit", {"content": "The payments API listens on port 9443 in staging.",
                                                           "tags": "payments, staging"})
    assert r.status_code == 200, r.text
    assert engine.get(mid).content.endswith("9443 in staging.") and engine.get(mid).tags == ("payments", "staging")
    for bad, needle in (({"importance": 3}, "out of range"), ({"kind": "banana"}, "unknown kind"),
                        ({"content": "  "}, "content is empty"), ({}, "nothing to change")):
        refused = _post(client, f"/viewer/api/memory/{mid}/edit", bad)
        assert refused.status_code == 400 and needle in refused.json()["error"], refused.text
    assert _post(client, f"/viewer/api/memory/{mid}/pin").json()["memory"]["pinned"] is True
    refused = _post(client, f"/viewer/api/memory/{mid}/forget")
    assert refused.status_code == 400 and "pinned" in refused.json()["error"]
    assert _post(client, f"/viewer/api/memory/{mid}/unpin").json()["memory"]["pinned"] is False
    assert _post(client, f"/viewer/api/memory/{mid}/forget", {"reason": "moved"}).json()["memory"]["status"] == "forgotten"
    ops = [(o.op, o.actor, (o.detail or {}).get("client")) for o in engine.journal.ops(memory_id=mid)]
    assert [op for op, _, _ in ops[:5]] == ["forget", "update", "update", "update", "create"]
    assert all(actor == "viewer" and client == "mnemex-viewer" for _, actor, client in ops[:4])
    hist = client.get(f"/viewer/api/memory/{mid}/history").json()
    assert [v["content"].split()[-3] for v in hist["versions"]] == ["8443", "9443"]

    sleepy = seeded["sleepy"]
    assert _post(client, f"/viewer/api/memory/{seeded['deploy']}/restore").status_code == 400  # not dormant
    restored = _post(client, f"/viewer/api/memory/{sleepy}/restore").json()["memory"]
    assert restored["dormant"] is False and restored["tier"] != "dormant"
    assert engine.journal.ops(memory_id=sleepy)[0].op == "reactivate"

    unconfirmed = _post(client, f"/viewer/api/memory/{sleepy}/purge", {"confirm": "x"})
    assert unconfirmed.status_code == 400 and sleepy[:8] in unconfirmed.json()["error"]
    assert engine.resolve(sleepy) == sleepy
    assert _post(client, f"/viewer/api/memory/{sleepy}/purge", {"confirm": sleepy[:8]}).json() == \
        {"action": "purged", "id": sleepy}
    assert client.get(f"/viewer/api/memory/{sleepy}").status_code == 404
    assert any(o.op == "purge" for o in engine.journal.ops(limit=20))


def test_guard_refuses_foreign_hosts_origins_and_missing_tokens(client, seeded, engine):
    mid = seeded["deploy"]
    assert client.get("/viewer/api/overview", headers={"Host": "evil.example"}).status_code == 421
    assert client.get("/viewer/api/overview", headers={"Host": f"localhost:{PORT}"}).status_code == 200
    foreign = client.get("/viewer/api/overview", headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403 and "evil.example" in foreign.json()["error"]
    assert client.get("/viewer/api/overview", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    # a write from a foreign page: the Origin alone stops it, and it could not know the CSRF token
    assert _post(client, f"/viewer/api/memory/{mid}/pin", Origin="http://evil.example").status_code == 403
    no_csrf = client.post(f"/viewer/api/memory/{mid}/pin", json={})
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.json()["error"]
    wrong = client.post(f"/viewer/api/memory/{mid}/pin", json={}, headers={"X-Mnemex-Csrf": "x" * 43})
    assert wrong.status_code == 403
    assert client.get(f"/viewer/api/memory/{mid}/pin").status_code == 405  # writes are POST only
    form = client.post(f"/viewer/api/memory/{mid}/pin", data={"a": "b"}, headers={"X-Mnemex-Csrf": client.csrf})
    assert form.status_code == 415
    assert engine.get(mid).pinned is False
    client.cookies.clear()
    assert client.get("/viewer/api/overview").status_code == 401
    assert client.get("/viewer/?key=wrong").status_code == 401


def test_a_taken_viewer_port_is_one_line_that_says_what_to_change():
    from mnemex.errors import DaemonError
    from mnemex.server.viewer.listener import bind_loopback

    taken = bind_loopback(0)
    try:
        with pytest.raises(DaemonError, match=r"viewer port \d+ is in use: set server.viewer_port"):
            bind_loopback(taken.getsockname()[1])
    finally:
        taken.close()



def test_viewer_requests_count_as_daemon_activity():
    import asyncio

    from mnemex.server.daemon import Activity

    seen = []

    async def viewer_app(scope, receive, send):
        seen.append(activity.in_flight)

    activity = Activity(viewer_app)
    activity.last -= 1000  # idle for a while
    asyncio.run(activity.wrap(viewer_app)({"type": "http"}, None, None))
    assert seen == [1] and activity.in_flight == 0 and activity.idle_for() < 5


def test_skipped_writes_and_dream_cycles_show_in_the_stats(client, engine, seeded):
    """A statement the gate skips leaves a `skip` op on the memory that holds it (no text of its own),
    so the write-path chart counts every outcome; each dream cycle's report is listed."""
    from mnemex.engine.write.prediction_gate import GateDecision
    from mnemex.models import WriteAction

    held = engine.get(seeded["port"])
    new = held.model_copy(update={"id": "00000000-0000-4000-8000-0000000000aa",
                                  "content": "payments API: port 8443 on staging"})
    out = engine.writer._apply(new, [0.0], new.content,
                               GateDecision(WriteAction.SKIPPED, held, 0.72, "borderline duplicate"), [])
    assert out.action == WriteAction.SKIPPED and engine.get(seeded["port"]).content == held.content
    history = client.get(f"/viewer/api/memory/{seeded['port']}/history").json()
    assert history["audit"][0]["op"] == "skip" and "port 8443 on staging" not in str(history["audit"][0])
    engine.dream()
    s = client.get("/viewer/api/stats").json()
    assert sum(row.get("skip", 0) for row in s["write_ops"]) == 1
    assert len(s["dreams"]) == 1 and {"rehearsed", "themes", "forgotten", "elapsed_seconds"} <= set(s["dreams"][0])
    assert s["lifecycle"]["dormant"] >= 1 and s["lifecycle"]["average_retention"] is not None
