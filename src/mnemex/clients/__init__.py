"""The MCP clients `mnemex init` sets up, and how (`init.run_init` is the command).

`init` writes a client's config so that it starts this mnemex, by the absolute path of the
installed `mnemex` (a GUI client does not inherit your shell's PATH), and for Claude Code also
the hooks block that runs `mnemex hook`. Files are merged, never clobbered: only the `mnemex`
server entry and the hook entries whose command is a `mnemex hook` are added, updated or (undo)
removed; every other key keeps its value and order, and the file keeps its indentation. A file
that is not a JSON object of the expected shape is refused, never overwritten.

launcher (the mnemex command) <- merge (pure edits of a config document) ; targets (which file,
which key, per client) ; files (read, diff, atomic write with backup) <- init (the command).
Stdlib only, and this file imports nothing: the CLI reads `CLIENTS` at start-up.
"""

CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode")
