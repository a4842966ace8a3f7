"""What tool functions need at call time: the engine, the injection strategy and its context
builder, and who is calling — the caller's project and client."""

from __future__ import annotations

import logging
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

import anyio.to_thread

from mnemex.config.injection import InjectionSettings
from mnemex.engine.service import MemoryEngine
from mnemex.projects import project_of_roots
from mnemex.strategies import ContextBuilder, InjectionStrategy, strategy_for

log = logging.getLogger("mnemex.context")
PROJECT_HEADER = "x-mnemex-project"
CLIENT_HEADER = "x-mnemex-client"
T = TypeVar("T")


@dataclass
class ToolRuntime:
    """Holds the engine; `default_project` is the server's own git root (direct stdio mode)."""

    engine: MemoryEngine
    default_project: str | None = None
    strategy: InjectionStrategy = field(default_factory=lambda: strategy_for("context"))
    injection: InjectionSettings = field(default_factory=InjectionSettings)
    #: run (in a worker thread) before a session's context is built: the daemon ingests the capture spool
    before_session: Callable[[], Any] | None = None
    _builder: ContextBuilder | None = None
    _roots: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary)

    @classmethod
    def from_settings(cls, engine: MemoryEngine, settings: Any, default_project: str | None = None) -> "ToolRuntime":
        """The runtime a configured server uses: `retrieval.strategy` and the `injection` section."""
        return cls(engine, default_project=default_project, strategy=strategy_for(settings.retrieval.strategy),
                   injection=settings.injection)

    @property
    def builder(self) -> ContextBuilder:
        if self._builder is None:
            blocks = getattr(self.engine, "blocks", None)
            self._builder = ContextBuilder(self.engine, self.injection,
                                           blocks=blocks.render if blocks is not None else None)
        return self._builder

    def session_context(self, project: str | None, session_id: str | None, budget: int | None = None) -> Any:
        """What a session gets at its start (the strategy's `Packed`), once the last session's
        capture is in (`before_session`). Blocking: run it in a worker thread."""
        if self.before_session is not None:
            try:
                self.before_session()
            except Exception:  # the context without the latest capture beats no context
                log.exception("before a session's context")
        return self.strategy.session_context(self.builder, project=project, session_id=session_id,
                                             budget=budget or self.injection.session_budget)

    def prompt_context(self, project: str | None, session_id: str | None, prompt: str,
                       budget: int | None = None) -> Any:
        """What a prompt gets (the strategy's `Packed`). Blocking: run it in a worker thread."""
        return self.strategy.prompt_context(self.builder, project=project, session_id=session_id, prompt=prompt,
                                            budget=budget or self.injection.prompt_budget)

    def project_for(self, ctx: Any) -> str | None:
        """The caller's project: the client's first root when it offers roots (`roots/list`,
        asked once per session by `resolve_project`), else the relay's header (the client's working
        directory), else the server's own."""
        session = _rooted_session(ctx)
        root = self._roots.get(session) if session is not None else None
        if root:
            return root
        headers = None
        try:
            headers = ctx.headers
        except (ValueError, AttributeError):
            headers = None
        if headers:
            value = headers.get(PROJECT_HEADER)
            if value:
                return _utf8_header(value)
        return self.default_project

    async def resolve_project(self, ctx: Any) -> str | None:
        """`project_for`, after asking a client that offers roots for its first root (once per
        session; a client that cannot answer falls back to the header)."""
        session = _rooted_session(ctx)
        if session is not None and session not in self._roots:
            self._roots[session] = await _first_root(ctx)
        return self.project_for(ctx)

    def client_for(self, ctx: Any) -> str | None:
        """The caller's client name: the relay's header (from the client's `clientInfo`), else
        the `clientInfo` of this session's `initialize` (direct stdio/HTTP). Recorded in
        provenance and the audit log; it names a client, it proves nothing."""
        try:
            value = (ctx.headers or {}).get(CLIENT_HEADER)
        except (ValueError, AttributeError):
            value = None
        if value:
            return _utf8_header(value)[:200]
        try:
            info = ctx.session.client_params.client_info
        except (ValueError, AttributeError):
            return None
        name = getattr(info, "name", None)
        return str(name)[:200] if name else None

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking engine call in a worker thread so the event loop never stalls."""
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))


def _rooted_session(ctx: Any) -> Any:
    """The caller's session when its client declared the roots capability, else None."""
    try:
        session = ctx.session
        caps = session.client_capabilities
    except (ValueError, AttributeError):
        return None
    if caps is None or getattr(caps, "roots", None) is None:
        return None
    try:
        weakref.ref(session)
    except TypeError:
        return None
    return session


async def _first_root(ctx: Any) -> str | None:
    try:
        with anyio.fail_after(5), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # roots are deprecated from protocol 2026-07-28 on; clients still send them
            result = await ctx.session.list_roots()
    except Exception:  # an old client, a stateless request, a timeout: use the header
        return None
    return project_of_roots(getattr(result, "roots", None))


def _utf8_header(value: str) -> str:
    """Header values arrive decoded as latin-1; the relay sends UTF-8 paths (/home/jörg/...)."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value
