"""Keep the layers pointing one way: config/models/errors <- store/embed <- engine <- strategies
<- tools/capture <- server/cli. A module may import its own layer or lower ones, never higher.
Inside the engine: the observer and redaction read only models and config (pure functions of
text), the read path never reaches into the write wing, and the store's payload layout is
private to store/."""

from __future__ import annotations

import ast
from pathlib import Path

import mnemex

RANK = {
    "config": 0, "models": 0, "errors": 0, "projects": 0, "private": 0, "userdirs": 0, "heap": 0, "sqlite_files": 0,
    "store": 1, "embed": 1,
    "engine": 2,
    "strategies": 3, "views": 3, "render": 3, "importers": 3,
    "tools": 4, "capture": 4,
    "server": 5, "cli": 5, "clients": 5, "doctor": 5, "__main__": 5, "entry": 5, "hook_script": 5,
}
ROOT = Path(mnemex.__file__).parent


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "mnemex" else None


def _imports() -> list[tuple[str, Path, str]]:
    """(module, file, imported module) for every absolute import of a mnemex module."""
    out = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        module = ".".join(("mnemex", *rel.parts)).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out += [(module, rel, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                out.append((module, rel, node.module))
    return out


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


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


#: package -> what its modules may import from mnemex (besides themselves)
PURE = {
    "mnemex.engine.write.observe": ("mnemex.models", "mnemex.config"),
    "mnemex.engine.write.redact": ("mnemex.models", "mnemex.config"),
    "mnemex.engine.statements": ("mnemex.models", "mnemex.config"),
    "mnemex.engine.lifecycle.strength": ("mnemex.models", "mnemex.config"),
    "mnemex.engine.lifecycle.slices": ("mnemex.models", "mnemex.config"),
    "mnemex.engine.lifecycle.policy": ("mnemex.models", "mnemex.config", "mnemex.engine.lifecycle.strength",
                                       "mnemex.engine.lifecycle.slices"),
}


def test_the_observer_redaction_and_lifecycle_math_read_only_models_and_config():
    bad = [f"{rel}: imports {name}" for module, rel, name in _imports() for package, allowed in PURE.items()
           if _under(module, package) and name.startswith("mnemex") and not _under(name, package)
           and not any(_under(name, a) for a in allowed)]
    assert not bad, "\n".join(bad)


def test_the_read_path_never_imports_the_write_wing():
    bad = [f"{rel}: imports {name}" for module, rel, name in _imports()
           if _under(module, "mnemex.engine.retrieval") and _under(name, "mnemex.engine.write")]
    assert not bad, "\n".join(bad)


def test_the_store_never_imports_the_engine_and_its_payload_layout_stays_inside():
    bad = [f"{rel}: imports {name}" for module, rel, name in _imports()
           if (_under(module, "mnemex.store") and _under(name, "mnemex.engine"))
           or (_under(name, "mnemex.store._payload") and not _under(module, "mnemex.store"))]
    assert not bad, "\n".join(bad)
