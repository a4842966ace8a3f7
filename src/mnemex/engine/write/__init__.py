"""The pure, deterministic front of the write path.

`redact` removes credentials before anything is stored; `observe` reads a piece of text and
says what it is (kind, entities, flags, atoms, foresight, importance channels). Neither does
I/O, neither needs a model: the engine decides what to do with their answers.
"""
