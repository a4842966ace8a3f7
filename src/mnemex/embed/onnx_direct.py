"""The default model run straight on onnxruntime and tokenizers, without importing fastembed.

fastembed's import pulls in huggingface_hub, requests, httpx and its image stack (~1 s on a busy
2-core machine, ~10% of a cold daemon's start before its first answer); this module imports
onnxruntime, tokenizers and numpy only. It reproduces what fastembed does for a pooled,
normalized sentence-transformers model such as all-MiniLM-L6-v2 — the tokenizer set up from
the model directory's files (truncation to the stricter of `model_max_length` / `max_length`,
the special tokens map, padding to the batch's longest), `last_hidden_state` mean-pooled over
the attention mask in float64, L2-normalized, cast back to float32 — so stored vectors stay
interchangeable (`tests/embed/test_onnx_direct.py` compares both on the same texts).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from mnemex.errors import EmbeddingModelError


def _context(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= sys.maxsize else None


def load_tokenizer(model_dir: Path) -> Any:
    """The model directory's tokenizer with truncation, special tokens and batch-longest padding."""
    from tokenizers import AddedToken, Tokenizer

    def read(name: str) -> dict[str, Any]:
        path = model_dir / name
        return json.loads(path.read_text()) if path.exists() else {}

    config, tok_config, specials = read("config.json"), read("tokenizer_config.json"), read("special_tokens_map.json")
    limits = [c for c in (_context(tok_config.get("model_max_length")), _context(tok_config.get("max_length"))) if c]
    if not limits:
        raise EmbeddingModelError(f"no usable model_max_length in {model_dir / 'tokenizer_config.json'}")
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(max_length=min(limits),
                                direction=tok_config.get("truncation_side") or truncation.get("direction", "right"))
    for value in specials.values():
        for token in value if isinstance(value, list) else [value]:
            tokenizer.add_special_tokens([token if isinstance(token, str) else AddedToken(**token)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or tok_config.get("pad_token")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None and pad_token is not None:
        pad_id = tokenizer.token_to_id(pad_token)
    if pad_token is None or pad_id is None:
        raise EmbeddingModelError(f"no pad token for the tokenizer in {model_dir}")
    tokenizer.enable_padding(direction=tok_config.get("padding_side") or padding.get("direction", "right"),
                             pad_id=pad_id, pad_type_id=padding.get("pad_type_id", 0), pad_token=pad_token,
                             pad_to_multiple_of=padding.get("pad_to_multiple_of"), length=None)
    return tokenizer


class PooledOnnxModel:
    """A mean-pooled, normalized ONNX text encoder with fastembed's `embed` / `query_embed` shape."""

    def __init__(self, model_dir: Path, *, threads: int | None = None, model_file: str = "model.onnx"):
        import numpy as np
        import onnxruntime as ort

        self._np = np
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.enable_cpu_mem_arena = False
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = threads
        self.tokenizer = load_tokenizer(model_dir)
        self.session = ort.InferenceSession(str(model_dir / model_file), providers=["CPUExecutionProvider"],
                                            sess_options=options)
        self._inputs = {node.name for node in self.session.get_inputs()}

    def _batch(self, texts: Sequence[str]) -> Any:
        np = self._np
        encoded = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]
        summed = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
        pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
        norm = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
        return (pooled / norm).astype(hidden.dtype, copy=False)

    def embed(self, texts: Iterable[str], batch_size: int = 256) -> Iterator[Any]:
        items = list(texts)
        for start in range(0, len(items), batch_size):
            yield from self._batch(items[start:start + batch_size])

    def query_embed(self, query: str | Iterable[str]) -> Iterator[Any]:
        yield from self.embed([query] if isinstance(query, str) else query)
