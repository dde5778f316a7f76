"""The envs' battle seeds are numpy's ``integers(0, 2**62, size=2)``, drawn faster.

``envs.common.battle_seeds`` reads the generator's raw words instead of calling
``Generator.integers`` (whose argument handling costs eight times the draw); the seeds,
and so every env's battles, must stay the ones ``integers`` gives, draw after draw.
"""

from __future__ import annotations

from gymnasium.utils import seeding
from hypothesis import given, settings
from hypothesis import strategies as st

from escaramuza.envs.common import battle_seeds


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64), draws=st.integers(1, 12))
def test_battle_seeds_are_numpys_integers_draw_after_draw(seed: int, draws: int) -> None:
    ours, _ = seeding.np_random(seed)
    numpy, _ = seeding.np_random(seed)
    for _ in range(draws):
        want = tuple(int(x) for x in numpy.integers(0, 2**62, size=2))
        assert battle_seeds(ours) == want
