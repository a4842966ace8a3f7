"""Validated, frozen settings: a TOML file plus MNEMEX_* environment variables.

Only entry points (server, CLI, hooks, benchmark) call `load_settings`; everything
else receives the values it needs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from mnemex.config.base import Frozen
from mnemex.config.blocks import BlocksConfig
from mnemex.config.capture import CaptureSettings
from mnemex.config.injection import InjectionSettings
from mnemex.config.defaults import (
    DEFAULT_MODEL,
    MAX_CONTENT_CHARS,
    MAX_RESULTS,
    config_file_path,
    default_data_dir,
)
from mnemex.config.gate import GateConfig
from mnemex.config.lifecycle import LifecycleConfig
from mnemex.config.observer import ObserverConfig
from mnemex.config.redaction import RedactionConfig
from mnemex.config.retrieval import RetrievalConfig
from mnemex.errors import ConfigError



class StoreSettings(Frozen):
    """Where memories live. `url` set means a Qdrant server/cluster; unset means embedded Edge."""

    url: str | None = Field(None, examples=["http://localhost:6333"], description=(
        "Qdrant server or cluster URL (MNEMEX_STORE__URL). Unset: the embedded Qdrant Edge store in data_dir."))
    api_key: str | None = Field(None, examples=["..."], description="Qdrant API key (MNEMEX_STORE__API_KEY).")
    collection: str = Field("mnemex", pattern=r"^[A-Za-z0-9_-]{1,64}$", description="Collection (embedded: shard) name.")
    bm25_avg_len: float = Field(24.0, gt=0, description="Expected memory length in tokens, for BM25 length normalisation.")
    optimize_every: int = Field(500, ge=0, description=(
        "Writes between index optimizations, which the daemon runs only when idle (0 = never)."))
    detach_from: int | None = Field(None, ge=1, examples=[1000], description=(
        "Embedded store: memories from which an optimization runs on a copy in a child process instead of "
        "in the serving process (unset: 1,000)."))
    serve_copy_from: int | None = Field(None, ge=1, examples=[5000], description=(
        "Embedded store: memories written since the index was last optimized from which the daemon puts the "
        "optimized copy to use at once, through a successor process that takes the store over, instead of "
        "when it closes (unset: 5,000; unindexed memories slow every search)."))


class EmbeddingSettings(Frozen):
    """The dense embedding model (BM25 needs no model)."""

    model: str = Field(DEFAULT_MODEL, description=(
        "Any fastembed text model (MNEMEX_EMBEDDING__MODEL); the default ships offline (int8 ONNX, 384-d). A store "
        "remembers the model that embedded it; opening it with another model is an error."))
    model_path: Path | None = Field(None, examples=["/path/to/onnx-dir"],
                                    description="Directory with an ONNX model for `model`; default: bundled.")
    query_cache_size: int = Field(1024, ge=0, description="LRU entries of query embeddings.")
    threads: int | None = Field(None, ge=1, examples=[2], description="ONNX runtime threads; unset = the runtime's default.")


#: A Host header value the HTTP transports accept: a name, an IPv4 address or a [bracketed] IPv6
#: address, optionally with `:port` or `:*` (any port).
_HOST_ENTRY = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(:(\*|[0-9]{1,5}))?$")
_ORIGIN_ENTRY = re.compile(r"^https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(:(\*|[0-9]{1,5}))?$")


class ServerSettings(Frozen):
    """`mnemex serve` and the daemon. The network fields apply to `--transport http|sse` only."""

    transport: Literal["stdio", "http", "sse"] = Field("stdio", description="Transport of a direct `mnemex serve`.")
    host: str = Field("127.0.0.1",
                      description="Bind address of the HTTP transports (MNEMEX_SERVER__HOST). Anything but "
                                  "loopback requires the bearer token (`mnemex token show`).")
    port: int = Field(8765, ge=1, le=65535, description="TCP port of the HTTP transports.")
    daemon: bool = Field(True, description="stdio serve relays to a per-store daemon (MNEMEX_SERVER__DAEMON).")
    daemon_idle_seconds: float = Field(4 * 3600, ge=0, description=(
        "The daemon exits after this many seconds without a request (MNEMEX_SERVER__DAEMON_IDLE_SECONDS); the "
        "next client or command starts it again. 0 = never."))
    viewer_port: int = Field(0, ge=0, le=65535, description=(
        "Loopback TCP port of the memory viewer (`mnemex viewer`), which the daemon opens on first use "
        "(MNEMEX_SERVER__VIEWER_PORT); 0 = any free port, recorded in the run dir's viewer.json."))
    allowed_hosts: tuple[str, ...] = Field(
        (), description="Extra Host header values the HTTP transports accept: `name`, `name:port` or `name:*` "
                        "(MNEMEX_SERVER__ALLOWED_HOSTS, a JSON list). A bare name also allows it with any port.")
    allowed_origins: tuple[str, ...] = Field(
        (), description="Origin header values (browser pages) the HTTP transports accept, e.g. "
                        "`https://app.example:*` (MNEMEX_SERVER__ALLOWED_ORIGINS, a JSON list). Default: none "
                        "outside loopback.")
    max_request_bytes: int = Field(1024 * 1024, ge=1024, le=1024 ** 3,
                                   description="Largest HTTP request body accepted (MNEMEX_SERVER__MAX_REQUEST_BYTES); "
                                               "larger ones get 413.")
    rate_limit_per_minute: int = Field(600, ge=0, le=1_000_000,
                                       description="HTTP requests per minute per client address "
                                                   "(MNEMEX_SERVER__RATE_LIMIT_PER_MINUTE); over it: 429. 0 = no limit.")

    @field_validator("host")
    @classmethod
    def _check_host(cls, value: str) -> str:
        if not value or any(c.isspace() or c in "/[]" for c in value):
            raise ValueError(f"{value!r} is not an address or name to bind, e.g. 127.0.0.1, 0.0.0.0, ::1")
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _check_hosts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if not _HOST_ENTRY.match(entry):
                raise ValueError(f"{entry!r} is not a host name or address with an optional :port or :* "
                                 "(the Host check cannot be switched off: list the names clients use)")
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _check_origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if not _ORIGIN_ENTRY.match(entry):
                raise ValueError(f"{entry!r} is not an origin like https://host, https://host:8443 or "
                                 "http://host:* (scheme, host, optional port; no path)")
        return value


class LimitSettings(Frozen):
    """Limits on what one call may ask for or store."""

    max_content_chars: int = Field(MAX_CONTENT_CHARS, ge=100, le=200_000, description="Longest memory content, in characters.")
    max_results: int = Field(MAX_RESULTS, ge=1, le=500, description="Most results one search returns.")
    relations_per_memory: int = Field(50, ge=1, le=10_000, description="Relations kept per memory; the least valuable prunable ones go first (supersedes, contradicts and causes are never pruned).")
    min_free_disk_mb: int = Field(64, ge=0, description=(
        "Writes are refused (with a clear error, nothing lost) when the data dir's disk has less "
        "free space than this; the embedded store dies on a full disk instead of failing a write. 0 = no check."))


class AuditSettings(Frozen):
    """The journal's audit log."""

    level: Literal["off", "writes", "reads", "verbose"] = Field("writes", description=(
        "What the journal's audit log keeps: off; writes (every write op, with before/after); reads "
        "(also searches and recalls, with the ids returned); verbose (also what reads returned). "
        "Secrets in queries are redacted at every level."))


class Settings(BaseSettings):
    """All of mnemex's configuration. Frozen: derive a copy with `model_copy(update=...)`."""

    model_config = SettingsConfigDict(
        env_prefix="MNEMEX_",
        env_nested_delimiter="__",
        frozen=True,
        extra="forbid",
    )

    data_dir: Path = Field(default_factory=default_data_dir, description=(
        "Where the store, journal, word vocabulary, model cache and daemon files live (MNEMEX_DATA_DIR). "
        "Default: the platform's user data folder (Linux: ~/.local/share/mnemex)."))
    project: str | None = Field(None, description=(
        "Fixed project key for project-scoped memories. Default: the git root of the client's working "
        "directory, so memories never leak across projects."))
    store: StoreSettings = StoreSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    server: ServerSettings = ServerSettings()
    limits: LimitSettings = LimitSettings()
    audit: AuditSettings = AuditSettings()
    gate: GateConfig = GateConfig()
    observer: ObserverConfig = ObserverConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    lifecycle: LifecycleConfig = LifecycleConfig()
    redaction: RedactionConfig = RedactionConfig()
    blocks: BlocksConfig = BlocksConfig()
    capture: CaptureSettings = CaptureSettings()
    injection: InjectionSettings = InjectionSettings()

    @model_validator(mode="after")
    def _check(self) -> "Settings":
        if self.store.api_key and not self.store.url:
            raise ValueError("store.api_key is set but store.url is not")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = config_file_path()
        if path is not None and path.is_file():
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    @property
    def store_dir(self) -> Path:
        return self.data_dir / "store" / self.store.collection

    @property
    def journal_path(self) -> Path:
        return self.data_dir / f"{self.store.collection}.journal.sqlite3"

    @property
    def vocabulary_path(self) -> Path:
        return self.data_dir / f"{self.store.collection}.vocabulary.sqlite3"

    @property
    def run_dir(self) -> Path:
        return self.data_dir / "run"

    @property
    def http_token_path(self) -> Path:
        """The bearer token of the HTTP transports off loopback (file 0600 in a 0700 directory)."""
        return self.data_dir / "auth" / "http-token"


def load_settings(**overrides: Any) -> Settings:
    """Build the settings once per entry point; raise ConfigError naming the bad key."""
    explicit = os.environ.get("MNEMEX_CONFIG")
    if explicit and not Path(explicit).expanduser().is_file():
        raise ConfigError(f"MNEMEX_CONFIG: config file {explicit} does not exist")
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "config"
        raise ConfigError(f"invalid config {key}: {err['msg']}") from None
    except ValueError as exc:  # TOML syntax errors and similar
        raise ConfigError(f"invalid config: {exc}") from None
