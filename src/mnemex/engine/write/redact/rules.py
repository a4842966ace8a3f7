"""Where secrets hide: one rule per credential shape, each naming the span that is secret.

A rule's `spans` returns the part of a match to redact (the password of a connection string,
the value of an assignment), so that the surrounding context (user, host, key name) survives.
On overlap the rule with the higher priority wins: a provider-specific token beats the
generic "value of a *_TOKEN assignment" reading of the same characters.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator, NamedTuple

from mnemex.engine.write.redact import values as sv

Span = tuple[int, int]


class Limits(NamedTuple):
    """The numeric knobs of the rules (see `RedactionConfig`)."""

    min_token_length: int
    min_entropy: float
    min_hex_entropy: float
    context_window: int


class SecretRule(NamedTuple):
    kind: str
    pattern: re.Pattern[str]
    priority: int
    spans: Callable[[re.Match[str], Limits], Iterator[Span]]


def _group(name: str | int = 0, check: Callable[[str], bool] | None = None):
    def spans(m: re.Match[str], _limits: Limits) -> Iterator[Span]:
        value = m.group(name)
        if value and (check is None or check(value)):
            yield m.span(name)
    return spans


def _mixed(value: str) -> bool:
    """Provider tokens are random: digits and letters; guards `sk-this-is-not-a-key`."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and sv.char_classes(value) >= 2


def _not_placeholder(value: str) -> bool:
    return not sv.is_placeholder(value)


# --------------------------------------------------------------------------- assignments
_STRONG_LAST_WORDS = {
    "password": "password", "passwd": "password", "pwd": "password", "pass": "password",
    "passphrase": "password", "secret": "secret", "token": "secret", "apikey": "secret",
    "credential": "secret", "credentials": "secret",
}
# "<word> key" pairs that name a secret; any other "*_key" (sort_key, cache_key) is only
# redacted when its value is random-looking.
_STRONG_KEY_QUALIFIERS = {"api", "access", "secret", "private", "auth", "signing", "encryption",
                          "master", "client", "license", "account", "service", "app", "webhook"}
# Suffixes recognised even when glued to another word; "pass" is not one of them (bypass, compass).
_GLUED_SUFFIXES = ("password", "passwd", "secret", "token", "apikey")
_DENY_FIRST_WORDS = {"max", "min", "num", "n", "total", "count"}


def _key_words(key: str) -> list[str]:
    key = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key.strip("\"'`-"))
    return [w for w in re.split(r"[_.\-\s]+", key.lower()) if w]


def classify_key(key: str) -> tuple[str, bool] | None:
    """(kind, strong) when an assignment key names a secret, else None. Strong keys redact any
    literal value; weak ones (`*_KEY`) only random-looking values."""
    words = _key_words(key)
    if not words or words[0] in _DENY_FIRST_WORDS or {"public", "publishable"} & set(words):
        return None  # public keys are public
    last = words[-1]
    if last == "pass" and len(words) == 1:
        return None  # "pass" alone is a filter pass, a loop pass, `pass: ...`; DB_PASS is a password
    if last in _STRONG_LAST_WORDS:
        return _STRONG_LAST_WORDS[last], True
    glued = next((w for w in _GLUED_SUFFIXES if last.endswith(w)), None)
    if glued:  # PGPASSWORD, MYSQL_ROOTPASSWORD, authtoken
        return _STRONG_LAST_WORDS[glued], True
    if last == "key" and len(words) >= 2:
        return "secret", words[-2] in _STRONG_KEY_QUALIFIERS
    if last == "apikey" or (last == "key" and len(words) == 1):
        return "secret", False
    return None


def _assignment_spans(m: re.Match[str], limits: Limits) -> Iterator[Span]:
    verdict = classify_key(m.group("key"))
    if verdict is None:
        return
    kind, strong = verdict
    name = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
    value, op = m.group(name), m.group("op")
    if sv.is_placeholder(value) or sv.is_short_number(value) or (name == "bare" and sv.looks_like_code(value)):
        return
    env = _is_env_line(m)
    if kind == "secret" and not env and not sv.could_be_token(value):
        return  # `EOS_TOKEN = "</s>"`, `tile_token="TILE"`: code names tokens that are not credentials
    if _key_words(value) == _key_words(m.group("key"))[-len(_key_words(value)):]:
        return  # `CHALLENGE_PASSWORD: "challengePassword"`: the value names the key
    if not strong and env:
        if sv.could_be_token(value):  # MAILGUN_KEY=key-3ax6...; CACHE_KEY=users stays
            yield m.span(name)
        return
    if not strong:
        if sv.is_random_token(value, min_length=limits.min_token_length, min_entropy=limits.min_entropy,
                              min_hex_entropy=limits.min_hex_entropy):
            yield m.span(name)
        return
    if name == "bare":
        if sv.is_identifier(value) and not env:
            # `password=password`, `credentials=new_credentials`, `k_pass = k_pass * s`: a
            # variable, unless it reads like a chosen password (hunter2)
            if _key_word_in(m.group("key"), value) or not sv.looks_like_password_word(value):
                return
        if op == ":" and not sv.looks_like_credential(value):
            return  # YAML/prose "password: required"
    elif sv.is_prose(value) or len(value) < 3:
        return
    yield m.span(name)


def _is_env_line(m: re.Match[str]) -> bool:
    """`DB_PASSWORD=x` opening a line (optionally after `export`): a .env/shell literal."""
    line_start = m.string.rfind("\n", 0, m.start()) + 1
    prefix = m.string[line_start:m.start()].strip()
    key = m.group("key")
    return prefix in ("", "export", "set") and key.upper() == key and m.group("op") == "=" and not m.group("sp")


def _key_word_in(key: str, value: str) -> bool:
    words = _key_words(key)
    return bool(words) and words[-1] in value.lower()


def _assignment_kind(m: re.Match[str]) -> str:
    verdict = classify_key(m.group("key"))
    return verdict[0] if verdict else "secret"


_ASSIGNMENT = re.compile(
    r"""(?P<key>(?<![\w$])[A-Za-z_][\w.\-]{0,63})["'`]?"""
    r"""(?:[ \t]*:[ \t]*[A-Za-z_][\w\[\]., |]{0,40}?(?=[ \t]*=[^=]))?"""   # a type annotation: `pw: str = ...`
    r"""(?P<sp>[ \t]*)(?P<op>:=|=>|=(?!=)|:(?![/\\]))[ \t]*"""
    r"""(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`|(?P<bare>[^\s"'`,;&)}\]<>]+))"""
)
_CLI_FLAG = re.compile(
    r"""(?:(?<=\s)|^)--?(?P<key>(?:db-|admin-|api-|client-)?(?:password|passwd|token|secret|api-key|apikey|client-secret))"""
    r"""(?P<sep>=|\s+)["']?(?P<value>[^\s"']+)""", re.MULTILINE
)
_ENTROPY_CONTEXT = re.compile(
    r"(?i)\b(?:api[ _-]?key|key|token|secret|password|passphrase|credential|credentials|auth|bearer|signature|apikey)s?\b"
)
_TOKEN_CANDIDATE = re.compile(r"(?<![\w/+=\-.])[A-Za-z0-9+/_\-]{16,}={0,2}(?![\w/+=\-])")
_MAX_TOKEN_CHARS = 512
_HASH_WORDS = re.compile(r"(?i)\b(?:commit|sha\d*|hash|digest|checksum|revision|rev|etag|integrity|uuid|id)\b")


def _entropy_spans(m: re.Match[str], limits: Limits) -> Iterator[Span]:
    start = m.end()
    # Only the rest of the line, and only as far as a token starting in the window can reach.
    line = m.string[start:start + limits.context_window + _MAX_TOKEN_CHARS].split("\n", 1)[0]
    hashy = bool(_HASH_WORDS.search(m.string[max(0, m.start() - 40):start + limits.context_window]))
    for cand in _TOKEN_CANDIDATE.finditer(line):
        if cand.start() > limits.context_window:
            break  # the window bounds where a token may start, not where it ends
        if line[cand.end():cand.end() + 1] == "(":
            continue  # a function call
        if sv.is_random_token(cand.group(), min_length=limits.min_token_length, min_entropy=limits.min_entropy,
                              min_hex_entropy=limits.min_hex_entropy, hash_context=hashy):
            yield start + cand.start(), start + cand.end()


def _cli_spans(m: re.Match[str]) -> Iterator[Span]:
    value, (start, end) = m.group("value"), m.span("value")
    if m.group("sep") != "=":
        value = value.rstrip(".,;:!?")
        end = start + len(value)
        if not sv.looks_like_credential(value):
            return  # "the --password option": prose, not a value
    if not sv.is_placeholder(value) and not value.startswith("-"):
        yield start, end


def _has_key_body(block: str) -> bool:
    """A PEM block with key material, not just the BEGIN/END marker strings of a parser."""
    return re.search(r"[A-Za-z0-9+/=]{20,}", re.sub(r"-----[^-]+-----", "", block)) is not None


def _aws_secret_spans(m: re.Match[str], limits: Limits) -> Iterator[Span]:
    value = m.group("secret")
    if sv.char_classes(value) >= 3 and sv.shannon_entropy(value) >= limits.min_entropy:
        yield m.span("secret")


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


RULES: tuple[SecretRule, ...] = (
    SecretRule("private_key", _rx(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:\s+[A-Za-z0-9+/=:,\-]+)*)"),
        100, _group(0, _has_key_body)),
    SecretRule("aws_access_key", _rx(r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b"), 80,
               _group(0, lambda v: _mixed(v) and not v.endswith("EXAMPLE"))),  # AWS's documented sample key
    SecretRule("github_token", _rx(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{40,255})\b"),
               80, _group()),
    SecretRule("gitlab_token", _rx(
        r"\b(?:gl(?:pat|dt|ptt|rt|cbt|oas|imt|ft|soat|agent)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,})"),
        80, _group(0, _mixed)),
    SecretRule("slack_token", _rx(r"\bxox[abposre]-[0-9A-Za-z\-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]+"),
               80, _group(0, _mixed)),
    SecretRule("slack_webhook", _rx(r"hooks\.slack\.com/services/(?P<secret>T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+)"),
               80, _group("secret")),
    SecretRule("stripe_key", _rx(r"\b(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{20,})\b"),
               80, _group()),
    SecretRule("anthropic_api_key", _rx(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), 85, _group(0, _mixed)),
    SecretRule("openai_api_key", _rx(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
               80, _group(0, lambda v: _mixed(v) and sv.char_classes(v) >= 3)),
    SecretRule("google_api_key", _rx(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), 80, _group()),
    SecretRule("google_oauth", _rx(r"\b(?:ya29\.[0-9A-Za-z_\-]{20,}|GOCSPX-[0-9A-Za-z_\-]{20,})"),
               80, _group(0, _mixed)),
    SecretRule("npm_token", _rx(r"\bnpm_[A-Za-z0-9]{36}\b"), 80, _group(0, _mixed)),
    SecretRule("pypi_token", _rx(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), 80, _group()),
    SecretRule("huggingface_token", _rx(r"\bhf_[A-Za-z0-9]{30,}\b"), 80, _group(0, _mixed)),
    SecretRule("sendgrid_key", _rx(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{30,}"), 80, _group()),
    SecretRule("jwt", _rx(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"), 75, _group()),
    SecretRule("aws_secret_key", _rx(
        r"(?i)aws[\w \-]{0,30}?(?:secret|sk)[\w\"' ]{0,30}?[:=]\s*[\"']?"
        r"(?P<secret>(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+]))"), 70, _aws_secret_spans),
    SecretRule("bearer_token", _rx(
        r"(?i)(?:authorization[\"']?\s*[:=]\s*[\"']?|\b)bearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{12,}=*)"),
        60, _group("secret", lambda v: _not_placeholder(v) and _mixed(v))),
    SecretRule("basic_auth", _rx(
        r"(?i)authorization[\"']?\s*[:=]\s*[\"']?basic\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"),
        60, _group("secret")),
    SecretRule("password", _rx(
        r"\bcurl\b[^\n]*?\s(?:-u|--user)\s+[\"']?[^:\s\"']+:(?P<secret>[^\s\"']+)"), 55,
        _group("secret", _not_placeholder)),
    SecretRule("connection_string", _rx(
        r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@'\"<>\[\]]*:(?P<secret>[^\s/'\"<>]+)@[^\s/@'\"?#:<>]+"),
        50, _group("secret", _not_placeholder)),
    SecretRule("cli_secret", _CLI_FLAG, 45, lambda m, _l: _cli_spans(m)),
    SecretRule("assignment", _ASSIGNMENT, 40, _assignment_spans),
    SecretRule("password", _rx(  # prose: "the admin password is: Winter2025!"
        r"(?i)\b(?:password|passwd|passphrase)(?:\s+(?:for|of|on)\s+[\w\s\-]{1,30}?)?\s+(?:is|was)\s*:?\s*[\"'`]?(?P<secret>[^\s\"'`]+?)[\"'`.,;]?(?=\s|$)"),
        40, _group("secret", sv.looks_like_credential)),
    SecretRule("high_entropy", _ENTROPY_CONTEXT, 20, _entropy_spans),
)


def kind_of(rule: SecretRule, m: re.Match[str]) -> str:
    """The reported kind: assignments and CLI flags report password or secret by key name."""
    if rule.kind == "assignment":
        return _assignment_kind(m)
    if rule.kind == "cli_secret":
        return "password" if "pass" in m.group("key") else "secret"
    return rule.kind
