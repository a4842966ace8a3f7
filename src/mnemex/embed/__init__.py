"""Embedding providers: dense (fastembed, offline default model) and sparse (BM25)."""
