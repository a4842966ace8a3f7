"""Map mnemex errors to MCP errors: bad input and unknown ids are invalid-params."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from mnemex.errors import InvalidInputError, MnemexError, NotFoundError


@contextmanager
def mcp_errors() -> Iterator[None]:
    try:
        yield
    except (InvalidInputError, NotFoundError) as exc:
        raise MCPError(code=INVALID_PARAMS, message=str(exc)) from exc
    except MnemexError as exc:
        raise MCPError(code=INTERNAL_ERROR, message=str(exc)) from exc
