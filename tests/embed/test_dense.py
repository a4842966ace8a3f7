"""The real model: documents come back in the order given, whatever order they are batched in."""

from __future__ import annotations

import math
import sys

import pytest

from mnemex import heap
from tests.helpers import rss_kb


def test_documents_of_mixed_lengths_come_back_in_order_with_their_own_vectors(embedder):
    texts = ["Ran `pytest -q` → exit 1; error: " + "AssertionError: assert 100.0 == 119.0 " * 20,
             "Read src/checkout/tax.py",
             "We deploy with ArgoCD from main.",
             "x",
             "Edited cart.py: `return subtotal` → `return subtotal * (1 + tax.RATE)` " * 5]
    together = embedder.embed_documents(texts)
    assert len(together) == len(texts)
    for text, vec in zip(texts, together):
        alone = embedder.embed_documents([text])[0]
        assert math.dist(vec, alone) < 1e-4, text[:40]


@pytest.mark.skipif(not sys.platform.startswith("linux") or heap._function() is None, reason="glibc only")
def test_a_large_batch_leaves_no_resident_heap_behind(embedder):
    """A batch's activations are freed after it; without handing them back (`heap.trim`) glibc
    kept them resident for good: +65 MB after 128 documents."""
    texts = [f"Service {i} moved its queue from the old broker to the new one because retries were lost "
             f"under load; see ticket {i} and the runbook for the replay steps" for i in range(128)]
    heap.trim()
    before = rss_kb() / 1024
    assert len(embedder.embed_documents(texts)) == 128
    assert rss_kb() / 1024 - before < 25


def test_a_cached_query_vector_is_the_same_and_each_caller_owns_its_list(embedder):
    text = "which port does the billing worker listen on (query cache check)"
    first = embedder.embed_query(text)
    first[0] = 99.0  # a caller changing its list must not change what the next caller gets
    again = embedder.embed_query(text)
    assert again is not first and again[0] != 99.0
    assert isinstance(again, list) and all(isinstance(x, float) for x in again)
    fresh = embedder.embed_documents([text])  # a document embeds without the query cache
    assert len(again) == len(fresh[0])
    assert again == embedder.embed_query(text)
