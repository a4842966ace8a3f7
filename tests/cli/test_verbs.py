"""The verbs of every tool on the command line, in-process and through a running daemon; short
id prefixes; imports from other tools; `daemon status`; progress bars only on a terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent.parent / "data" / "import"


def listed(run, *args: str) -> list[dict]:
    return json.loads(run("list", "--json", *args).stdout)


@pytest.mark.parametrize("through_daemon", [False, True], ids=["in-process", "daemon"])
def test_list_update_pin_link_related_forget_purge(run, through_daemon):
    if not through_daemon:
        run.env["MNEMEX_LOCAL"] = "1"  # else the first command starts the daemon
    port = json.loads(run("add", "The API server listens on port 8080", "--kind", "fact", "--tags", "api", "--json").stdout)
    deploy = json.loads(run("add", "We deploy with ArgoCD from the main branch", "--kind", "decision", "--json").stdout)
    p, d = port["id"][:8], deploy["id"][:6]  # the lists print 8 characters; 6 are enough
    assert [h["id"] for h in listed(run)] == [deploy["id"], port["id"]]  # newest first
    assert [h["id"] for h in listed(run, "--kind", "decision")] == [deploy["id"]]
    assert [h["id"] for h in listed(run, "--tag", "api", "--limit", "1")] == [port["id"]]
    assert p in run("recent").stdout

    assert run("pin", d).stdout.startswith(f"pinned {deploy['id'][:8]}")
    assert [h["id"] for h in listed(run, "--pinned")] == [deploy["id"]]
    refused = run("forget", d, ok=False)
    assert refused.returncode == 1 and "is pinned" in refused.stderr and "mnemex unpin" in refused.stderr
    run("unpin", d)
    assert listed(run, "--pinned") == []

    updated = json.loads(run("update", p, "--content", "The API server listens on port 9090", "--json").stdout)
    assert updated["content"] == "The API server listens on port 9090" and updated["id"] == port["id"]
    assert "nothing to change" in run("update", p, ok=False).stderr
    found = json.loads(run("search", "which port does the API use", "--tag", "api", "--since", "1h", "--json").stdout)
    assert [h["id"] for h in found] == [port["id"]]
    assert json.loads(run("search", "which port does the API use", "--until", "2020-01-01", "--json").stdout) == []

    assert run("link", d, "causes", p).stdout.strip() == f"linked {deploy['id'][:8]} causes {port['id'][:8]}"
    related = json.loads(run("related", d, "--json").stdout)
    assert [(r["memory"]["id"], r["relation"]) for r in related["results"]] == [(port["id"], "causes")]

    assert run("rate", p, "helped").stdout.startswith(f"rated {port['id'][:8]} helped: utility 0.55 (1 helped, 0 misled)")
    assert "invalid choice" in run("rate", p, "great", ok=False).stderr

    forgot = json.loads(run("forget", p, "--reason", "moved to the gateway", "--json").stdout)
    assert forgot == {"id": port["id"], "action": "invalidated", "valid_until": forgot["valid_until"]}
    assert [h["id"] for h in listed(run)] == [deploy["id"]]
    assert port["id"] in [h["id"] for h in listed(run, "--history")]

    unconfirmed = run("forget", d, "--purge", ok=False)  # not a terminal: --yes is required
    assert unconfirmed.returncode == 1 and "--yes" in unconfirmed.stderr
    assert deploy["id"] in [h["id"] for h in listed(run)]
    assert "purged" in run("forget", d, "--purge", "--yes").stdout
    assert listed(run, "--history") and deploy["id"] not in [h["id"] for h in listed(run, "--history")]


def test_id_prefixes_unique_ambiguous_and_too_short(run, tmp_path):
    project = str((tmp_path / "repo").resolve())  # where `run` runs: the project of what `add` writes
    rows = [{"id": f"abcdef{n}0-1111-4111-8111-11111111111{n}", "content": f"Memory number {n} about caching",
             "project": project} for n in (1, 2)]
    dump = tmp_path / "two.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run("import", str(dump))
    assert json.loads(run("show", "abcdef10", "--json").stdout)[0]["id"] == rows[0]["id"]
    assert json.loads(run("show", "ABCDEF20-1111", "--json").stdout)[0]["id"] == rows[1]["id"]
    newer = json.loads(run("add", "Caching uses Redis 7 now", "--supersedes", "abcdef10", "--json").stdout)
    assert newer["action"] == "superseded" and newer["affected_ids"] == [rows[0]["id"]]
    assert json.loads(run("show", "abcdef10", "--json").stdout)[0]["status"] == "superseded"
    for args, needle in [(("show", "abcdef"), "matches 2 memories (abcdef10-111…, abcdef20-111…)"),
                         (("pin", "abcd"), "too short: give at least 6 characters"),
                         (("show", "ffffff"), "no memory with id 'ffffff'")]:
        proc = run(*args, ok=False)
        assert proc.returncode == 1 and needle in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_import_detects_formats_reports_counts_and_is_idempotent(run):
    for source, fmt in [(DATA / "memory.jsonl", "memory-jsonl"), (DATA / "project", "rules"),
                        (DATA / "notes", "markdown"), (DATA / "partial.jsonl", "mnemex")]:
        first = json.loads(run("import", str(source), "--json").stdout)
        assert first["format"] == fmt and first["total"] > 0 and first["created"] > 0, first
        again = json.loads(run("import", str(source), "--json").stdout)
        assert again["unchanged"] == again["total"] == first["total"] and again["created"] == 0, again
    text = run("import", str(DATA / "project" / "AGENTS.md"), "--from", "rules").stderr
    assert text.strip().endswith("2 items: 2 unchanged")
    dry = json.loads(run("import", str(DATA / "memory.jsonl"), "--dry-run", "--json").stdout)
    assert dry == {"format": "memory-jsonl", "items": 11, "restore": 0, "write": 11}
    blocked = run("import", str(DATA / "notes"), "--from", "memory-jsonl", ok=False)
    assert blocked.returncode == 1 and len(blocked.stderr.strip().splitlines()) == 1


def test_daemon_status_is_text_with_json_for_scripts(run):
    idle = run("daemon", "status")
    assert idle.returncode == 0 and idle.stdout.startswith("mnemex daemon: not running")
    run("daemon", "start")
    up = run("daemon", "status")
    assert up.stdout.startswith("mnemex daemon: running (pid ") and "exits after 4 h" in up.stdout
    status = json.loads(run("daemon", "status", "--json").stdout)
    assert status["running"] and status["answering"] and status["idle_exit_seconds"] == 4 * 3600


def test_progress_bar_on_a_terminal_only(run, tmp_path):
    rows = "".join(json.dumps({"content": f"Service {n} listens on port {8000 + n}", "kind": "fact"}) + "\n"
                   for n in range(40))
    (tmp_path / "ports.jsonl").write_text(rows)
    piped = run("import", str(tmp_path / "ports.jsonl"))
    assert piped.stderr.count("\n") == 1 and "%|" not in piped.stderr  # a pipe gets the summary alone
    export = tmp_path / "out.jsonl"
    main, child = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}
    env.update(MNEMEX_DATA_DIR=str(tmp_path / "data"), MNEMEX_CONFIG=str(tmp_path / "config.toml"))
    proc = subprocess.run([sys.executable, "-m", "mnemex", "export", str(export)], stderr=child,
                          stdout=subprocess.PIPE, env=env, cwd=tmp_path / "repo", timeout=120)
    os.close(child)
    drawn = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    assert proc.returncode == 0 and len(export.read_text().splitlines()) == 40
    assert b"exporting:" in drawn and b"/40 [" in drawn and b"exported 40 memories" in drawn, drawn[-400:]


def test_blocks_shown_and_edited_in_process_and_a_daemon_without_block_tools_says_what_to_do(run):
    run.env["MNEMEX_LOCAL"] = "1"
    assert run("block", "append", "user", "Prefers answers with the code first").stdout.startswith("appended to user")
    assert run("block", "replace", "user", "code first", "code first, then why").stdout.startswith("replaced in user")
    blocks = {b["label"]: b for b in json.loads(run("blocks", "--json").stdout)}
    assert blocks["user"]["value"] == "Prefers answers with the code first, then why" and blocks["user"]["scope"] == "global"
    missing = run("block", "replace", "user", "not there", "x", ok=False)
    assert missing.returncode != 0 and len(missing.stderr.strip().splitlines()) == 1
    del run.env["MNEMEX_LOCAL"]  # the next command starts a daemon with the default (context) strategy
    refused = run("block", "append", "user", "x", ok=False)
    assert refused.returncode == 1 and "self_editing" in refused.stderr and "--local" in refused.stderr
