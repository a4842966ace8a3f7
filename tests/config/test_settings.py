"""One settings tree: every tunable number reachable from the TOML file and MNEMEX_* variables,
documented once, and the documented file generated from it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from mnemex.config import Settings, load_settings
from mnemex.config.reference import render, section_doc
from mnemex.errors import ConfigError
from tests.helpers import REPO


def test_the_documented_config_file_is_generated_from_the_settings():
    assert (REPO / "configs" / "mnemex.toml").read_text() == render(), \
        "configs/mnemex.toml is stale: python -m mnemex.config.reference > configs/mnemex.toml"
    assert Settings(**tomllib.loads(render())) == Settings()  # every value in it is the default


def _leaves(model: type[BaseModel], prefix: str = ""):
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield prefix + name, field, kind
            yield from _leaves(kind, prefix + name + ".")
        else:
            yield prefix + name, field, None


def test_every_setting_is_documented():
    missing = [path for path, field, section in _leaves(Settings)
               if not (field.description or (section is not None and section_doc(section)))]
    assert missing == []


def test_the_environment_reaches_nested_settings(monkeypatch):
    monkeypatch.setenv("MNEMEX_GATE__REINFORCE_AT", "0.95")
    monkeypatch.setenv("MNEMEX_RETRIEVAL__WEIGHTS__ENTITY", "0.1")
    monkeypatch.setenv("MNEMEX_OBSERVER__WEIGHTS__AROUSAL", "0.4")
    monkeypatch.setenv("MNEMEX_REDACTION__MIN_ENTROPY", "3.8")
    monkeypatch.setenv("MNEMEX_LIMITS__RELATIONS_PER_MEMORY", "20")
    s = load_settings()
    assert (s.gate.reinforce_at, s.retrieval.weights.entity, s.observer.weights.arousal,
            s.redaction.min_entropy, s.limits.relations_per_memory) == (0.95, 0.1, 0.4, 3.8, 20)
    assert s.retrieval.weights.session == Settings().retrieval.weights.session  # the rest keeps its default


def test_the_config_file_reaches_nested_settings_and_bad_keys_are_named(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text("[gate]\nconflict_at = 0.7\n[retrieval.intent_profiles.temporal]\n"
                    "dense_weight = 0.3\nsparse_weight = 0.7\ncandidates = 80\n")
    monkeypatch.setenv("MNEMEX_CONFIG", str(path))
    s = load_settings()
    assert s.gate.conflict_at == 0.7 and s.retrieval.intent_profiles["temporal"].candidates == 80
    path.write_text("[gate]\nreinforce_at = 1.5\n")
    with pytest.raises(ConfigError, match="gate.reinforce_at"):
        load_settings()
    path.write_text("[observer]\nno_such_knob = 1\n")
    with pytest.raises(ConfigError, match="observer.no_such_knob"):
        load_settings()


def test_the_configured_gate_reaches_the_write_path(tmp_path, embedder):
    """A setting is not documentation only: `gate.reinforce_at` decides what the engine does."""
    from mnemex.engine.factory import build_engine
    from mnemex.models import NewMemory, WriteAction

    text, again = "The API gateway retries failed requests three times", "The API gateway retries failed requests 3 times"
    outcomes = {}
    for reinforce_at in (0.92, 0.999):
        # a restatement in other words also reinforces (issue 12): restate_at moves with reinforce_at here
        settings = Settings(data_dir=tmp_path / str(reinforce_at),
                            gate={"reinforce_at": reinforce_at, "restate_at": reinforce_at})
        engine = build_engine(settings, default_project="/p", embedder=embedder)
        try:
            engine.memorize(NewMemory(content=text))
            outcomes[reinforce_at] = engine.memorize(NewMemory(content=again)).action
        finally:
            engine.close()
    assert outcomes[0.92] == WriteAction.REINFORCED
    assert outcomes[0.999] != WriteAction.REINFORCED


@pytest.mark.parametrize("xdg", [None, "", "  ", "/srv/xdg"])
def test_default_dirs_are_platformdirs_own(monkeypatch, xdg):
    """The hook spells out the platform's user dirs (platformdirs is slow to import): the same paths."""
    import platformdirs

    from mnemex.config.defaults import default_config_file, default_data_dir

    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        if xdg is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, xdg)
    assert default_data_dir() == Path(platformdirs.user_data_dir("mnemex", appauthor=False))
    assert default_config_file() == Path(platformdirs.user_config_dir("mnemex", appauthor=False)) / "config.toml"


def test_the_lifecycle_preset_and_a_tier_table_of_your_own_load_from_file_and_environment(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text("[lifecycle]\nentry_tier = \"new\"\n[lifecycle.tiers.new]\nttl_days = 3\ndemote_to = \"old\"\n"
                    "[lifecycle.tiers.old]\nsearchable = false\npromote_to = \"new\"\n"
                    "[lifecycle.categories.fact]\ndecay_per_day = 0.01\nmin_retention_days = 2\n")
    monkeypatch.setenv("MNEMEX_CONFIG", str(path))
    s = load_settings()
    assert list(s.lifecycle.tier_table) == ["new", "old"] and s.lifecycle.entry == "new"
    assert not s.lifecycle.tier_table["old"].searchable and s.lifecycle.categories["fact"].min_retention_days == 2
    path.write_text("")
    monkeypatch.setenv("MNEMEX_LIFECYCLE__PRESET", "continuum")
    assert list(load_settings().lifecycle.tier_table) == ["fast", "medium", "slow", "glacial"]
    path.write_text("[lifecycle.tiers.new]\ndemote_to = \"nowhere\"\n")
    with pytest.raises(ConfigError, match="lifecycle"):
        load_settings()
