"""Keep the layers pointing one way: config/models/errors <- store/embed <- engine <- strategies
<- tools/capture <- server/cli. A module may import its own layer or lower ones, never higher."""

from __future__ import annotations

import ast
from pathlib import Path

import mnemex

RANK = {
    "config": 0, "models": 0, "errors": 0, "projects": 0, "private": 0,
    "store": 1, "embed": 1,
    "engine": 2,
    "strategies": 3, "views": 3,
    "tools": 4, "capture": 4,
    "server": 5, "cli": 5, "doctor": 5, "__main__": 5,
}
ROOT = Path(mnemex.__file__).parent


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "mnemex" else None


def test_imports_point_down():
    bad = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        own = rel.parts[0]
        if own == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                layer = _layer(name)
                if layer is None or layer == own or layer == "__init__":
                    continue
                if RANK.get(layer, 99) > RANK.get(own, -1):
                    bad.append(f"{rel}: imports {name}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_every_package_has_a_rank():
    for child in ROOT.iterdir():
        if child.name.startswith("_") or child.name == "py.typed":
            continue
        assert child.stem in RANK, f"{child.name} has no layer in tests/test_layers.py"
