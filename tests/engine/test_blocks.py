"""Core memory blocks on a real journal: limits and the numbers of the error, replace once / none /
many, redaction, versions, global versus project blocks, created blocks and their cap, rendering."""

from __future__ import annotations

import shutil
import threading
from datetime import datetime, timedelta, timezone

import pytest

from mnemex.config.blocks import BlocksConfig
from mnemex.engine.blocks import MemoryBlocks
from mnemex.errors import InvalidInputError, StorageFullError
from mnemex.models import NewMemory
from mnemex.store.journal import Journal
from tests.helpers import FakeClock

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
SECRET = "ghp_5agMYLThWi4RtGLeA4BbL5ajs5s5awy7al4k"
A, B = "/work/a", "/work/b"


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3", clock=FakeClock(T0, step=timedelta(seconds=1)))
    yield j
    j.close()


def _blocks(journal, **config) -> MemoryBlocks:
    return MemoryBlocks(journal, lock=threading.RLock(), before_write=lambda: None,
                        config=BlocksConfig(**config), default_project=A)


@pytest.fixture
def blocks(journal) -> MemoryBlocks:
    return _blocks(journal)


def test_the_default_blocks_exist_empty_with_their_limits(blocks):
    shown = {b.label: b for b in blocks.list()}
    assert list(shown) == ["user", "project", "persona"]
    assert {k: (b.value, b.chars, b.limit, b.version) for k, b in shown.items()} == {
        "user": ("", 0, 2000, 0), "project": ("", 0, 4000, 0), "persona": ("", 0, 1000, 0)}
    assert (shown["user"].scope, shown["user"].project) == ("global", None)
    assert (shown["project"].scope, shown["project"].project) == ("project", A)
    assert all(b.description for b in shown.values())
    assert blocks.render() == ""


def test_append_adds_a_line_and_counts_it(blocks):
    blocks.append("user", "The user is called Ada.", by="claude-code")
    after = blocks.append("user", "  Ada prefers short answers.  ")
    assert after.value == "The user is called Ada.\nAda prefers short answers."
    assert after.chars == len(after.value) and after.version == 2
    with pytest.raises(InvalidInputError, match="empty"):
        blocks.append("user", " \x00 ")


def test_a_write_over_the_limit_says_the_limit_the_size_and_how_much_to_cut(blocks):
    blocks.rewrite("persona", "x" * 990)
    with pytest.raises(InvalidInputError) as err:
        blocks.append("persona", "y" * 30)  # 990 + newline + 30 = 1021
    message = str(err.value)
    assert "1021 characters" in message and "limit of 1000" in message and "cut at least 21" in message
    assert blocks.get("persona").value == "x" * 990  # nothing was written
    assert len(blocks.versions("persona")) == 1
    exactly = blocks.append("persona", "y" * 9)
    assert exactly.chars == 1000


def test_replace_changes_the_one_occurrence_and_refuses_none_or_many(blocks):
    blocks.rewrite("project", "Tests run with pytest.\nThe API uses FastAPI.\nThe CLI uses typer.")
    done = blocks.replace("project", "FastAPI", "Litestar")
    assert done.value == "Tests run with pytest.\nThe API uses Litestar.\nThe CLI uses typer."
    with pytest.raises(InvalidInputError, match="does not occur") as none:
        blocks.replace("project", "Django", "Flask")
    assert "'Django'" in str(none.value)
    with pytest.raises(InvalidInputError, match="occurs 2 times"):
        blocks.replace("project", "uses", "relies on")
    blocks.rewrite("notes", "aaa")
    with pytest.raises(InvalidInputError, match="occurs 2 times"):  # overlapping occurrences count
        blocks.replace("notes", "aa", "b")
    deleted = blocks.replace("project", "\nThe CLI uses typer.", "")
    assert deleted.value == "Tests run with pytest.\nThe API uses Litestar."
    assert blocks.get("project").version == 3
    with pytest.raises(InvalidInputError, match="old is empty"):
        blocks.replace("project", "", "x")


def test_a_replace_that_would_overflow_is_refused(blocks):
    blocks.rewrite("persona", "Be brief." + "z" * 900)  # 909 characters
    with pytest.raises(InvalidInputError, match="1017 characters, over its limit of 1000: cut at least 17"):
        blocks.replace("persona", "Be brief.", "Be brief, always." + "w" * 100)  # 9 -> 117 characters
    assert blocks.get("persona").chars == 909


def test_secrets_are_redacted_before_they_are_counted_or_stored(blocks, journal):
    block = blocks.append("project", f"CI pushes with the token {SECRET} to the registry")
    assert SECRET not in block.value and "[REDACTED:github_token]" in block.value
    assert block.chars == len(block.value)
    redacted = blocks.rewrite("api-notes", f"deploy key: {SECRET}", description=f"keys such as {SECRET}")
    assert SECRET not in redacted.value and SECRET not in redacted.description
    # The whole text is redacted, not only the new part: a value is a secret by its context.
    blocks.rewrite("creds", "The staging database password: TBD")
    joined = blocks.replace("creds", "TBD", "hunter2hunter2")
    assert "hunter2" not in joined.value and "[REDACTED:password]" in joined.value
    raw = journal.path.read_bytes() + journal.path.with_name(journal.path.name + "-wal").read_bytes()
    assert SECRET.encode() not in raw and b"hunter2" not in raw
    assert all(SECRET not in v.value for v in blocks.versions("project"))


def test_every_change_is_a_version_with_its_op_and_author(blocks, journal):
    blocks.append("user", "Ada", by="cursor")
    blocks.replace("user", "Ada", "Ada Lovelace", by="claude-code")
    blocks.rewrite("user", "Ada Lovelace, mathematician")
    unchanged = blocks.rewrite("user", "Ada Lovelace, mathematician")  # the same text: no new version
    assert unchanged.version == 3
    versions = blocks.versions("user")
    assert [(v.version, v.op, v.actor, v.value) for v in versions] == [
        (1, "append", "cursor", "Ada"), (2, "replace", "claude-code", "Ada Lovelace"),
        (3, "rewrite", None, "Ada Lovelace, mathematician")]
    assert versions[0].ts < versions[1].ts < versions[2].ts
    assert blocks.get("user").updated_at == versions[-1].ts
    audit = [o for o in journal.ops() if o.op.startswith("block_")]
    assert [o.op for o in audit] == ["block_rewrite", "block_replace", "block_append"]
    assert audit[0].detail == {"block": "user", "project": "", "version": 3, "chars": 27}


def test_a_stale_version_is_refused(journal):
    journal.write_block(A, "project", "one", char_limit=4000, description="", op="rewrite", expected_version=0)
    with pytest.raises(InvalidInputError, match="changed while it was being edited"):
        journal.write_block(A, "project", "two", char_limit=4000, description="", op="rewrite", expected_version=0)
    assert journal.block(A, "project").value == "one"


def test_user_and_persona_are_global_project_blocks_belong_to_their_project(blocks):
    blocks.append("user", "Ada likes tabs.", project=A)
    blocks.append("persona", "Answer in English.", project=A)
    blocks.append("project", "Project A uses Go.", project=A)
    blocks.rewrite("todo", "ship v2", project=A)
    in_b = {b.label: b.value for b in blocks.list(B)}
    assert in_b == {"user": "Ada likes tabs.", "project": "", "persona": "Answer in English."}
    assert blocks.get("project", B).value == "" and blocks.get("project", A).value == "Project A uses Go."
    with pytest.raises(InvalidInputError, match="no block 'todo' in project /work/b"):
        blocks.get("todo", B)
    assert blocks.get("todo").value == "ship v2"  # the default project is A


def test_without_a_project_only_the_global_blocks_are_there(journal):
    blocks = MemoryBlocks(journal, lock=threading.RLock(), before_write=lambda: None)
    blocks.append("user", "Ada")
    assert [b.label for b in blocks.list()] == ["user", "persona"]
    with pytest.raises(InvalidInputError, match="belongs to a project"):
        blocks.append("project", "x")


def test_created_blocks_have_their_own_limit_and_description(blocks):
    made = blocks.rewrite("api-notes", "POST /v1/jobs is idempotent", limit=500, description="Notes on the HTTP API.")
    assert (made.label, made.scope, made.limit, made.description, made.version) == (
        "api-notes", "project", 500, "Notes on the HTTP API.", 1)
    kept = blocks.append("api-notes", "GET /v1/jobs pages by cursor")
    assert kept.limit == 500 and kept.description == "Notes on the HTTP API."
    plain = blocks.rewrite("scratch", "one note")
    assert plain.limit == 2000 and plain.description == ""
    assert [b.label for b in blocks.list()] == ["user", "project", "persona", "api-notes", "scratch"]
    with pytest.raises(InvalidInputError, match="no block 'nothing'.*memory_block_rewrite"):
        blocks.append("nothing", "x")
    with pytest.raises(InvalidInputError, match="between 100 and 8000"):
        blocks.rewrite("big", "x", limit=9000)
    with pytest.raises(InvalidInputError, match="blocks.user_limit"):
        blocks.rewrite("user", "x", limit=5000)
    for bad in ("Notes", "1st", "a" * 41, "has space", "", "ünïcode"):
        with pytest.raises(InvalidInputError, match="label"):
            blocks.rewrite(bad, "x")


def test_the_number_of_created_blocks_per_project_is_capped(journal):
    blocks = _blocks(journal, max_custom_blocks=2)
    blocks.rewrite("one", "1")
    blocks.rewrite("two", "2")
    with pytest.raises(InvalidInputError, match=r"already has 2 blocks.*max_custom_blocks = 2.*one, two"):
        blocks.rewrite("three", "3")
    blocks.rewrite("three", "3", project=B)  # another project has room of its own
    blocks.rewrite("one", "1, again")  # an existing block may still change
    emptied = blocks.rewrite("two", "")
    assert emptied.value == "" and [b.label for b in blocks.list()][3:] == ["one"]
    with pytest.raises(InvalidInputError, match="no block 'two'"):
        blocks.get("two")
    blocks.rewrite("three", "3")  # an emptied block no longer counts
    assert [b.label for b in blocks.list()][3:] == ["one", "three"]
    assert [v.value for v in blocks.versions("two")] == ["2", ""]


def test_render_delimits_every_non_empty_block(blocks):
    blocks.append("project", "Deploys go through ArgoCD.")
    blocks.rewrite("todo", "finish </memory_block> escaping", description='Open "tasks"')
    text = blocks.render()
    assert text == (
        '<memory_block label="project" chars="26/4000" description="This project\'s durable context: purpose, '
        'stack, conventions, decisions, gotchas.">\nDeploys go through ArgoCD.\n</memory_block>\n'
        '<memory_block label="todo" chars="31/2000" description="Open &quot;tasks&quot;">\n'
        'finish &lt;/memory_block> escaping\n</memory_block>')
    assert "user" not in text and text.count("</memory_block>") == 2
    blocks.rewrite("todo", "x </ MEMORY_BLOCK> y")
    assert "x &lt;/ MEMORY_BLOCK> y" in blocks.render()


def test_the_engine_has_the_blocks_and_refuses_writes_on_a_full_disk(engine, monkeypatch):
    block = engine.blocks.append("project", "Uses uv for packaging.", by="claude-code")
    assert block.project == "/work/proj" and engine.blocks.get("project").value == "Uses uv for packaging."
    assert engine.journal.block_versions("/work/proj", "project")[0].actor == "claude-code"
    engine.forget(engine.memorize(NewMemory(content="The build uses uv")).id, purge=True)
    assert engine.blocks.get("project").version == 1  # purging memories leaves blocks alone

    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(2**30, 2**30 - 2**20, 2**20))
    with pytest.raises(StorageFullError, match="MB free"):
        engine.blocks.append("user", "never stored")
    assert engine.blocks.get("user").version == 0
