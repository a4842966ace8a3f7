"""The names the relay and the daemon client share, without `http.client`: the stdio relay
imports this module to answer `initialize`, and only its forwarding threads load the HTTP
client (`daemon_client`, ~60 ms of imports on a slow core)."""

from __future__ import annotations

import re

PROJECT_HEADER = "x-mnemex-project"  # == mnemex.tools.runtime.PROJECT_HEADER (not imported: it pulls in anyio)
CLIENT_HEADER = "x-mnemex-client"
MODERN_VERSION = "2026-07-28"
META_PREFIX = "io.modelcontextprotocol/"


def header_value(text: str) -> str:
    """A header value http.client can send: the UTF-8 bytes of `text` (the server reads header
    bytes as latin-1, so `value.encode("latin-1").decode("utf-8")` there gives `text` back);
    control characters, which would split the header or make the server refuse it, are dropped
    (and a lone surrogate becomes "?")."""
    return _CONTROL.sub("", text).encode("utf-8", "replace").decode("latin-1")


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class NotDelivered(ConnectionError):
    """The daemon certainly never read the message (safe to retry): no daemon accepted the
    connection, sending failed, or the daemon went away with the message unread."""


class Interrupted(ConnectionError):
    """The daemon read the message but its answer broke off (it died, most likely): the message
    may have been carried out, so only a request that merely reads is safe to repeat."""
