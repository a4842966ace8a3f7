"""The default model run on onnxruntime directly gives fastembed's vectors (stored vectors stay
interchangeable) and never imports fastembed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from mnemex.embed.dense import prepare_default_model_dir
from mnemex.embed.onnx_direct import PooledOnnxModel

TEXTS = [
    "", "x", "We deploy with ArgoCD from main.", "Read src/checkout/tax.py",
    "Ran `pytest -q` → exit 1; AssertionError: assert 100.0 == 119.0 " * 40,  # past 512 tokens: truncated
    "Ünïcödé — naïve café, 東京 and emoji 🚀 in a commit message",
    "ERR_OSSL_EVP_UNSUPPORTED when building with Node 17",
    "def retry_with_backoff(fn, *, tries=5):\n    return fn()",
]


def test_vectors_equal_fastembeds_for_the_default_model(model_cache):
    from fastembed import TextEmbedding

    model_dir = prepare_default_model_dir(model_cache)
    direct = PooledOnnxModel(model_dir)
    reference = TextEmbedding("sentence-transformers/all-MiniLM-L6-v2", cache_dir=str(model_cache),
                              specific_model_path=str(model_dir), enable_cpu_mem_arena=False)
    ours = np.stack(list(direct.embed(TEXTS, batch_size=3)))
    theirs = np.stack(list(reference.embed(TEXTS, batch_size=64)))
    assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), 384)
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    query = next(iter(direct.query_embed("how do we deploy?")))
    assert np.abs(query - next(iter(reference.query_embed("how do we deploy?")))).max() < 1e-5


def test_loading_and_embedding_the_default_model_never_imports_fastembed(model_cache):
    code = ("import sys; from pathlib import Path; from mnemex.embed.dense import FastEmbedder; "
            f"e = FastEmbedder(cache_dir=Path({str(model_cache)!r})); v = e.embed_query('hello'); "
            "assert len(v) == 384; print('fastembed' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
