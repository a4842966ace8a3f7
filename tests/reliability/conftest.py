"""Hypothesis profiles for the fuzzing tests: `ci` (the default) is derandomized, so a run is
reproducible and CI cannot go red by chance; `explore` draws new examples on every run
(`HYPOTHESIS_PROFILE=explore pytest tests/reliability`) to look further."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
