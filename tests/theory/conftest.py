"""Shared settings for the theory tests: hypothesis profile without deadlines (the
numpy-vectorised formulas are fast but the first call may import scipy)."""

from hypothesis import settings

settings.register_profile("theory", deadline=None, max_examples=200)
settings.load_profile("theory")
