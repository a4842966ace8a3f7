"""Secret redaction: the first step of the write path, before anything is embedded or stored.

`redact(text)` replaces each credential it recognises with `[REDACTED:<kind>]` and reports
where each one was. Only the secret part goes: the user and host of a connection string, the
key name of an assignment and the header name of an `Authorization` line stay, so the memory
still says *what* was configured.

Kept on purpose (they are not secrets, and hiding them would make memories less useful):
placeholders (`<your-token>`, `${DB_PASSWORD}`, `$OTHER`, `xxxx`, `****`, `changeme`,
`your_api_key_here`, earlier `[REDACTED:...]` markers, so redaction is idempotent), empty
values, values that are code (`password = get_password()`, `token: str`), prose about secrets
("reset your password"), and random-looking identifiers that are not credentials (git SHAs,
UUIDs, version strings, paths, base64 of plain text). Stripe publishable keys (`pk_...`) are
public by design and kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from mnemex.config import defaults as d
from mnemex.engine.write.redact.rules import RULES, Limits, kind_of

if TYPE_CHECKING:  # the settings model needs pydantic, which the hook process must not load
    from mnemex.config.redaction import RedactionConfig

#: The rules' thresholds when no configuration is given (the defaults of `config.redaction`).
DEFAULT_LIMITS = Limits(d.REDACTION_MIN_TOKEN_LENGTH, d.REDACTION_MIN_ENTROPY, d.REDACTION_MIN_HEX_ENTROPY,
                        d.REDACTION_CONTEXT_WINDOW)

MARKER = "[REDACTED:{kind}]"




class Finding(NamedTuple):
    """One redacted secret: its kind and its span [start, end) in the *input* text."""

    kind: str
    start: int
    end: int


class Redaction(NamedTuple):
    """The text with every secret replaced by a marker, and what was replaced (in text order)."""

    text: str
    findings: tuple[Finding, ...]

    @property
    def redacted(self) -> bool:
        return bool(self.findings)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The distinct kinds found, in order of first appearance."""
        return tuple(dict.fromkeys(f.kind for f in self.findings))


def _limits(config: "RedactionConfig | None") -> Limits:
    if config is None:
        return DEFAULT_LIMITS
    return Limits(config.min_token_length, config.min_entropy, config.min_hex_entropy, config.context_window)


def find_secrets(text: str, config: "RedactionConfig | None" = None) -> tuple[Finding, ...]:
    """Every secret span in `text`, non-overlapping, in text order. On overlap the more
    specific rule wins (higher priority), then the earlier, then the longer span."""
    limits = _limits(config)
    candidates: list[tuple[int, int, int, str]] = []
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            for start, end in rule.spans(m, limits):
                if end > start:
                    candidates.append((rule.priority, start, end, kind_of(rule, m)))
    candidates.sort(key=lambda c: (-c[0], c[1], -(c[2] - c[1])))
    taken: list[Finding] = []
    for _priority, start, end, kind in candidates:
        if all(end <= f.start or start >= f.end for f in taken):
            taken.append(Finding(kind, start, end))
    return tuple(sorted(taken, key=lambda f: f.start))


def redact(text: str, config: "RedactionConfig | None" = None) -> Redaction:
    """`text` with each secret replaced by `[REDACTED:<kind>]`. Deterministic and idempotent:
    redacting the result again changes nothing."""
    findings = find_secrets(text, config)
    if not findings:
        return Redaction(text, ())
    parts: list[str] = []
    cursor = 0
    for f in findings:
        parts.append(text[cursor:f.start])
        parts.append(MARKER.format(kind=f.kind))
        cursor = f.end
    parts.append(text[cursor:])
    return Redaction("".join(parts), findings)
