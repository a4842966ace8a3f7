"""Map mnemex errors to MCP errors: bad input and unknown ids are invalid-params."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from mnemex.errors import InvalidInputError, MnemexError, NotFoundError
from mnemex.sqlite_files import is_damage


@contextmanager
def mcp_errors() -> Iterator[None]:
    try:
        yield
    except (InvalidInputError, NotFoundError) as exc:
        raise MCPError(code=INVALID_PARAMS, message=str(exc)) from exc
    except MnemexError as exc:
        raise MCPError(code=INTERNAL_ERROR, message=str(exc)) from exc
    except Exception as exc:
        if not is_damage(exc):
            raise
        raise MCPError(code=INTERNAL_ERROR, message=(
            f"a data file of the memory store is damaged ({exc}): tell the user to run `mnemex daemon stop` then "
            "`mnemex doctor`, which sets it aside and starts a fresh one; the memories themselves are not "
            "affected")) from exc
