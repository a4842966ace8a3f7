"""The `mnemex` command as a user runs it: real subprocesses, a temporary data dir."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow


def test_add_search_show_history_timeline_stats(run):
    out = run("add", "The API server listens on port 8080", "--kind", "fact", "--tags", "api,ports", "--json")
    first = json.loads(out.stdout)
    assert first["action"] == "created"
    second = json.loads(run("add", "The API server listens on port 9090", "--json").stdout)
    assert second["action"] == "superseded" and second["affected_ids"] == [first["id"]]
    hits = json.loads(run("search", "which port does the API listen on", "--json").stdout)
    assert hits[0]["id"] == second["id"] and first["id"] not in [h["id"] for h in hits]
    history = json.loads(run("history", second["id"], "--json").stdout)
    assert [h["id"] for h in history["chain"]] == [first["id"], second["id"]]
    shown = json.loads(run("show", first["id"], "--json").stdout)
    assert shown[0]["status"] == "superseded" and shown[0]["tags"] == ["api", "ports"]
    timeline = json.loads(run("timeline", second["id"], "--json").stdout)
    assert timeline["anchor"]["id"] == second["id"]
    stats = json.loads(run("stats", "--json").stdout)
    assert (stats["memories_total"], stats["memories_current"]) == (2, 1)


def test_cli_goes_through_a_running_daemon(run):
    run("daemon", "start")
    status = run("daemon", "status", "--json")
    assert json.loads(status.stdout)["running"] is True
    made = json.loads(run("add", "Feature flags live in LaunchDarkly, never in env vars", "--json").stdout)
    hits = json.loads(run("search", "where are feature flags stored", "--json").stdout)
    assert hits[0]["id"] == made["id"]
    exported = run("export")  # it needs the store alone: the daemon is stopped, and says so
    assert made["id"] in exported.stdout and "stopping the daemon" in exported.stderr
    assert json.loads(run("daemon", "status", "--json").stdout)["running"] is False
    run("search", "feature flags")  # and started again by the next command that needs it
    assert json.loads(run("daemon", "status", "--json").stdout)["running"] is True
    run("daemon", "stop")
    stopped = run("daemon", "status")  # "not running" is an answer, not a failure
    assert stopped.stdout.startswith("mnemex daemon: not running")


def test_export_import_round_trip_through_files(run, tmp_path):
    run("add", "Use pnpm, not npm, in every workspace of the monorepo", "--kind", "convention")
    run("add", "The user prefers answers with the code first", "--scope", "global")
    dump = tmp_path / "dump.jsonl"
    run("export", str(dump))
    lines = dump.read_text().splitlines()
    assert len(lines) == 2
    other = {"MNEMEX_DATA_DIR": str(tmp_path / "other")}
    imported = run("import", str(dump), extra_env=other)
    assert "2 restored" in imported.stderr
    again = tmp_path / "again.jsonl"
    run("export", str(again), extra_env=other)
    assert sorted(again.read_text().splitlines()) == sorted(lines)


def test_reindex_reports_progress_and_keeps_memories(run, tmp_path):
    run("add", "The beat task poll_carrier_status runs every 5 minutes", "--kind", "fact")
    run("add", "Use pnpm, not npm, in every workspace of the monorepo", "--kind", "convention")
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    run("export", str(before))
    proc = run("reindex")
    # not a terminal: no progress bar, one summary (after a line saying the daemon `add` started was stopped)
    assert proc.stderr.strip().splitlines()[-1] == "reindexed 2 memories (BM25)"
    run("export", str(after))
    assert sorted(after.read_text().splitlines()) == sorted(before.read_text().splitlines())
    hits = json.loads(run("search", "pollCarrierStatus", "--json").stdout)
    assert "poll_carrier_status" in hits[0]["preview"]


def test_bad_input_and_bad_config_fail_with_one_line(run, tmp_path):
    for args, needle in [(("add", "   "), "content is empty"),
                         (("show", "00000000-0000-4000-8000-000000000000"), "no memory with id"),
                         (("import", str(tmp_path / "missing.jsonl")), "no such file")]:
        proc = run(*args, ok=False)
        assert proc.returncode == 1 and needle in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "content": "ok"}\n{"content": 5}\n')
    proc = run("import", str(bad), ok=False)
    assert proc.returncode == 1 and "bad.jsonl:2" in proc.stderr and "nothing imported" in proc.stderr
    proc = run("stats", ok=False, extra_env={"MNEMEX_SERVER__PORT": "99999"})
    assert proc.returncode == 1 and "server.port" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_doctor_reports_every_check(run):
    proc = run("doctor")
    for check in ("config", "data dir writable", "embedding model", "token counter", "daemon", "store"):
        assert f"] {check}" in proc.stdout
    assert "all checks passed" in proc.stdout


def test_sweep_reports_what_it_moved(run):
    run("add", "The beat task poll_carrier_status runs every 5 minutes", "--kind", "fact")
    run("add", "Use pnpm, not npm, in every workspace of the monorepo", "--kind", "convention")
    report = json.loads(run("sweep", "--json").stdout)
    assert report["scanned"] == 2 and (report["promoted"], report["demoted"], report["deferred"]) == (0, 0, 0)
    assert report["tiers"] == {"working": 0, "episodic": 2, "semantic": 0, "dormant": 0}
    assert "swept 2 memories: 0 promoted, 0 demoted" in run("sweep").stderr  # a status line, as reindex
    bad = run("sweep", "--max-moves", "0", ok=False)
    assert bad.returncode != 0 and "max-moves" in bad.stderr
    assert "pnpm" in run("search", "which package manager?", "--dormant").stdout


def test_dream_reports_what_it_did_and_stats_show_it(run):
    run("add", "The beat task poll_carrier_status runs every 5 minutes", "--kind", "fact")
    run("add", "Production outage: the carrier API went down after the certificate expired", "--kind", "note")
    report = json.loads(run("dream", "--json").stdout)  # not a terminal: no bar, one JSON object
    assert report["scanned"] == 2 and report["flashbulbs"] == 1 and report["deferred"] == 0
    assert set(report["forgotten"]) == {"contradiction", "foresight", "records", "repeats", "utility_floor", "redundancy",
                                        "capacity"}
    plain = run("dream")
    assert plain.stdout == "" and "dreamt over 2 memories" in plain.stderr
    bad = run("dream", "--limit", "0", ok=False)
    assert bad.returncode != 0 and "limit" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["lifecycle"]["by_kind"] == {"fact": 1, "note": 1}
    assert stats["lifecycle"]["last_dream"]["scanned"] == 2
    assert "last dream" in run("stats").stdout


def test_doctor_names_a_store_of_an_older_format_and_reindex_rebuilds_it(run, tmp_path):
    import qdrant_edge as qe

    from mnemex.config import Settings
    from mnemex.store import edge

    store_dir = Settings(data_dir=tmp_path / "data").store_dir
    store_dir.parent.mkdir(parents=True, exist_ok=True)
    qe.EdgeShard.create(str(store_dir), edge._config(384, "float32")).close()  # as an older version made it
    run("add", "Use pnpm, not npm, in every workspace of the monorepo", "--kind", "convention", "--local")
    assert "older format: `mnemex reindex` rebuilds it" in run("doctor").stdout
    done = run("reindex")
    assert done.stderr.strip().splitlines()[-1] == \
        "reindexed 1 memories (BM25); the store was rebuilt in the current format"
    assert edge.stored_datatype(store_dir) == "float16"
    assert "older format" not in run("doctor").stdout
    assert "pnpm" in run("search", "which package manager?", "--local").stdout


def test_add_and_search_print_what_the_gate_offered_and_the_read_path_marked(run):
    """`add` prints the memories the gate was unsure the statement replaces; a later memory about
    much the same thing that the query's wording keeps below the older one is named beside it in
    the printed line of `search`."""
    old = json.loads(run("add", "Outbound emails from the notifier service are delivered through Postmark.",
                         "--json").stdout)
    printed = run("add", "The notifier hands its mail to Amazon SES.").stdout.splitlines()
    assert printed[0].startswith("created ")  # and the gate's unsure offer is printed, as the tool shows it
    assert printed[1] == "it may replace (if it does, add it again with --supersedes ID):"
    assert printed[2].startswith(f"  {old['id'][:8]}  Outbound emails from the notifier service")
    new = {"id": printed[0].split()[1]}
    lines = run("search", "Which provider delivers the notifier service's outbound emails?").stdout.splitlines()
    assert old["id"] in lines[0] and lines[0].endswith(f"(later {new['id'][:8]} may say otherwise)")
    assert new["id"] in lines[1] and "may say otherwise" not in lines[1]
