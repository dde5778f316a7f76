"""The shared mechanics (``rules.core.mechanics``) compiled over a toy ruleset's layouts.

The expected values are read off the situations themselves (who stands on which side,
who is out), never from the compiled code.
"""

from __future__ import annotations

import pytest

from escaramuza.rules.core.dialect import ACTIVE, DEAD, DOWN, ENEMIES, FLED, HEAD, HEROES
from escaramuza.rules.core.layout import Columns
from escaramuza.rules.core.mechanics import compile_mechanics
from tests.core import toy_kernel as toy

pytestmark = pytest.mark.compile

OPT = Columns("OPT", list(HEAD["OPT"].items()))  # type: ignore[call-overload]
MECHANICS = compile_mechanics(__name__, ST=toy.ST, CS=toy.CS, G=toy.G, OPT=OPT)


@pytest.mark.parametrize(
    ("sides", "statuses", "who", "members", "out"),
    [
        ((HEROES, HEROES, ENEMIES), (ACTIVE, DOWN, ACTIVE), 0, 2, 1),
        ((HEROES, HEROES, ENEMIES), (ACTIVE, DOWN, ACTIVE), 2, 1, 0),
        ((ENEMIES, HEROES, ENEMIES, ENEMIES), (FLED, ACTIVE, DEAD, ACTIVE), 3, 3, 2),
        ((HEROES, ENEMIES), (DOWN, ACTIVE), 0, 1, 1),
    ],
)
def test_side_out_counts_the_side_and_its_combatants_out(
    sides: tuple[int, ...], statuses: tuple[int, ...], who: int, members: int, out: int
) -> None:
    stat = toy.ST.new(len(sides))
    cs = toy.CS.new(len(sides))
    stat[:, toy.ST.SIDE] = sides
    cs[:, toy.CS.STATUS] = statuses
    assert MECHANICS.side_out(stat, cs, who) == (members, out)
