"""Secret redaction, the first step of every write: `redact(text)` replaces each credential it
recognises with `[REDACTED:<kind>]`. `rules` holds one rule per credential shape, `values` the
tests of what a value looks like (random token, placeholder, code, prose); `clean_text` removes
what is not text. Stdlib only: the capture hook redacts with it before anything is written."""

from mnemex.engine.write.redact.clean import clean_text
from mnemex.engine.write.redact.redact import MARKER, Finding, Redaction, find_secrets, redact

__all__ = ["MARKER", "Finding", "Redaction", "clean_text", "find_secrets", "redact"]
