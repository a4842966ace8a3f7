"""docs/: the generated references are current, every relative link of the README and of docs/ resolves,
and every CLI command is in the command-line page."""

from __future__ import annotations

import re
from pathlib import Path

from mnemex.config.reference import render_markdown
from mnemex.server.reference import render

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_the_configuration_reference_is_generated_from_the_settings():
    assert (DOCS / "configuration.md").read_text(encoding="utf-8") == render_markdown(), (
        "run: python -m mnemex.config.reference --markdown > docs/configuration.md")


def test_the_tools_reference_is_generated_from_the_tool_contracts():
    text = render()
    assert (DOCS / "tools.md").read_text(encoding="utf-8") == text, (
        "run: python -m mnemex.server.reference > docs/tools.md")
    for tool in ("memorize", "search_memory", "rate_memory", "list_memories", "memory_block_replace"):
        assert f"\n## {tool}\n" in text


def test_every_relative_link_of_the_readme_and_the_docs_resolves():
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", target):
                assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_every_docs_page_is_in_the_index():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for page in DOCS.glob("*.md"):
        assert page.name == "README.md" or f"({page.name})" in index, f"docs/README.md does not link {page.name}"


def test_every_cli_command_is_on_the_command_line_page():
    from mnemex.cli import build_parser

    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for name in sub.choices:
        assert re.search(rf"mnemex {re.escape(name)}\b", page), f"docs/cli.md does not show `mnemex {name}`"
