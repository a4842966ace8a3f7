"""Every text a caller hands mnemex, made safe to store: readable, and with no secret in it.

Content goes through the observer, but a secret can sit in any field: a token given as a tag,
a password in a forget reason, a key pasted into a search query that the verbose audit log
keeps, a value in metadata, a file path in provenance. `scrub` is applied to each of them
before anything is written (store, journal, vocabulary); `scrub_value` also catches a lone
machine-generated token with no context word around it (a tag, a metadata value).

`validate_content` checks a content's size, and `sanitized` applies all of this to a whole
request or memory. `clean_text` removes what cannot be stored or is not text: lone UTF-16 surrogates (valid in a
JSON string, not encodable as UTF-8 — SQLite and the store would reject them) become U+FFFD,
and NUL and the other C0 control characters except tab and line breaks are dropped, so a
content of only NULs is empty everywhere (memorize and update alike).
"""

from __future__ import annotations

from typing import Any

from mnemex.config.redaction import DEFAULT_REDACTION, RedactionConfig
from mnemex.engine.write.redact import MARKER, redact
from mnemex.engine.write.redact.clean import clean_text
from mnemex.engine.write.redact.values import is_random_token
from mnemex.errors import InvalidInputError
from mnemex.models import Memory, NewMemory


def scrub(text: str, config: RedactionConfig = DEFAULT_REDACTION) -> str:
    """Clean `text` and redact every secret in it (the rules of `redact`)."""
    return redact(clean_text(text), config).text


def scrub_value(text: str, config: RedactionConfig = DEFAULT_REDACTION) -> str:
    """`scrub` for a standalone value (a tag, a metadata value): a single machine-generated
    token is a secret even without a "token"/"key" word before it."""
    out = scrub(text, config)
    token = out.strip()
    c = config
    if token and not any(ch.isspace() for ch in token) and is_random_token(
            token, min_length=c.min_token_length, min_entropy=c.min_entropy, min_hex_entropy=c.min_hex_entropy):
        return MARKER.format(kind="high_entropy")
    return out


def scrub_tree(value: Any, config: RedactionConfig = DEFAULT_REDACTION) -> Any:
    """A JSON-like value (metadata) with every string key and value scrubbed."""
    if isinstance(value, str):
        return scrub_value(value, config)
    if isinstance(value, dict):
        return {scrub_value(str(k), config): scrub_tree(v, config) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_tree(v, config) for v in value]
    return value


def scrub_tags(tags: Any, config: RedactionConfig = DEFAULT_REDACTION) -> tuple[str, ...]:
    """Tags stripped, scrubbed, empty ones dropped, duplicates removed (first kept)."""
    out = (scrub_value(t, config).strip() for t in tags if isinstance(t, str))
    return tuple(dict.fromkeys(t for t in out if t))


def validate_content(content: str, max_chars: int) -> str:
    """The content to store, cleaned (`clean_text`) and stripped; InvalidInputError if empty or too long."""
    if not isinstance(content, str):
        raise InvalidInputError("content must be a string")
    text = clean_text(content).strip()
    if not text:
        raise InvalidInputError("content is empty: give the fact, decision or note to remember")
    if len(text) > max_chars:
        raise InvalidInputError(
            f"content is {len(text)} characters, over the limit of {max_chars}: "
            "split it into smaller memories or raise limits.max_content_chars"
        )
    return text


def sanitized(item: NewMemory | Memory, max_chars: int,
              redaction: RedactionConfig = DEFAULT_REDACTION) -> NewMemory | Memory:
    """`item` with its content validated and every other text field cleaned and redacted
    (tags, metadata, provenance): secrets never reach the store through a side field. The
    content of a request is redacted by formation (which reports what it found); a whole
    Memory (an import) has its content redacted here."""
    prov = item.provenance
    content = validate_content(item.content, max_chars)
    return item.model_copy(update={
        "content": scrub(content, redaction) if isinstance(item, Memory) else content,
        "tags": scrub_tags(item.tags, redaction),
        "metadata": scrub_tree(item.metadata, redaction),
        "provenance": prov.model_copy(update={
            k: scrub(v, redaction) for k, v in prov.model_dump().items() if isinstance(v, str)}),
    })
