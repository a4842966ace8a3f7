"""The observation as a whole: deterministic, frozen, safe on empty and hostile input, seeded defaults."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from mnemex.config.observer import DEFAULT_OBSERVER
from mnemex.engine.write.observe import observe
from mnemex.engine.write.observe.shape import ObserveFlag
from mnemex.models import MemoryKind as K

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=timezone.utc)  # a Wednesday


def test_observation_is_deterministic_and_frozen():
    text = "Actually we moved the queue to RabbitMQ; I will update the docs tomorrow."
    first, second = observe(text, now=NOW), observe(text, now=NOW)
    assert first == second
    with pytest.raises(AttributeError):
        first.kind = K.FACT  # type: ignore[misc]


def test_empty_text():
    obs = observe("   ")
    assert obs.kind == K.FACT and obs.has(ObserveFlag.TOO_SHORT) and obs.density == 0.0 and obs.entities == ()
    assert [a.text for a in obs.atoms] == [""]


@pytest.mark.parametrize("text", ["a" * 20_000, "a." * 10_000, "a/" * 10_000, "-" * 20_000, "`" * 20_000,
                                  "x and " * 3_000, "<a>" * 6_000])
def test_adversarial_input_stays_linear(text):
    import time

    start = time.perf_counter()
    observe(text)
    assert time.perf_counter() - start < 1.5


def test_defaults_are_the_design_notes_numbers():
    c = DEFAULT_OBSERVER
    assert (c.min_chars, c.max_chars, c.code_heavy_ratio, c.markdown_heavy_lines, c.emoji_heavy_count) == (10, 5000, 0.5, 5, 3)
    assert (c.weights.novelty, c.weights.arousal, c.weights.reward, c.weights.attention) == (0.25, 0.30, 0.25, 0.20)
    assert (c.kind_base.correction, c.kind_base.preference, c.kind_base.decision, c.kind_base.entity,
            c.kind_base.fact) == (0.40, 0.30, 0.35, 0.30, 0.25)
    assert (c.max_entities, c.plan_default_days) == (8, 7)
    assert all(0.7 <= c.kind_boost.of(k) <= 1.3 for k in (K.CORRECTION, K.FACT, K.PLAN)) and c.noise_boost == 0.7
