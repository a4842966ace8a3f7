"""The default model's int8 embedding table is gathered before it is dequantized: the same vectors,
bit for bit, without the 47 MB float32 copy onnxruntime would fold it into."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemex.embed import onnx_direct
from mnemex.embed import onnx_gather
from mnemex.embed.dense import default_model_file, prepare_default_model_dir
from mnemex.embed.onnx_gather import gather_before_dequantize

TEXTS = ["", "x", "We deploy with ArgoCD from main.", "Read src/checkout/tax.py",
         "Ran `pytest -q` -> exit 1; AssertionError: assert 100.0 == 119.0 " * 40,
         "Ünïcödé — naïve café, 東京 and emoji 🚀 in a commit message", "renamed fetch_user to load_user(id, *, cache)"]


def _graph(model: bytes) -> tuple[list, dict]:
    graph = next(v for n, _, v, _, _ in onnx_gather._fields(memoryview(model)) if n == onnx_gather._MODEL_GRAPH)
    nodes, tensors = [], {}
    for number, _, value, start, end in onnx_gather._fields(graph):
        if number == onnx_gather._GRAPH_NODE:
            nodes.append(onnx_gather._node(value, start, end))
        elif number == onnx_gather._GRAPH_INITIALIZER:
            name, dtype, dims = onnx_gather._tensor(value)
            tensors[name] = (dtype, dims)
    return nodes, tensors


def _users(nodes: list, name: str) -> list[str]:
    return [n.op for n in nodes if name in n.inputs]


def test_the_int8_tables_are_gathered_from_before_they_are_cast():
    original = default_model_file().read_bytes()
    rewritten = gather_before_dequantize(original)
    assert rewritten is not None
    before, tensors = _graph(original)
    after, tensors_after = _graph(rewritten)
    assert tensors_after == tensors  # every weight is kept as it was
    int8 = [name for name, (dtype, _) in tensors.items() if dtype == onnx_gather._INT8]
    assert all(_users(before, name) == ["Cast"] for name in int8)
    gathered = [name for name in int8 if _users(after, name) == ["Gather"]]
    word = next(name for name in int8 if "word_embeddings" in name)
    assert word in gathered
    assert len(after) == len(before) + len(gathered)  # three nodes become four per table
    # the pattern is gone, so a second pass finds nothing to do
    assert gather_before_dequantize(rewritten) is None
    # the layers' int8 matrices feed MatMuls, not Gathers: they are cast where they were
    others = [name for name in int8 if _users(after, name) == ["Cast"]]
    assert others, "the layers' weights are not embedding tables and stay as they were"


def test_a_model_without_the_pattern_comes_back_as_none():
    assert gather_before_dequantize(b"") is None
    assert gather_before_dequantize(onnx_gather._len_field(8, b"\x08\x11")) is None


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**32, 2**63 - 1, -1, -300])
def test_varints_read_back_as_written(value):
    encoded = onnx_gather._encode_varint(value)
    decoded, end = onnx_gather._varint(memoryview(encoded), 0)
    assert end == len(encoded)
    assert decoded == value % 2**64


def _shipped_dir(model_dir: Path, tmp_path: Path) -> Path:
    """The tokenizer files beside the model exactly as the package installed it."""
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for item in model_dir.iterdir():
        if item.name != "model.onnx" and item.is_file():
            (shipped / item.name).write_bytes(item.read_bytes())
    (shipped / "model.onnx").symlink_to(default_model_file())
    return shipped


def test_the_prepared_model_gives_the_shipped_models_vectors_bit_for_bit(model_cache, tmp_path):
    model_dir = prepare_default_model_dir(model_cache)
    assert not (model_dir / "model.onnx").is_symlink()
    assert gather_before_dequantize((model_dir / "model.onnx").read_bytes()) is None  # already rewritten
    prepared = np.stack(list(onnx_direct.PooledOnnxModel(model_dir).embed(TEXTS, batch_size=3)))
    shipped = onnx_direct.PooledOnnxModel(_shipped_dir(model_dir, tmp_path))
    assert prepared.shape == (len(TEXTS), 384)
    assert np.array_equal(prepared, np.stack(list(shipped.embed(TEXTS, batch_size=3))))


def test_a_changed_or_linked_model_file_is_written_again(tmp_path):
    model_dir = prepare_default_model_dir(tmp_path)
    model = model_dir / "model.onnx"
    good = model.read_bytes()
    model.write_bytes(good[: len(good) // 2])  # a copy cut short
    assert prepare_default_model_dir(tmp_path) == model_dir
    assert model.read_bytes() == good
    model.unlink()
    model.symlink_to(default_model_file())  # an older install linked the package's file
    prepare_default_model_dir(tmp_path)
    assert not model.is_symlink() and model.read_bytes() == good


_LOAD = """
import json, sys
from pathlib import Path
from mnemex.embed.onnx_direct import PooledOnnxModel
from mnemex.heap import trim
def anonymous():
    return sum(int(line.split()[1]) for line in open("/proc/self/smaps_rollup") if line.startswith("Anonymous"))
before = anonymous()
model = PooledOnnxModel(Path(sys.argv[1]))
list(model.embed(["warm up"]))
trim()
print(json.dumps((anonymous() - before) // 1024))
"""


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc/self/smaps_rollup")
def test_the_prepared_model_takes_less_memory(model_cache, tmp_path):
    model_dir = prepare_default_model_dir(model_cache)

    def grown(directory: Path) -> int:
        out = subprocess.run([sys.executable, "-c", _LOAD, str(directory)], capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    shipped, prepared = grown(_shipped_dir(model_dir, tmp_path)), grown(model_dir)
    # the float32 table is 30,522 x 384 x 4 bytes = 47 MB; the int8 original, 12 MB, is what stays
    assert shipped - prepared >= 25, (shipped, prepared)
