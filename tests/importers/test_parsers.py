"""The importers' parsers on small realistic sources (tests/data/import): what each item becomes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemex import importers
from mnemex.errors import InvalidInputError
from mnemex.importers.items import Restore

DATA = Path(__file__).parent.parent / "data" / "import"


def contents(path: Path, fmt: str) -> dict[str, object]:
    return {item.new.content: item.new for item in importers.parse(path, fmt)}


@pytest.mark.parametrize("name, fmt", [("memory.jsonl", "memory-jsonl"), ("notes", "markdown"),
                                       ("notes/auth-design.md", "markdown"), ("project", "rules"),
                                       ("project/CLAUDE.md", "rules"), ("project/.cursor/rules", "rules"),
                                       ("project/.cursor/rules/testing.mdc", "rules"), ("partial.jsonl", "mnemex")])
def test_the_format_is_detected_from_the_path(name, fmt):
    assert importers.detect(DATA / name) == fmt


def test_an_unknown_file_names_the_flag(tmp_path):
    odd = tmp_path / "data.jsonl"
    odd.write_text('{"weird": 1}\n')
    with pytest.raises(InvalidInputError, match="--from memory-jsonl|markdown|rules|mnemex"):
        importers.detect(odd)
    with pytest.raises(InvalidInputError, match="no such file"):
        importers.detect(tmp_path / "missing")


def test_memory_jsonl_observations_and_relations():
    got = contents(DATA / "memory.jsonl", "memory-jsonl")
    assert len(got) == 11
    obs = got["Dana_Okafor: Prefers small pull requests under 300 lines"]
    assert obs.tags == ("person",) and obs.metadata["entity"] == "Dana_Okafor" and obs.kind is None
    assert obs.provenance.source == "import" and obs.provenance.reference.endswith("memory.jsonl")
    assert got["ledger-service stores data in Postgres_15"].kind == "fact"
    assert got["Friday_freeze is a policy"].kind == "entity"  # an entity without observations is still known


def test_basic_memory_notes_observations_relations_and_sections():
    got = contents(DATA / "notes", "markdown")
    decision = got["Auth Design: Access tokens expire after 15 minutes, refresh tokens after 30 days "
                   "(chosen for stateless scaling)"]
    assert decision.kind == "decision" and {"auth", "security", "tokens"} <= set(decision.tags)
    assert got["Auth Design: The team prefers opaque refresh tokens stored server-side"].kind == "preference"
    assert got["Auth Design implements Login Flow"].kind == "fact"
    rollback = next(c for c in got if c.startswith("Release checklist — Rollback: Run `make rollback"))
    assert got[rollback].kind == "note"
    assert any("The pipeline must be green" in c for c in got)  # [[CI pipeline|pipeline]] read as its text
    assert not any("Obsidian workspace" in c for c in got)  # hidden folders are not notes


def test_rule_files_each_bullet_a_convention_or_preference_with_its_file():
    items = importers.parse(DATA / "project", "rules")
    got = {i.new.content: i.new for i in items}
    assert len(got) == 10
    money = got["Money is always an integer number of cents, never a float."]
    assert money.kind == "convention" and money.metadata["section"] == "Conventions"
    assert money.provenance.reference == str((DATA / "project" / "CLAUDE.md").resolve())
    assert got["Prefer `httpx` over `requests` in new code."].kind == "preference"
    assert got["The user prefers short commit messages in the imperative mood."].kind == "preference"
    nested = got["Every new endpoint gets an OpenAPI example: a success response; the 422 validation error"]
    assert nested.kind == "convention"
    testing = next(v for c, v in got.items() if c.startswith("Tests use pytest fixtures"))
    assert testing.metadata["globs"] == ["tests/**/*.py"] and "testing" in testing.tags
    assert not any("make test\n" in c or c.startswith("# not a rule") for c in got)  # code blocks are examples


def test_mnemex_rows_without_id_are_filled_and_rows_with_id_restored(tmp_path):
    got = contents(DATA / "partial.jsonl", "mnemex")
    assert got["We chose Celery over RQ for the retry policies"].scope == "global"
    assert got["Use the `--frozen` flag with uv sync in CI"].importance == 0.8
    full = tmp_path / "export.jsonl"
    full.write_text('{"id": "0b7e2f6c-8a51-4f0e-9a1b-3c2d4e5f6a7b", "content": "kept as given", "status": "forgotten"}\n')
    (item,) = importers.parse(full, "mnemex")
    assert isinstance(item, Restore) and item.memory.status == "forgotten"


@pytest.mark.parametrize("line, needle", [('{"content": ""}', "content"), ('{"content": "x", "kind": "gossip"}', "kind"),
                                          ("not json", "not JSON"), ('{"id": "x", "content": 5}', "content")])
def test_a_bad_row_names_its_line_and_field(tmp_path, line, needle):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine"}\n' + line + "\n")
    with pytest.raises(InvalidInputError) as err:
        importers.parse(bad, "mnemex")
    message = str(err.value)
    assert "bad.jsonl:2" in message and needle in message and "nothing imported" in message
    assert "\n" not in message and "pydantic" not in message
