"""Judgements about a candidate secret value: placeholder? variable reference? random enough?

Kept apart from the patterns so that each rule reads as "where" and these answer "is it real".
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

# Values that stand for a secret without being one. `changeme` is here on purpose: it is the
# conventional "replace me" marker of sample configs, and redacting it would also hide the
# useful memory "the sample .env still says changeme".
_PLACEHOLDER_WORDS = frozenset({
    "changeme", "change-me", "change_me", "changeit", "placeholder", "example", "sample", "dummy",
    "redacted", "secret", "password", "passwd", "pass", "pwd", "token", "apikey", "api_key", "api-key",
    "key", "value", "none", "null", "nil", "undefined", "true", "false", "todo", "tbd", "n/a", "na",
    "foo", "bar", "baz", "test", "string", "str", "bytes", "int", "required", "optional",
    "secretstr", "your_password", "mypassword", "yourpassword", "notasecret", "empty", "unset",
})
_PLACEHOLDER_PATTERNS = (
    re.compile(r"^<[^<>]*>$"),                         # <your-token>
    re.compile(r"^\[[^\[\]]*\]$"),                     # [REDACTED:...], [token]
    re.compile(r"^\{"),                                # {{ secrets.X }}, f"{token}", {token!r}
    re.compile(r"^(?:\$\{|\$\(|\$[A-Za-z_]|%\(|%[A-Za-z_]+%$|#\{|@@?[A-Za-z_])"),  # ${X} $X %(x)s %X%
    re.compile(r"^(?:x+|\*+|\.+|-+|_+|0+|#+|•+)$", re.IGNORECASE),  # xxxx, ****, ...
    re.compile(r"^(?:your|my|insert|enter|put|add|replace)[-_ ]", re.IGNORECASE),  # your-api-key-here
    re.compile(r"(?:[-_ ]here|[-_]goes[-_]here|_?placeholder)$", re.IGNORECASE),
    re.compile(r"^(?:process\.env|os\.environ|os\.getenv|env\(|getenv|System\.getenv|ENV\[)"),
)
_TYPE_OR_CODE = re.compile(r"[()\[\]]|^(?:self|this|cls|config|settings|env|args|opts|options|ctx)\.", re.IGNORECASE)
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_WORDY_PATH = re.compile(r"^[a-z0-9_-]+(?:/[a-z0-9_-]+)+/?$")


def is_placeholder(value: str) -> bool:
    """True for template markers, empty values and references to other variables."""
    v = value.strip().strip("\"'`")
    if not re.sub(r"^\W+|\W+$", "", v):
        return True  # empty, or only punctuation: ":****", "..."
    if v.lower() in _PLACEHOLDER_WORDS:
        return True
    return any(p.search(v) for p in _PLACEHOLDER_PATTERNS)


def could_be_token(value: str) -> bool:
    """Whether a value of a token/secret/api-key key can be a credential: machine-made
    credentials carry digits or are long and mixed. Words (`send_message`, `TILE`), special
    tokens of tokenizers (`</s>`, `<|image|>`) and prose ("a secret") cannot."""
    if re.fullmatch(r"#[0-9A-Fa-f]{3,8}", value):
        return False  # a colour
    if any(c.isdigit() for c in value):
        return not is_wordy(value) or len(value) >= 24
    return len(value) >= 16 and char_classes(value) >= 3 and not is_wordy(value) and " " not in value


def is_short_number(value: str) -> bool:
    """-1, 0, 4096: counts and ids, not secrets (a PIN of 8+ digits still is one)."""
    return re.fullmatch(r"-?\d[\d_]{0,8}(?:\.\d+)?", value) is not None


def looks_like_code(value: str) -> bool:
    """True for an unquoted value that is an expression (call, subscript, attribute of a config object)."""
    return bool(_TYPE_OR_CODE.search(value))


def is_identifier(value: str) -> bool:
    return bool(_IDENTIFIER.match(value))


def is_prose(value: str) -> bool:
    """A quoted value of three or more plain words is a label ("Enter your password"), not a secret."""
    words = value.split()
    return len(words) >= 3 and all(w.strip(".,:!?").isalpha() for w in words)


def char_classes(value: str) -> int:
    """How many of lower, upper, digit, symbol the value uses."""
    return sum((
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        any(c.isdigit() for c in value),
        any(not c.isalnum() for c in value),
    ))


def looks_like_credential(value: str, min_length: int = 6) -> bool:
    """A bare word that reads like a chosen password: long enough and mixing letters with digits
    or symbols (hunter2, S3cure!pass), unlike prose words (required, must, Enter)."""
    if len(value) < min_length or is_placeholder(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_other = any(c.isdigit() or not c.isalnum() for c in value)
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value[1:])
    return has_alpha and (has_other or (mixed_case and len(value) >= 8))


def looks_like_password_word(value: str) -> bool:
    """A bare word (letters, digits, `_`) reads like a chosen password rather than a variable:
    letters and digits mixed (hunter2, correcthorse42), not snake_case or camelCase names
    (use_cache_v2, userPass1)."""
    if len(value) < 6 or is_placeholder(value) or "_" in value:
        return False
    if is_wordy(value) and re.search(r"[a-z][A-Z]", value):
        return False
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def is_wordy(value: str) -> bool:
    """True when at least half of the value is made of word-like runs ("EXPERTS", "Multimodal",
    "registers"): identifiers and prose, unlike random tokens whose letter runs are short."""
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", value)
    wordy = sum(len(p) for p in parts if len(p) >= 4 and re.search(r"[aeiouAEIOU]", p))
    return wordy * 2 >= len(value)


def shannon_entropy(value: str) -> float:
    """Bits per character of the value's own character distribution."""
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def decodes_to_text(value: str) -> bool:
    """True when the value is base64 of ordinary text (e.g. `aGVsbG8gd29ybGQ=` in a test)."""
    raw = value.replace("-", "+").replace("_", "/")
    raw += "=" * (-len(raw) % 4)
    try:
        decoded = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(decoded) < 6:
        return False
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return False
    printable = sum(c.isalpha() or c.isspace() or c in ".,:;'\"!?-_/(){}[]=" for c in text)
    return printable / len(text) >= 0.9 and any(c.isspace() or c in "{\":" for c in text)


def is_random_token(value: str, *, min_length: int, min_entropy: float, min_hex_entropy: float,
                    hash_context: bool = False) -> bool:
    """True when the value looks machine-generated: long, mixed, high entropy, and not one of
    the random-looking things that are not secrets (UUIDs, git SHAs near "commit", wordy
    paths, base64 of plain text)."""
    v = value.strip("=")
    if len(v) < min_length or is_placeholder(v) or _UUID.match(value) or _WORDY_PATH.match(value):
        return False
    if not any(c.isdigit() for c in v) or not any(c.isalpha() for c in v):
        return False
    if _HEX.match(v):
        return not hash_context and len(v) >= 32 and shannon_entropy(v) >= min_hex_entropy
    if (char_classes(v) < 3 and sum(c.isdigit() for c in v) < 4) or is_wordy(v):
        return False  # long camelCase/snake_case identifiers, not tokens
    if decodes_to_text(value):
        return False
    return shannon_entropy(v) >= min_entropy
