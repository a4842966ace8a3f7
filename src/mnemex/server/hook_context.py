"""The daemon as the hook's context source: the packed context comes from the `memory_context`
prompt of the store's daemon (stateless requests, stdlib only: the hook stays fast).

At session start the daemon is started if none runs (the first session of the day waits for
it, within the hook's time limit). For a prompt, a daemon that is not running is started in
the background and the prompt goes without context: typing never waits for a model load."""

from __future__ import annotations

from mnemex.capture.settings import HookSettings
from mnemex.server import daemon_client
from mnemex.server.runfiles import RunFiles

PROMPT = "memory_context"
SESSION_TIMEOUT = 20.0   # SessionStart's hook limit is 30 s (mnemex init)
PROMPT_TIMEOUT = 6.0     # UserPromptSubmit's is 10 s


class DaemonContext:
    def session_context(self, settings: HookSettings, *, project: str, session: str, source: str) -> str:
        return daemon_client.get_prompt(settings, PROMPT, {"event": "session_start", "session_id": session,
                                                           "source": source}, project=project,
                                        timeout=SESSION_TIMEOUT, client="claude-code-hook", start=True)

    def prompt_context(self, settings: HookSettings, *, project: str, session: str, prompt: str) -> str:
        files = RunFiles.for_settings(settings)
        if not files.socket_answers(0.2):
            daemon_client.spawn_daemon(files, daemon_client.daemon_env(settings))  # ready for the next prompt
            return ""
        return daemon_client.get_prompt(settings, PROMPT, {"event": "prompt", "task": prompt, "session_id": session},
                                        project=project, timeout=PROMPT_TIMEOUT, client="claude-code-hook",
                                        start=False)
