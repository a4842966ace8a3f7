"""docs/: the generated references are current, and every link of the index resolves."""

from __future__ import annotations

import re
from pathlib import Path

from mnemex.config.reference import render_markdown
from mnemex.server.reference import render

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_configuration_reference_is_generated_from_the_settings():
    assert (DOCS / "configuration.md").read_text(encoding="utf-8") == render_markdown(), (
        "run: python -m mnemex.config.reference --markdown > docs/configuration.md")


def test_the_tools_reference_is_generated_from_the_tool_contracts():
    text = render()
    assert (DOCS / "tools.md").read_text(encoding="utf-8") == text, (
        "run: python -m mnemex.server.reference > docs/tools.md")
    for tool in ("memorize", "search_memory", "rate_memory", "list_memories", "memory_block_replace"):
        assert f"\n## {tool}\n" in text


def test_every_link_of_the_docs_index_resolves():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", index):
        assert (DOCS / target).exists(), target
