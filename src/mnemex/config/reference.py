"""The documented configuration file, generated from the settings tree so it cannot drift.

`python -m mnemex.config.reference > configs/mnemex.toml` writes it; a test checks the file in
the repository is what this prints. Every key appears with its description and its default;
keys without a default value (unset, or platform-dependent) appear commented out.
"""

from __future__ import annotations

import json
import sys
import textwrap
from enum import Enum
from typing import Any

from pydantic import BaseModel

from mnemex.config.settings import Settings

HEADER = """\
# mnemex configuration (TOML), generated from the settings model: `python -m mnemex.config.reference`.
# Default location: the platform's user config folder (Linux: ~/.config/mnemex/config.toml, macOS:
# ~/Library/Application Support/mnemex/config.toml); MNEMEX_CONFIG points at another file. Every
# key can also be set in the environment as MNEMEX_<SECTION>__<KEY> (nested sections joined by
# __), e.g. MNEMEX_STORE__URL=http://qdrant:6333 or MNEMEX_RETRIEVAL__WEIGHTS__ENTITY=0.1; the
# environment wins over the file. Unknown keys and invalid values stop mnemex at startup with one
# line naming the key. Every value below is the default: delete what you do not change.
"""
#: Top-level keys whose default depends on the machine: shown as commented examples.
EXAMPLES = {"data_dir": '"/home/me/.local/share/mnemex"', "project": '"/home/me/src/myapp"'}
WIDTH = 100


def render() -> str:
    lines = [HEADER]
    defaults = Settings.model_construct()
    _fields(lines, Settings, defaults, prefix="", top=True)
    return "\n".join(lines).rstrip() + "\n"


def _fields(lines: list[str], model: type[BaseModel], value: BaseModel, prefix: str, top: bool = False) -> None:
    tables: list[tuple[str, Any, Any]] = []
    for name, field in model.model_fields.items():
        current = getattr(value, name, None)
        if top and name in EXAMPLES:
            _describe(lines, field.description)
            lines.append(f"# {name} = {EXAMPLES[name]}")
            lines.append("")
            continue
        if _is_table(current):
            tables.append((name, field.description, current))
            continue
        _describe(lines, field.description)
        rendered = _value(current)
        if rendered is None:  # unset by default: show an example, commented out
            example = _value(field.examples[0]) if field.examples else "..."
            lines.append(f"# {name} = {example}")
        else:
            lines.append(f"{name} = {rendered}")
    if lines and lines[-1] != "":
        lines.append("")
    for name, description, current in tables:
        path = f"{prefix}{name}"
        if isinstance(current, dict):
            for n, (key, sub) in enumerate(current.items()):
                lines.append(f"[{path}.{_key(key)}]")
                if n == 0:
                    _describe(lines, description)
                _fields(lines, type(sub), sub, prefix=f"{path}.{_key(key)}.")
            continue
        lines.append(f"[{path}]")
        _describe(lines, description or section_doc(type(current)))
        _fields(lines, type(current), current, prefix=f"{path}.")


def _is_table(value: Any) -> bool:
    """A section (a model) or a table of sections keyed by name: rendered as its own table(s)."""
    return isinstance(value, BaseModel) or (isinstance(value, dict) and bool(value)
                                            and all(isinstance(v, BaseModel) for v in value.values()))


def section_doc(model: type[BaseModel]) -> str:
    """The first paragraph of a section model's docstring."""
    return (model.__doc__ or "").strip().split("\n\n")[0]


def _describe(lines: list[str], text: str | None) -> None:
    if text:
        lines.extend("# " + line for line in textwrap.wrap(" ".join(text.split()), WIDTH - 2))


def _key(key: Any) -> str:
    return str(key.value if isinstance(key, Enum) else key)


def _value(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return json.dumps(value.value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):  # an inline table (an empty one: "use the default table")
        items = [(k, _value(v)) for k, v in value.items()]
        return "{" + ", ".join(f"{json.dumps(_key(k))} = {v}" for k, v in items if v is not None) + "}"
    if isinstance(value, (list, tuple)):
        items = [_value(v) for v in value]
        return "[" + ", ".join(i for i in items if i is not None) + "]"
    return json.dumps(str(value))


MARKDOWN_HEADER = """\
# Configuration reference

Generated from the settings model (`python -m mnemex.config.reference --markdown > docs/configuration.md`);
do not edit. mnemex reads a TOML file (Linux: `~/.config/mnemex/config.toml`, macOS:
`~/Library/Application Support/mnemex/config.toml`; `MNEMEX_CONFIG` points at another) and the
environment: every key below is also `MNEMEX_<SECTION>__<KEY>` (nested sections joined by `__`),
e.g. `MNEMEX_STORE__URL=http://qdrant:6333`; the environment wins. Unknown keys and invalid values
stop mnemex at startup with one line naming the key. The commented TOML with the same content is
[`configs/mnemex.toml`](../configs/mnemex.toml).
"""


def _pipe(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown() -> str:
    """The same tree as one Markdown table per section: key, default, what it does."""
    lines = [MARKDOWN_HEADER]
    _md(lines, Settings, Settings.model_construct(), "", top=True)
    return "\n".join(lines).rstrip() + "\n"


def _md(lines: list[str], model: type[BaseModel], value: BaseModel, path: str, top: bool = False) -> None:
    rows, tables = [], []
    for name, field in model.model_fields.items():
        current = getattr(value, name, None)
        if _is_table(current):
            tables.append((name, field.description, current))
            continue
        shown = EXAMPLES.get(name) if top and name in EXAMPLES else _value(current)
        default = f"`{shown}`" if shown is not None else "unset"
        text = " ".join((field.description or "").split())
        rows.append(f"| `{name}` | {_pipe(default)} | {_pipe(text)} |")
    if rows:
        lines += ["| key | default | description |", "|---|---|---|", *rows, ""]
    for name, description, current in tables:
        sub = f"{path}.{name}" if path else name
        lines += [f"{'#' * min(2 + sub.count('.'), 6)} [{sub}{'.*' if isinstance(current, dict) else ''}]", ""]
        if isinstance(current, dict):  # one table per key, described once
            if description:
                lines += [" ".join(description.split()), ""]
            for key, item in current.items():
                lines += [f"{'#' * min(3 + sub.count('.'), 6)} [{sub}.{_key(key)}]", ""]
                _md(lines, type(item), item, f"{sub}.{_key(key)}")
            continue
        text = description or section_doc(type(current))
        if text:
            lines += [" ".join(text.split()), ""]
        _md(lines, type(current), current, sub)


if __name__ == "__main__":
    sys.stdout.write(render_markdown() if "--markdown" in sys.argv[1:] else render())
