"""The real model: documents come back in the order given, whatever order they are batched in."""

from __future__ import annotations

import math


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
