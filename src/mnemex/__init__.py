"""mnemex: long-term memory for coding agents, served over MCP."""

__version__ = "0.1.0"
