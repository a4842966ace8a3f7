"""How memories reach the agent: the three injection strategies of seed 002, one protocol.

A strategy decides what the server offers a client — the `instructions` of its initialize
answer, the extra prompts, resources and tools — and what the Claude Code hooks inject at
session start and with each prompt. All of them read through the engine's one read path
(`ContextBuilder`) and never inject a memory flagged `no_inject`. Chosen by `retrieval.strategy`.

- `context`: the agent receives memories passively (the hooks, the `memory_context` prompt and
  the `memory://context` resource).
- `tool_based`: the agent decides; the instructions say when to search and when to memorize.
- `self_editing`: core memory blocks always in context, edited by the agent through tools;
  memorize/search as archival memory; search over the captured events of past sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mnemex.strategies.context import ContextBuilder, ContextRequest, Packed

ARCHIVAL = ("Memorize what the code does not show and a later session will need — a decision and why, a "
            "convention, a user preference, a gotcha, a command that failed and what fixed it — as one "
            "self-contained statement each, in the project's own words (memorize). When it changes something that "
            "may already be stored (renamed, replaced, moved, a new value, a rule relaxed or dropped), search_memory "
            "for the old statement first and pass its id in supersedes: mnemex's own rules catch only part of the "
            "ways a change is written. When memorize lists candidates it may replace, memorize it again with "
            "supersedes=[the ids it makes outdated]. Correct a wrong memory with update_memory; forget one that no "
            "longer holds. When a memory you used proved right or misleading, say so with rate_memory.")


@dataclass(frozen=True, slots=True)
class Offers:
    """What a strategy adds to the core tools (search/recall/memorize/update/forget/...)."""

    context_resource: bool = False   # memory://context
    block_tools: bool = False        # memory_block_* tools and memory://blocks/{label}
    session_search: bool = False     # search_past_sessions


class InjectionStrategy(Protocol):
    name: str
    offers: Offers

    def instructions(self) -> str: ...

    def session_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                        budget: int) -> Packed: ...

    def prompt_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                       prompt: str, budget: int) -> Packed: ...


class ContextStrategy:
    name = "context"
    offers = Offers(context_resource=True)

    def instructions(self) -> str:
        return ("mnemex is your long-term memory across sessions. Memories that matter to this session and to each "
                "prompt may be given to you between <mnemex-memory> tags; a newer statement wins over an older one, "
                "and recall_memory takes the ids shown. When none were given, or you need more — a past decision, "
                "a convention, an earlier fix — search_memory. " + ARCHIVAL)

    def session_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                        budget: int) -> Packed:
        return builder.for_session(session_id, ContextRequest(project, "", budget))

    def prompt_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                       prompt: str, budget: int) -> Packed:
        return builder.for_session(session_id, ContextRequest(project, prompt, budget),
                                   with_blocks=False, with_pinned=False)


class ToolBasedStrategy:
    name = "tool_based"
    offers = Offers()

    def instructions(self) -> str:
        return ("mnemex is your long-term memory across sessions. Search it (search_memory) before you start a "
                "task, before you make a decision, when a command fails, and whenever the user refers to something "
                "from before; then recall_memory the ids you need. " + ARCHIVAL)

    def session_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                        budget: int) -> Packed:
        # only what must never be missed: the core blocks and pinned memories
        return builder.for_session(session_id, ContextRequest(project, "", min(budget, 400)), standing=False)

    def prompt_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                       prompt: str, budget: int) -> Packed:
        return Packed("")


class SelfEditingStrategy:
    name = "self_editing"
    offers = Offers(block_tools=True, session_search=True)

    def instructions(self) -> str:
        return ("mnemex is your long-term memory. Your core memory — the blocks `user` (who the user is and what "
                "they prefer), `project` (this project's durable context) and `persona` (how you work with this "
                "user) — is given to you at the start of each session; keep it current yourself with "
                "memory_block_append, memory_block_replace and memory_block_rewrite (memory_blocks shows them and "
                "their limits). Archival memory: " + ARCHIVAL + " Find archived knowledge with search_memory, and "
                "what happened in earlier sessions (commands, edits, episodes) with search_past_sessions.")

    def session_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                        budget: int) -> Packed:
        return builder.for_session(session_id, ContextRequest(project, "", budget), standing=False)

    def prompt_context(self, builder: ContextBuilder, *, project: str | None, session_id: str | None,
                       prompt: str, budget: int) -> Packed:
        return Packed("")


STRATEGIES: dict[str, InjectionStrategy] = {
    s.name: s for s in (ContextStrategy(), ToolBasedStrategy(), SelfEditingStrategy())
}


def strategy_for(name: str) -> InjectionStrategy:
    return STRATEGIES[name]


__all__ = ["ContextBuilder", "ContextRequest", "InjectionStrategy", "Offers", "Packed", "STRATEGIES", "strategy_for"]
