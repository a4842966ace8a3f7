"""The words memory uses, each with its embedding: where a query word can be expanded to.

BM25 only matches the words a question shares with a memory. "Would she pursue writing as a
career?" shares nothing with "I've applied for three jobs"; "career" and "jobs" are near each
other in embedding space. `Vocabulary` keeps every plain word (3+ letters, not a stop word, not
part of a code name) that occurs in stored memories, with its embedding by the store's own
dense model, and gives, for the words of a query, the BM25 tokens of their nearest memory words
(`expand`). The expansion only ever points at words memory actually contains.

Persisted beside the store in one small SQLite file (word, BM25 token, float16 vector), tagged
with the embedder's identity: another model or another word rule empties it. The in-memory
matrix is float32; at the default cap of 50,000 words it takes 77 MB.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from mnemex.embed.dense import DenseEmbedder
from mnemex.embed.sparse import SparseEncoder, plain_words
from mnemex.sqlite_files import is_damage, set_aside

log = logging.getLogger(__name__)

#: Bump when what counts as a word changes: a file written under another rule is rebuilt.
WORD_RULE = 1
#: A query's first this many distinct words are expanded (a pasted page must not embed 500 words).
MAX_QUERY_WORDS = 32

_SCHEMA = """
CREATE TABLE IF NOT EXISTS words (word TEXT PRIMARY KEY, token INTEGER NOT NULL, vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Vocabulary:
    """Thread-safe; `path=None` keeps it in memory only."""

    def __init__(self, dense: DenseEmbedder, sparse: SparseEncoder, path: Path | None = None, *,
                 max_words: int = 50_000, batch: int = 256, query_cache: int = 4096):
        self._dense = dense
        self._sparse = sparse
        self._max_words = max_words
        self._batch = batch
        self._lock = threading.RLock()
        self._index: dict[str, int] = {}  # word -> row of _matrix / _tokens
        self._tokens = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._size = 0
        self._token_of: dict[str, int | None] = {}
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = query_cache
        self._full_warned = False
        self._complete = False
        self._last_row = 0  # the highest rowid of the file's words loaded (`refresh`)
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._open(path)
            except sqlite3.DatabaseError as exc:
                if not is_damage(exc):
                    raise
                self.close()
                self.clear()  # whatever was read before the damage showed
                aside = set_aside(path)
                log.warning("the vocabulary file %s is damaged (%s): set aside as %s; it is built again from the "
                            "store (query expansion misses the store's words until then)", path, exc, aside.name)
                self._open(path)

    def _open(self, path: Path) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute("PRAGMA secure_delete=ON")  # pruned words must not linger in free pages
        self._db.executescript(_SCHEMA)
        self._load()

    # ------------------------------------------------------------------ state
    def __len__(self) -> int:
        return self._size

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self._index

    @property
    def complete(self) -> bool:
        """Has it been built from the whole store (not only from the writes since it existed)?"""
        return self._complete

    def mark_complete(self) -> None:
        self._complete = True
        self._set_meta("complete", "1")

    def clear(self) -> None:
        """Forget every word (a rebuild follows)."""
        with self._lock:
            self._index.clear()
            self._size = 0
            self._complete = False
            self._tokens = np.zeros(0, dtype=np.int64)
            self._matrix = np.zeros((0, 0), dtype=np.float32)
            if self._db is not None:
                self._db.execute("DELETE FROM words")
                self._db.execute("DELETE FROM meta WHERE key='complete'")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ----------------------------------------------------------------- writes
    def add(self, texts: Iterable[str]) -> int:
        """Learn the words of `texts` not yet known (one embedding batch per `batch` words)."""
        fresh: dict[str, int] = {}
        for text in texts:
            for word in plain_words(text):
                if word in fresh or word in self._index:
                    continue
                token = self._token(word)
                if token is not None:
                    fresh[word] = token
        if not fresh:
            return 0
        with self._lock:
            new = [w for w in fresh if w not in self._index]
            room = self._max_words - self._size
            if len(new) > room:
                if not self._full_warned:
                    log.warning("vocabulary is full (%d words): later words are not used for query expansion",
                                self._max_words)
                    self._full_warned = True
                new = new[: max(room, 0)]
            for start in range(0, len(new), self._batch):
                part = new[start:start + self._batch]
                vectors = np.asarray(self._dense.embed_documents(part), dtype=np.float32)
                self._append(part, [fresh[w] for w in part], vectors)
                if self._db is not None:
                    self._db.executemany("INSERT OR REPLACE INTO words (word, token, vector) VALUES (?, ?, ?)",
                                         [(w, fresh[w], v.astype(np.float16).tobytes()) for w, v in zip(part, vectors)])
            return len(new)

    def prune(self, texts: Iterable[str], in_use: Callable[[int], bool]) -> int:
        """Drop the words of `texts` whose BM25 token `in_use` says no memory holds any more
        (after a purge: the words of purged content do not stay behind)."""
        with self._lock:
            gone = {w for t in texts for w in plain_words(t)
                    if w in self._index and not in_use(int(self._tokens[self._index[w]]))}
            if not gone:
                return 0
            kept = sorted((i, w) for w, i in self._index.items() if w not in gone)
            rows = [i for i, _ in kept]
            words = [w for _, w in kept]
            tokens, matrix = self._tokens[rows], self._matrix[rows]
            self._index.clear()
            self._size = 0
            self._append(words, list(tokens), matrix)
            if self._db is not None:
                self._db.executemany("DELETE FROM words WHERE word = ?", [(w,) for w in gone])
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # and not in the WAL either
            return len(gone)

    # ------------------------------------------------------------------ reads
    def expand(self, words: Sequence[str], *, floor: float, per_word: int, weight: float,
               exclude: Iterable[int] = ()) -> dict[int, float]:
        """BM25 token → weight for the nearest memory words of a query's plain `words`
        (`plain_words` of its text, in order).

        Each query word brings at most `per_word` words whose cosine to it is at least `floor`,
        weighted `weight` × cosine (the query's own words weigh 1). Tokens in `exclude` (the
        query's own) and the word's own token are skipped; a token reached from two words keeps
        the larger weight.
        """
        words = [w for w in dict.fromkeys(words) if self._token(w) is not None][:MAX_QUERY_WORDS]
        if not words or per_word <= 0 or self._size == 0:
            return {}
        vectors = self._vectors(words)
        with self._lock:
            matrix, tokens, size = self._matrix[: self._size], self._tokens[: self._size], self._size
            sims = vectors @ matrix.T
        skip = set(exclude)
        out: dict[int, float] = {}
        look = min(size, 4 * per_word + 8)
        for word, row in zip(words, sims):
            own = self._token(word)
            top = np.argpartition(-row, look - 1)[:look] if look < size else np.arange(size)
            taken = 0
            for i in top[np.argsort(-row[top])]:
                score = float(row[i])
                if score < floor or taken >= per_word:
                    break
                token = int(tokens[i])
                if token == own or token in skip:
                    continue
                out[token] = max(out.get(token, 0.0), weight * score)
                taken += 1
        return out

    # -------------------------------------------------------------- internals
    def _token(self, word: str) -> int | None:
        token = self._token_of.get(word, -1)
        if token == -1:
            token = self._sparse.word_token(word)
            if len(self._token_of) < 200_000:
                self._token_of[word] = token
        return token  # type: ignore[return-value]

    def _vectors(self, words: Sequence[str]) -> np.ndarray:
        """Embeddings of `words`: stored ones for memory words, else embedded (and cached)."""
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for w in words:
                if w in self._index:
                    out[w] = self._matrix[self._index[w]]
                elif w in self._cache:
                    self._cache.move_to_end(w)
                    out[w] = self._cache[w]
        missing = [w for w in words if w not in out]
        if missing:
            for w, vec in zip(missing, self._dense.embed_documents(missing)):
                out[w] = np.asarray(vec, dtype=np.float32)
                with self._lock:
                    self._cache[w] = out[w]
                    while len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
        return np.stack([out[w] for w in words])

    def _append(self, words: Sequence[str], tokens: Sequence[int], vectors: np.ndarray) -> None:
        n = len(words)
        if n == 0:
            return
        need = self._size + n
        if need > self._matrix.shape[0] or self._matrix.shape[1] != vectors.shape[1]:
            capacity = max(need, 2 * self._matrix.shape[0], 1024)
            matrix = np.zeros((capacity, vectors.shape[1]), dtype=np.float32)
            tokens_ = np.zeros(capacity, dtype=np.int64)
            if self._size:
                matrix[: self._size] = self._matrix[: self._size]
                tokens_[: self._size] = self._tokens[: self._size]
            self._matrix, self._tokens = matrix, tokens_
        self._matrix[self._size:need] = vectors
        self._tokens[self._size:need] = np.asarray(tokens, dtype=np.int64)
        for offset, word in enumerate(words):
            self._index[word] = self._size + offset
        self._size = need

    def _identity(self) -> str:
        return json.dumps({"embedder": self._dense.identity.as_dict(), "word_rule": WORD_RULE}, sort_keys=True)

    def _set_meta(self, key: str, value: str) -> None:
        with self._lock:
            if self._db is not None:
                self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def refresh(self) -> int:
        """Read the words another process added to the file since this one loaded it (a daemon's
        successor opens the vocabulary before the daemon hands the store over); reloads it whole
        when words were also removed. Returns the words added."""
        with self._lock:
            if self._db is None:
                return 0
            before = self._size
            rows = self._db.execute("SELECT rowid, word, token, vector FROM words WHERE rowid > ? ORDER BY rowid",
                                    (self._last_row,)).fetchall()
            fresh = [r for r in rows if r[1] not in self._index][: max(self._max_words - self._size, 0)]
            if fresh:
                matrix = np.stack([np.frombuffer(r[3], dtype=np.float16) for r in fresh]).astype(np.float32)
                self._append([r[1] for r in fresh], [int(r[2]) for r in fresh], matrix)
            if rows:
                self._last_row = int(rows[-1][0])
            (count,) = self._db.execute("SELECT count(*) FROM words").fetchone()
            if min(count, self._max_words) != self._size:  # words were removed too: read it whole
                self._index, self._size, self._last_row = {}, 0, 0
                self._tokens, self._matrix = np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
                self._load()
            done = self._db.execute("SELECT value FROM meta WHERE key='complete'").fetchone()
            self._complete = bool(done and done[0] == "1")
            return max(self._size - before, 0)

    def _load(self) -> None:
        assert self._db is not None
        row = self._db.execute("SELECT value FROM meta WHERE key='identity'").fetchone()
        if row is None or row[0] != self._identity():
            self._db.execute("DELETE FROM words")
            self._db.execute("DELETE FROM meta")
            self._set_meta("identity", self._identity())
            return
        done = self._db.execute("SELECT value FROM meta WHERE key='complete'").fetchone()
        self._complete = bool(done and done[0] == "1")
        rows = self._db.execute("SELECT word, token, vector, rowid FROM words ORDER BY rowid LIMIT ?",
                                (self._max_words,)).fetchall()
        if rows:
            matrix = np.stack([np.frombuffer(r[2], dtype=np.float16) for r in rows]).astype(np.float32)
            self._append([r[0] for r in rows], [int(r[1]) for r in rows], matrix)
            self._last_row = int(rows[-1][3])


__all__ = ["Vocabulary", "WORD_RULE"]
