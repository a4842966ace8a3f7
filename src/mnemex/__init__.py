"""mnemex: long-term memory for coding agents, served over MCP."""

import os as _os

# numpy's OpenBLAS starts a thread per core for any matrix product and keeps them spinning
# after it; beside ONNX Runtime and Qdrant Edge that spinning doubled search latency (measured:
# LoCoMo p95 48 -> 17 ms with one BLAS thread). mnemex's products are small (query words x
# vocabulary), so one thread is enough. Must be set before numpy loads; an explicit setting wins.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
