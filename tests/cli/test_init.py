"""`mnemex init`: each client's config written, merged, shown, asked, undone — as a user runs it
(subprocesses, HOME in a temp dir, cwd inside a temp git repo), plus the merge functions alone."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import mnemex
from mnemex.clients.files import render
from mnemex.clients.launcher import find_launcher, is_mnemex_hook
from mnemex.clients.merge import (
    HOOK_EVENTS,
    ShapeError,
    with_hooks,
    with_server,
    without_hooks,
    without_server,
)

BACKUP = ".mnemex-backup"


class Setup:
    """A home, a git repo (cwd: a folder inside it) and a PATH whose only mnemex is a stand-in."""

    def __init__(self, tmp: Path):
        self.home, self.repo, self.bin = tmp / "home", (tmp / "repo").resolve(), tmp / "bin"
        self.cwd = self.repo / "src"
        for d in (self.home, self.repo / ".git", self.cwd, self.bin):
            d.mkdir(parents=True)
        script = self.bin / "mnemex"
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o755)
        self.mnemex = str(script.resolve())
        drop = ("XDG_CONFIG_HOME", "APPDATA")
        self.env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("MNEMEX_")}
        self.env.update(HOME=str(self.home), PATH=str(self.bin))

    def run(self, *args: str, path: str | None = None, exe: str | None = None) -> subprocess.CompletedProcess:
        cmd = [exe] if exe else [sys.executable, "-m", "mnemex.cli"]
        env = self.env if path is None else {**self.env, "PATH": path}
        return subprocess.run([*cmd, "init", *args], cwd=self.cwd, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60, check=False)

    def files(self, client: str) -> tuple[Path, str, Path | None]:
        """(MCP config file, servers key, hooks file) of a client at its default scope."""
        return {
            "claude-code": (self.repo / ".mcp.json", "mcpServers", self.repo / ".claude" / "settings.json"),
            "claude-desktop": (self.home / ".config" / "Claude" / "claude_desktop_config.json", "mcpServers", None),
            "cursor": (self.repo / ".cursor" / "mcp.json", "mcpServers", None),
            "vscode": (self.repo / ".vscode" / "mcp.json", "servers", None),
        }[client]

    def entry(self, client: str, command: str | None = None, args: tuple[str, ...] = ()) -> dict:
        typed = {"type": "stdio"} if client in ("claude-code", "vscode") else {}
        return {**typed, "command": command or self.mnemex, "args": [*args, "serve"]}


CLIENTS = ["claude-code", "claude-desktop", "cursor", "vscode"]


@pytest.fixture
def s(tmp_path: Path) -> Setup:
    if sys.platform != "linux":
        pytest.skip("the expected paths (Claude Desktop's, the pty) are the Linux ones")
    return Setup(tmp_path)


def ours(command: str) -> dict:
    """The hooks block init writes, for `command` (the spec, written out)."""
    def group(timeout: int, matcher: str | None = None) -> list:
        return [{**({"matcher": matcher} if matcher else {}),
                 "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]
    tools = "Read|Edit|MultiEdit|Write|Bash"
    return {"SessionStart": group(30), "UserPromptSubmit": group(10), "PostToolUse": group(5, tools),
            "PostToolUseFailure": group(5, tools), "PreCompact": group(30), "Stop": group(30),
            "SessionEnd": group(30)}


def load(path: Path):
    return json.loads(path.read_text())


def user_files(s: Setup, client: str) -> dict[Path, bytes]:
    """Existing configs full of the user's own entries, 4-space indented, with non-ASCII text."""
    server_file, key, hooks_file = s.files(client)
    doc = {"theme": "dark", key: {"github": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"TOKEN": "ŧ"}},
                                  "db": {"type": "http", "url": "http://localhost:9000/mcp"}},
           "inputs": [{"id": "x", "description": "clé"}]}
    files = {server_file: json.dumps(doc, indent=4, ensure_ascii=False) + "\n"}
    if hooks_file:
        files[hooks_file] = json.dumps({
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
                      "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt.sh"}]}],
                      "Notification": [{"hooks": [{"type": "command", "command": "notify-send x"}]}]},
        }, indent=4) + "\n"
    out = {}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        path.chmod(0o640)
        out[path] = path.read_bytes()
    return out


# ------------------------------------------------------------------ every client, end to end
@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
def test_fresh_files_hold_the_absolute_mnemex_and_say_what_next(s: Setup, client: str):
    proc = s.run(client, "--yes")
    assert proc.returncode == 0, proc.stderr
    server_file, key, hooks_file = s.files(client)
    assert load(server_file) == {key: {"mnemex": s.entry(client)}}
    assert not server_file.with_name(server_file.name + BACKUP).exists()
    if hooks_file:
        assert load(hooks_file) == {"hooks": ours(f"{s.mnemex} hook")}
    assert proc.stdout.strip().splitlines()[-1].startswith(f"{client}: ")
    assert f"+++ {server_file}" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
def test_merge_keeps_every_other_entry_and_undo_gives_the_file_back_byte_for_byte(s: Setup, client: str):
    before = user_files(s, client)
    server_file, key, hooks_file = s.files(client)
    proc = s.run(client, "--yes")
    assert proc.returncode == 0, proc.stderr
    old, new = json.loads(before[server_file]), load(server_file)
    assert list(new) == list(old)  # same keys, same order
    assert all(new[k] == old[k] for k in old if k != key)
    assert list(new[key].items())[:2] == list(old[key].items()) and new[key]["mnemex"] == s.entry(client)
    assert '\n    "theme": "dark"' in server_file.read_text(encoding="utf-8")  # its indentation kept
    if hooks_file:
        old_h, new_h = json.loads(before[hooks_file]), load(hooks_file)
        assert new_h["permissions"] == old_h["permissions"]
        assert new_h["hooks"]["Notification"] == old_h["hooks"]["Notification"]
        for event, groups in ours(f"{s.mnemex} hook").items():
            assert new_h["hooks"][event] == old_h["hooks"].get(event, []) + groups
    for path, raw in before.items():  # backup of each previous version, mode kept
        assert path.with_name(path.name + BACKUP).read_bytes() == raw
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
    proc = s.run(client, "--undo", "--yes")
    assert proc.returncode == 0, proc.stderr
    for path, raw in before.items():
        assert path.read_bytes() == raw


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
def test_a_second_run_changes_nothing(s: Setup, client: str):
    user_files(s, client)
    assert s.run(client, "--yes").returncode == 0
    paths = [p for p in s.files(client) if isinstance(p, Path)]
    snapshot = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}
    backups = {p: p.with_name(p.name + BACKUP).read_bytes() for p in paths}
    proc = s.run(client)  # no --yes needed: nothing to ask
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("already up to date") == len(paths) and "+++" not in proc.stdout
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths} == snapshot
    assert {p: p.with_name(p.name + BACKUP).read_bytes() for p in paths} == backups


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
def test_dry_run_and_no_terminal_write_nothing(s: Setup, client: str):
    server_file, _, hooks_file = s.files(client)
    proc = s.run(client, "--dry-run")
    assert proc.returncode == 0 and f"+++ {server_file}" in proc.stdout and "dry run" in proc.stdout
    assert not server_file.exists() and not (hooks_file and hooks_file.exists())
    before = user_files(s, client)
    for args, code in ((["--dry-run"], 0), ([], 1)):
        proc = s.run(client, *args)
        assert proc.returncode == code and f"+++ {server_file}" in proc.stdout
        assert {p: p.read_bytes() for p in before} == before
        assert not any(p.with_name(p.name + BACKUP).exists() for p in before)
    assert "--yes" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
def test_undo_of_a_fresh_setup_leaves_no_file(s: Setup, client: str):
    assert s.run(client, "--yes").returncode == 0
    proc = s.run(client, "--undo")
    assert proc.returncode == 1 and "--- " in proc.stdout  # shown and not applied without --yes
    proc = s.run(client, "--undo", "--yes")
    assert proc.returncode == 0, proc.stderr
    for path in (p for p in s.files(client) if isinstance(p, Path)):
        assert not path.exists() and path.with_name(path.name + BACKUP).exists()
    assert "nothing to remove" in s.run(client, "--undo").stdout


@pytest.mark.slow
@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("content, needle", [
    ('{"mcpServers": {"a": 1},}', "not valid JSON"),
    ('["mcpServers"]', "top level is a list"),
    ('{"mcpServers": ["mnemex"], "servers": ["mnemex"]}', "is a list, not an object"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_a_file_mnemex_cannot_read_is_refused_and_untouched(s: Setup, client: str, content, needle: str):
    server_file = s.files(client)[0]
    server_file.parent.mkdir(parents=True, exist_ok=True)
    raw = content if isinstance(content, bytes) else content.encode()
    server_file.write_bytes(raw)
    for args in (["--yes"], ["--undo", "--yes"]):
        proc = s.run(client, *args)
        assert proc.returncode == 1 and needle in proc.stderr and str(server_file) in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert server_file.read_bytes() == raw and not server_file.with_name(server_file.name + BACKUP).exists()


@pytest.mark.slow
@pytest.mark.parametrize("hooks", ['{"hooks": []}', '{"hooks": {"Stop": {"hooks": []}}}'])
def test_claude_code_settings_of_the_wrong_shape_block_both_files(s: Setup, hooks: str):
    server_file, _, hooks_file = s.files("claude-code")
    hooks_file.parent.mkdir()
    hooks_file.write_text(hooks)
    proc = s.run("claude-code", "--yes")
    assert proc.returncode == 1 and str(hooks_file) in proc.stderr and "hooks" in proc.stderr
    assert hooks_file.read_text() == hooks and not server_file.exists()


# ------------------------------------------------------------------ options
@pytest.mark.slow
def test_claude_code_user_scope_writes_the_top_level_of_claude_json(s: Setup):
    claude_json = s.home / ".claude.json"
    state = {"numStartups": 7, "projects": {"/x": {"mcpServers": {"p": {"command": "p"}}}},
             "mcpServers": {"other": {"command": "o"}}}
    claude_json.write_text(json.dumps(state, indent=2))
    proc = s.run("claude-code", "--scope", "user", "--yes")
    assert proc.returncode == 0, proc.stderr
    doc = load(claude_json)
    assert doc["projects"] == state["projects"] and doc["numStartups"] == 7
    assert doc["mcpServers"] == {"other": {"command": "o"}, "mnemex": s.entry("claude-code")}
    assert load(s.home / ".claude" / "settings.json") == {"hooks": ours(f"{s.mnemex} hook")}
    assert not (s.repo / ".mcp.json").exists()
    assert s.run("cursor", "--scope", "user", "--yes").returncode == 0
    assert load(s.home / ".cursor" / "mcp.json") == {"mcpServers": {"mnemex": s.entry("cursor")}}


@pytest.mark.slow
def test_path_no_hooks_and_several_clients(s: Setup, tmp_path: Path):
    target, settings = tmp_path / "deep" / "mcp.json", tmp_path / "hooks.json"
    proc = s.run("claude-code", "--path", str(target), "--hooks-path", str(settings), "--yes")
    assert proc.returncode == 0, proc.stderr
    assert load(target)["mcpServers"]["mnemex"] == s.entry("claude-code") and "hooks" in load(settings)
    proc = s.run("claude-code", "--no-hooks", "--yes")
    assert proc.returncode == 0 and not (s.repo / ".claude").exists() and (s.repo / ".mcp.json").exists()
    proc = s.run("cursor", "vscode", "--yes")
    assert [line.split(":")[0] for line in proc.stdout.strip().splitlines()[-2:]] == ["cursor", "vscode"]
    assert s.run("cursor", "vscode", "--path", str(target)).returncode == 1
    proc = s.run("zed")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


@pytest.mark.slow
def test_the_command_is_absolute_whatever_runs_init(s: Setup):
    proc = s.run("cursor", "--yes", path=str(s.home))  # no mnemex on PATH: this Python, -m mnemex.cli
    assert proc.returncode == 0, proc.stderr
    assert load(s.repo / ".cursor" / "mcp.json")["mcpServers"]["mnemex"] == \
        s.entry("cursor", sys.executable, ("-m", "mnemex.cli"))
    assert s.run("claude-code", "--yes", path=str(s.home)).returncode == 0
    hook = load(s.repo / ".claude" / "settings.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert hook == shlex.join([sys.executable, "-S", str(Path(mnemex.__file__).resolve().parent / "hook_script.py")])
    assert s.run("claude-code", "--yes").returncode == 0  # another install: updated in place, not added
    assert load(s.repo / ".claude" / "settings.json") == {"hooks": ours(f"{s.mnemex} hook")}
    installed = Path(sys.executable).parent / "mnemex"
    if installed.is_file():  # the console script of this venv names itself
        assert s.run("vscode", "--yes", exe=str(installed), path=str(s.home)).returncode == 0
        assert load(s.repo / ".vscode" / "mcp.json")["servers"]["mnemex"]["command"] == str(installed.resolve())


@pytest.mark.slow
def test_on_a_terminal_it_asks(s: Setup):
    import pty

    for answer, code in (("n", 1), ("y", 0)):
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "mnemex.cli", "init", "cursor"], cwd=s.cwd, env=s.env,
                                stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.write(master, f"{answer}\n".encode())
        out, _ = proc.communicate(timeout=60)
        os.close(slave)
        os.close(master)
        assert proc.returncode == code and "Apply? [y/N]" in out
        assert (s.repo / ".cursor" / "mcp.json").exists() == (answer == "y")


# ------------------------------------------------------------------ the merge functions alone
CMD = "/opt/mnemex/bin/mnemex hook"


def test_an_existing_mnemex_hook_is_updated_where_it_is():
    mixed = {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"},
                                          {"type": "command", "command": "/old/venv/bin/mnemex hook", "timeout": 99}]}
    doc = {"hooks": {"PostToolUse": [mixed, {"hooks": [{"type": "command", "command": "python3 -m mnemex hook"}]}],
                     "Stop": [{"hooks": [{"type": "command", "command": "/old/mnemex hook"}]},
                              {"hooks": [{"type": "command", "command": "say done"}]}]}}
    out = with_hooks(doc, CMD)
    assert out["hooks"]["PostToolUse"] == [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"},
                                      {"type": "command", "command": CMD, "timeout": 5}]}]
    assert out["hooks"]["Stop"] == [ours(CMD)["Stop"][0], {"hooks": [{"type": "command", "command": "say done"}]}]
    assert list(out["hooks"]) == ["PostToolUse", "Stop", *[e for e in HOOK_EVENTS if e not in ("PostToolUse", "Stop")]]
    assert with_hooks(out, CMD) == out and doc["hooks"]["Stop"][0]["hooks"][0]["command"] == "/old/mnemex hook"


def test_undo_removes_only_mnemex_hooks_and_what_that_empties():
    doc = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "x"}]}]}, "model": "m"}
    assert without_hooks(with_hooks(doc, CMD)) == doc
    assert without_hooks(with_hooks({"model": "m"}, CMD)) == {"model": "m"}
    untouched = {"hooks": {"Stop": [], "Other": [{"hooks": "?"}]}}  # not emptied by undo: kept as they were
    assert without_hooks(untouched) == untouched and without_hooks({"hooks": {}}) == {"hooks": {}}


def test_server_entry_keeps_its_place_and_env_but_not_another_transport():
    doc = {"mcpServers": {"a": {"command": "a"}, "mnemex": {"type": "http", "url": "http://x", "env": {"K": "v"}},
                          "z": {"command": "z"}}}
    entry = {"command": "/m", "args": ["serve"]}
    out = with_server(doc, "mcpServers", entry)
    assert list(out["mcpServers"]) == ["a", "mnemex", "z"]
    assert out["mcpServers"]["mnemex"] == {"env": {"K": "v"}, "command": "/m", "args": ["serve"]}
    assert with_server(out, "mcpServers", entry) == out
    assert without_server(out, "mcpServers") == {"mcpServers": {"a": {"command": "a"}, "z": {"command": "z"}}}
    assert without_server({"mcpServers": {"mnemex": {}}, "k": 1}, "mcpServers") == {"k": 1}
    assert with_server({"mcpServers": None}, "mcpServers", entry) == {"mcpServers": {"mnemex": entry}}
    for bad, needle in (([], "top level is a list"), ({"mcpServers": "x"}, "'mcpServers' is a string")):
        with pytest.raises(ShapeError, match=needle):
            with_server(bad, "mcpServers", entry)


@pytest.mark.parametrize("command, mine", [
    ("/a/b/mnemex hook", True), ("'/my dir/mnemex' hook", True), ("/usr/bin/python3 -m mnemex.cli hook", True),
    ("C:\\\\tools\\\\mnemex.exe hook", True), ("mnemex-other hook", False), ("echo hook", False),
    ("/a/mnemex hook --x", False), ("/a/mnemex serve", False), ("'unclosed hook", False), (None, False),
    ("/v/bin/python -S /v/lib/python3.11/site-packages/mnemex/hook_script.py", True),
    ("/v/bin/python -S /v/other/hook_script.py", False), ("/v/bin/python /v/mnemex/hook_script.py", False),
])
def test_which_hook_commands_are_mnemex(command, mine: bool):
    assert is_mnemex_hook(command) is mine


def test_the_launcher_prefers_the_running_script_then_path_then_this_python(tmp_path: Path):
    script = tmp_path / "bin" / "mnemex"
    script.parent.mkdir()
    script.write_text("")
    fast = str(Path(mnemex.__file__).resolve().parent / "hook_script.py")
    running = find_launcher(str(script), which=lambda _: None, executable="/v/bin/python")
    assert running.argv == (str(script.resolve()),)
    assert running.hook_command == f"/v/bin/python -S {fast}"  # this installation: its fast hook
    other = find_launcher("/src/mnemex/cli.py", which=lambda _: str(script))
    assert other.argv == (str(script.resolve()),) and other.hook_command == f"{script.resolve()} hook"
    module = find_launcher("/src/mnemex/__main__.py", which=lambda _: None, executable="/v/bin/python")
    assert module.argv == ("/v/bin/python", "-m", "mnemex.cli")
    assert module.hook_command == f"/v/bin/python -S {fast}" and is_mnemex_hook(module.hook_command)


def test_render_keeps_the_file_style():
    doc = {"a": [1]}
    assert render(doc, '{\n\t"b": 2\n}\n') == '{\n\t"a": [\n\t\t1\n\t]\n}\n'
    assert render(doc, '{"b": 2}') == '{"a": [1]}'
    assert render(doc, '{\r\n  "b": 2\r\n}\r\n') == '{\r\n  "a": [\r\n    1\r\n  ]\r\n}\r\n'
    assert render(doc, None) == render(doc, "{}") == '{\n  "a": [\n    1\n  ]\n}\n'


def test_the_reference_hooks_block_is_what_init_writes():
    reference = Path(__file__).parents[2] / "configs" / "claude-code" / "settings.hooks.json"
    placeholder = "/ABSOLUTE/PATH/TO/.venv/bin/mnemex hook"
    assert json.loads(reference.read_text()) == with_hooks({}, placeholder) == {"hooks": ours(placeholder)}
