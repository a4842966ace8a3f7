"""Entity extraction for code and organisations: regexes plus small tables of known names.

Each entity has a type and a normalised name; `Entity.key` ("service:postgres",
"file:src/app.py") is what the engine indexes. Extractors run from most to least specific
and a span claimed by one (a URL, a path) is not read again by the next, so `src/redis/x.py`
is a file, not the service redis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Iterator

from mnemex.engine.write.observe.known_names import (
    AMBIGUOUS_TOOLS,
    CASED_NAMES,
    ERRNO_NAMES,
    FILE_EXTENSIONS,
    JS_TECH_NAMES,
    NAMES,
    normalise_surface,
)


class EntityType(StrEnum):
    FILE = "file"
    MODULE = "module"
    FUNCTION = "function"  # functions, methods and code identifiers named in backticks
    CLASS = "class"
    PACKAGE = "package"
    TOOL = "tool"
    SERVICE = "service"
    HOST = "host"
    ERROR = "error"
    ORG = "org"


@dataclass(frozen=True, slots=True)
class Entity:
    type: EntityType
    name: str

    @property
    def key(self) -> str:
        return f"{self.type.value}:{self.name}"

    def __str__(self) -> str:
        return self.key


# A redaction marker or an IPv6 literal may sit inside a URL ("postgres://app:[REDACTED:...]@db/x").
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://(?:\[REDACTED:[a-z0-9_]+\]|\[[0-9A-Fa-f:.]+\]|[^\s<>\"'`)\]])+")
_WIN_PATH = re.compile(r"\b[A-Za-z]:\\[^\s\"'<>|*?,;]+")
_UNIX_PATH = re.compile(r"(?<![\w@/.:\\-])(?:~|\.{1,2})?/?(?:[\w.@+\-]+/)+[\w.@+\-]*")
_BARE_FILE = re.compile(
    rf"(?<![\w/.\\-])[\w\-]+(?:\.[\w\-]+)*\.(?:{'|'.join(FILE_EXTENSIONS)})(?![\w/])"
    r"|(?<![\w/.])\.(?:env(?:\.\w+)?|gitignore|dockerignore|editorconfig|npmrc|pypirc|bashrc|zshrc|"
    r"pre-commit-config\.yaml)\b"
    r"|\b(?:Dockerfile|Makefile|Procfile|Jenkinsfile|Gemfile|Rakefile|Justfile|Vagrantfile|CMakeLists\.txt)\b")
_HOST = re.compile(r"(?<![\w.@/-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
                   r"(?:com|org|net|io|dev|ai|app|cloud|co|sh|internal|local|so|gg|xyz|run)\b(?![\w/-])")
_ERRORS = (
    (re.compile(r"\bHTTP(?:/\d(?:\.\d)?)?\s+([1-5]\d\d)\b"), lambda m: f"HTTP {m.group(1)}"),
    (re.compile(r"(?i)\b(?:status(?: code)?|returns?|returned|got(?: an?)?|responds? with|throws?)\s+(?:an?\s+)?([45]\d\d)\b"),
     lambda m: f"HTTP {m.group(1)}"),
    (re.compile(r"\b([45]\d\d) (?:Bad Request|Unauthorized|Forbidden|Not Found|Conflict|Too Many Requests|"
                r"Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b"), lambda m: f"HTTP {m.group(1)}"),
    (re.compile(r"\bCVE-\d{4}-\d{4,}\b"), lambda m: m.group()),
    # linter/compiler codes (E501, F401, TS2345, SC2086, PLR0913), signals; not SHA256, ISO8601, A100
    (re.compile(r"\b(?:[EWFCBDR]\d{3,4}|E[A-Z]?\d{4,5}|TS\d{4}|SC\d{4}|PL[CERW]\d{4}|RUF\d{3}|"
                r"SIG(?:KILL|TERM|SEGV|INT|HUP|ABRT|BUS|PIPE)|OOMKilled)\b"), lambda m: m.group()),
    (re.compile(rf"\b(?:{'|'.join(ERRNO_NAMES)})\b"), lambda m: m.group()),
    (re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b"), lambda m: m.group()),
    (re.compile(r"(?i)\bexit (?:code|status) (\d{1,3})\b"), lambda m: f"exit {m.group(1)}"),
)
_DEF = re.compile(r"\b(?:async\s+def|def|function|fn|func)\s+([A-Za-z_]\w*)")
_CLASS_DEF = re.compile(r"\b(?:class|struct|interface|trait|enum)\s+([A-Z]\w*)")
# foo(), obj.method(x, y): a call with its arguments on the line; not "item(s)".
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\((?!e?s\))(?=[^()\n]{0,80}\))")
_BACKTICKED = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)(\([^`]*\))?`")
_PY_IMPORT = re.compile(r"(?m)^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*))")
_JS_IMPORT = re.compile(r"""(?:\bfrom\s+|\brequire\(\s*|\bimport\s+)['"]((?:@[\w.\-]+/)?[\w.\-]+)[^'"]*['"]""")
_RUN_MODULE = re.compile(r"\bpython3?\s+-m\s+([A-Za-z_][\w.]*)")
_INSTALL = re.compile(
    r"\b(?:pip3?|uv\s+pip|uv|poetry|pipx|conda|npm|pnpm|yarn|bun|cargo|gem|brew|apt|apt-get|go)\s+"
    r"(?:install|add|i|get)\b([^\n;&|]*)")
_DOTTED_MODULE = re.compile(r"(?<![\w.\-/])[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){2,}(?![\w\-/(])")
_ORG_SUFFIX = re.compile(r"\b(?:[A-Z][\w&\-]*\s+){0,3}[A-Z][\w&\-]*\s+"
                         r"(?:Inc|Ltd|LLC|GmbH|Corp|Corporation|Labs|Technologies|Systems|Software|AG|BV)\b\.?")
_KEYWORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "elif", "and", "or", "not", "with",
                       "except", "assert", "yield", "await", "sizeof", "typeof", "function", "def"})
_STOP_ARGS = frozenset({"and", "then", "to", "for", "with", "in", "on", "so", "but", "or", "because", "first",
                        "which", "that", "instead", "before", "after", "if", "is", "it", "the", "a", "an"})
_PACKAGE_NAME = re.compile(r"^@?[A-Za-z0-9][\w.\-]*(?:/[\w.\-]+)?$")
_NOT_MODULE_TAIL = frozenset(FILE_EXTENSIONS) | {"com", "org", "net", "io", "dev", "ai", "app", "co", "sh"}


def _known_names() -> re.Pattern[str]:
    names = sorted(NAMES, key=len, reverse=True)  # longest first: "docker compose" before "docker"
    alts = "|".join(re.escape(n).replace(r"\ ", r"[\s\-]?") for n in names)
    return re.compile(rf"(?i)(?<![\w.\-/])(?:{alts})(?![\w\-/]|\.\w)")


_KNOWN = _known_names()
_AMBIGUOUS = re.compile(
    r"(?:(?<=`)|(?<=^)|(?<=\$ )|(?<=\n)|(?<=; )|(?<=&& )|(?<=\| )|(?<=\brun )|(?<=\buse )|(?<=\bwith ))"
    r"(" + "|".join(AMBIGUOUS_TOOLS) + r")(?=`|\s+(?:-{1,2}\w|[a-z][\w.\-/]*))")


class _Claims:
    """Spans already explained by an earlier, more specific extractor."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in self.spans)

    def take(self, start: int, end: int) -> None:
        self.spans.append((start, end))


def extract_entities(text: str, limit: int = 8) -> tuple[Entity, ...]:
    """The distinct entities in `text`, in order of first appearance, at most `limit`."""
    found: dict[str, tuple[int, Entity]] = {}
    for pos, entity in _all_entities(text):
        if entity.name and entity.key not in found:
            found[entity.key] = (pos, entity)
    ordered = sorted(found.values(), key=lambda pe: pe[0])
    return tuple(e for _, e in ordered[:limit])


def _all_entities(text: str) -> Iterator[tuple[int, Entity]]:
    claims = _Claims()

    def spans(pattern: re.Pattern[str], group: int = 0, claim: bool = True) -> Iterator[re.Match[str]]:
        for m in pattern.finditer(text):
            if claims.free(*m.span(group)):
                if claim:
                    claims.take(*m.span(group))
                yield m

    for m in spans(_URL):
        host = url_host(m.group())
        if host:
            yield m.start(), Entity(EntityType.HOST, host.lower())
    for pattern in (_WIN_PATH, _UNIX_PATH, _BARE_FILE):
        for m in spans(pattern, claim=False):
            path = m.group().rstrip(".,:;")
            if pattern is not _UNIX_PATH or _is_path(path):
                if path.lower() not in JS_TECH_NAMES:
                    claims.take(m.start(), m.start() + len(path))
                    yield m.start(), Entity(EntityType.FILE, path)
    for m in spans(_HOST):
        yield m.start(), Entity(EntityType.HOST, m.group().lower())
    for pattern, name in _ERRORS:
        for m in spans(pattern):
            yield m.start(), Entity(EntityType.ERROR, name(m))
    yield from _code_symbols(text, claims)
    yield from _packages(text)
    for m in spans(_AMBIGUOUS, 1):
        yield m.start(1), Entity(EntityType.TOOL, m.group(1).lower())
    for m in spans(_KNOWN):
        known = NAMES.get(normalise_surface(m.group()))
        if known is None or (known[1] in CASED_NAMES and not m.group()[0].isupper()):
            continue  # "react to", "apple pie": only the proper noun is the entity
        yield m.start(), Entity(EntityType(known[0]), known[1])
    for m in spans(_ORG_SUFFIX):
        yield m.start(), Entity(EntityType.ORG, re.sub(r"\s+", " ", m.group().rstrip(".")).lower())


def url_host(url: str) -> str | None:
    """The host of a URL, lower-cased, or None; never raises. Read by hand rather than with
    `urlsplit`, which refuses a netloc holding a bracket — and a redacted password is one."""
    netloc = re.split(r"[/?#]", url.partition("://")[2], maxsplit=1)[0]
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        end = hostport.find("]")
        host = hostport[1:end] if end > 0 else ""
    else:
        host = hostport.partition(":")[0]
    host = host.strip(".").lower()
    return host if host and not host.startswith("[") else None


def _is_path(path: str) -> bool:
    segments = [s for s in path.split("/") if s not in ("", ".", "..", "~")]
    if not segments:
        return False
    if all(re.fullmatch(r"[A-Z0-9]{1,4}", s) for s in segments) or all(s.isdigit() for s in segments):
        return False  # CI/CD, TCP/IP, I/O, 1/2
    rooted = path.startswith(("/", "./", "../", "~/"))
    has_ext = re.search(r"\.[A-Za-z0-9]{1,6}$", segments[-1]) is not None
    return rooted or has_ext or path.count("/") >= 2


def _code_symbols(text: str, claims: _Claims) -> Iterator[tuple[int, Entity]]:
    for m in _DEF.finditer(text):
        yield m.start(1), Entity(EntityType.FUNCTION, m.group(1))
    for m in _CLASS_DEF.finditer(text):
        yield m.start(1), Entity(EntityType.CLASS, m.group(1))
    for m in _BACKTICKED.finditer(text):
        name, call = m.group(1), m.group(2)
        if not claims.free(*m.span(1)):
            continue
        if call is None and re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+", name):
            yield m.start(1), Entity(EntityType.CLASS, name)
        elif call is not None or re.search(r"[a-z][A-Z]|_", name.split(".")[-1]):
            yield m.start(1), Entity(EntityType.FUNCTION, name)
        elif "." in name and name.islower() and name.rsplit(".", 1)[-1] not in _NOT_MODULE_TAIL:
            yield m.start(1), Entity(EntityType.MODULE, name)
        else:
            continue
        claims.take(*m.span(1))
    for m in _CALL.finditer(text):
        if claims.free(*m.span(1)) and m.group(1) not in _KEYWORDS:
            claims.take(*m.span(1))
            yield m.start(1), Entity(EntityType.FUNCTION, m.group(1))
    for pattern in (_PY_IMPORT, _RUN_MODULE):
        for m in pattern.finditer(text):
            name = next(g for g in m.groups() if g)
            start = m.start(m.lastindex or 0)
            if "." in name:
                yield start, Entity(EntityType.MODULE, name)
            yield start, Entity(EntityType.PACKAGE, name.split(".")[0].lower())
    for m in _DOTTED_MODULE.finditer(text):
        if claims.free(*m.span()) and m.group().rsplit(".", 1)[-1] not in _NOT_MODULE_TAIL:
            claims.take(*m.span())
            yield m.start(), Entity(EntityType.MODULE, m.group())


def _packages(text: str) -> Iterator[tuple[int, Entity]]:
    for m in _INSTALL.finditer(text):
        offset = m.start(1)
        for arg in re.finditer(r"\S+", m.group(1)):
            word = arg.group().strip("`'\",.:")
            if word.lower() in _STOP_ARGS:
                break  # "pip install x and restart": the command ends where prose starts
            if word.startswith("-"):
                continue
            name = re.split(r"(?<=.)[=<>~!^@\[]", word, maxsplit=1)[0]  # drop versions and extras
            if _PACKAGE_NAME.match(name) and not name.endswith((".txt", ".toml", ".lock")):
                yield offset + arg.start(), Entity(EntityType.PACKAGE, name.lower())
    for m in _JS_IMPORT.finditer(text):
        yield m.start(1), Entity(EntityType.PACKAGE, m.group(1).lower())
