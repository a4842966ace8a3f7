"""`mnemex viewer` against a real daemon: it starts the daemon, the daemon opens the loopback
listener once and records it in viewer.json (0600), the page needs the key, MCP is not served on
that port, and stopping the daemon closes it."""

from __future__ import annotations

import http.client
import json
import stat
from pathlib import Path
from urllib.parse import urlsplit


def _get(port: int, path: str, cookie: str = "") -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp


def test_viewer_opens_on_loopback_with_a_key_and_closes_with_the_daemon(run, tmp_path: Path):
    shown = run("viewer", "--no-open")  # no TTY here: it only prints
    url = shown.stdout.strip()
    assert "open the link above" in shown.stderr and "opened in your browser" not in shown.stderr
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1" and parts.path == "/viewer/" and parts.query.startswith("key=")

    record = tmp_path / "data" / "run" / "viewer.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    info = json.loads(record.read_text())
    assert info["open_url"] == url and info["port"] == parts.port

    again = json.loads(run("viewer", "--json").stdout)
    assert again["port"] == parts.port  # opened once per daemon

    assert _get(parts.port, "/viewer/api/overview").status == 401  # no key, no data
    traded = _get(parts.port, f"/viewer/?{parts.query}")
    assert traded.status == 303
    cookie = traded.getheader("set-cookie").split(";")[0]
    overview = _get(parts.port, "/viewer/api/overview", cookie)
    assert overview.status == 200
    assert _get(parts.port, "/mcp", cookie).status == 404  # MCP stays on the owner-only socket

    run("daemon", "stop")
    assert not record.exists()
    try:
        _get(parts.port, "/viewer/api/overview", cookie)
        raise AssertionError("the viewer still answers after the daemon stopped")
    except OSError:
        pass
