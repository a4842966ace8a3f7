"""The memory viewer: a page the daemon serves on loopback (`mnemex viewer`), its JSON API over
the engine, and the listener that opens on first use. See docs/viewer.md."""
