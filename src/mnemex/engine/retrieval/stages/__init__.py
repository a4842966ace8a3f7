"""The stages of the read path, each a function over the candidate table (`Candidates`) that
reads the query's plan and the context, so a stage can be tested and ablated alone:

search (dense + BM25 candidates, fused) → propagate (neighbours in time) → rescore
(composite boosts) → diversify (MMR, near-duplicates) → results (confidence, context).
"""
