"""CA-16 … CA-18: destacamentos, the retreat through an exit and *(ext)* morale
("Destacamentos", "Retirada"); scripted dice (rules-notes.md, Cairn)."""

from __future__ import annotations

from typing import Any

import pytest

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.i18n import language
from escaramuza.rules.core.model import Action, Side, Status
from tests.rules.cairn.cairn_helpers import BOMB, attack, battle, fighter, play, wait

# -- CA-16 ------------------------------------------------------------------------


def test_ca16_destacamento_attack_is_enhanced_blast_on_individuals() -> None:
    state = battle(
        [
            fighter("h1", pi=12),
            fighter("h2", pi=12),
            fighter("h3", zone="b", pi=12),
            fighter("band", "enemies", destacamento=True, pi=8),
        ]
    )
    play(
        state, [wait("h1"), wait("h2"), wait("h3"), attack(state, "band", "h1")], ["d12=9", "d12=4"]
    )  # one d12 each for h1 and h2, none for h3 in another zone
    assert [state.get(h).resources["pi"] for h in ("h1", "h2", "h3")] == [3, 8, 12]


@pytest.mark.parametrize(
    ("pi", "fue", "face", "dice", "status"),
    [
        (0, 10, 4, ["d20=15"], Status.FLED),  # Daño Crítico routs it (default)
        (0, 10, 4, ["d20=3"], Status.ACTIVE),
        (0, 3, 4, [], Status.DEAD),  # FUE 0 destroys it
    ],
)
def test_ca16_destacamento_critical_routs_fue_zero_destroys(
    pi: int, fue: int, face: int, dice: list[str], status: Status
) -> None:
    state = battle(
        [fighter("h", impaired=True), fighter("band", "enemies", destacamento=True, pi=pi, fue=fue)]
    )
    play(state, [attack(state, "h", "band")], [f"d4={face}", *dice])
    assert state.get("band").status is status


def test_ca16_blast_against_destacamento_is_not_impaired() -> None:
    state = battle(
        [
            fighter("h", weapons=[BOMB]),
            fighter("band", "enemies", zone="b", destacamento=True, pi=12),
        ]
    )
    play(state, [attack(state, "h", "band", "bomba")], ["d6=6"])
    assert state.get("band").resources["pi"] == 6


def test_ca16_a_destacamento_cannot_be_a_pc() -> None:
    with pytest.raises(ScenarioError, match="destacamento"):
        battle([fighter("h", destacamento=True), fighter("e", "enemies")])


# -- CA-17 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "face", "status", "zone_after"),
    [
        ("a", 8, Status.FLED, "out"),
        ("a", 11, Status.ACTIVE, "out"),
        ("out", 10, Status.FLED, "out"),
    ],
)
def test_ca17_retreat_des_save_through_exit(
    zone: str, face: int, status: Status, zone_after: str
) -> None:
    state = battle([fighter("h", zone=zone), fighter("e", "enemies", zone="d")])
    play(state, [Action("huir", "h")], [f"d20={face}"])
    h = state.get("h")
    assert (h.status, h.zone) == (status, zone_after)


def test_ca17_the_retreat_save_is_narrated_in_the_battles_language() -> None:
    # "Huir … siempre requiere una tirada de salvación de Destreza exitosa": the save's line
    # names why it is rolled in Spanish, as the first-round and morale saves do.
    with language("es"):
        state = battle([fighter("h"), fighter("e", "enemies", zone="d")])
        events = play(state, [Action("huir", "h")], ["d20=5"])
    (line,) = [e.text for e in events if "d20 = 5" in e.text]
    assert "(retirada)" in line and "retreat" not in line, line


def test_ca17_no_retreat_far_from_an_exit() -> None:
    state = battle([fighter("h", zone="c"), fighter("e", "enemies", zone="d")])
    assert "huir" not in {a.verb for a in state.ruleset.legal_actions(state)}


def test_ca17_all_fled_loses_the_battle() -> None:
    state = battle([fighter("h"), fighter("e", "enemies", zone="d")])
    play(state, [Action("huir", "h")], ["d20=1"])
    assert state.outcome is not None and state.outcome.winner is Side.ENEMIES


# -- CA-18 ------------------------------------------------------------------------


def _group() -> list[dict[str, Any]]:
    return [
        fighter("h", weapons=[{"name": "espada", "damage": "d12"}]),
        fighter("e1", "enemies", pi=0, fue=2),
        fighter("e2", "enemies", vol=8),
        fighter("e3", "enemies", vol=8),
        fighter("e4", "enemies", vol=8),
    ]


def test_ca18_morale_off_by_default() -> None:
    state = battle(_group())
    play(state, [attack(state, "h", "e1")], ["d12=5"])  # kills e1; no VOL save asked
    assert state.get("e1").status is Status.DEAD
    assert all(state.get(e).active for e in ("e2", "e3", "e4"))


def test_ca18_first_casualty_then_half_strength_vol_saves() -> None:
    state = battle(_group(), options={"morale": True})
    # e1 dies: first casualty, e2 e3 e4 save VOL 8 (8, 9, 3: e3 flees); then 2 of 4 are
    # left, half strength, and e2 e4 save again (2, 10: e4 flees).
    play(state, [attack(state, "h", "e1")], ["d12=5", "d20=8", "d20=9", "d20=3", "d20=2", "d20=10"])
    statuses = [state.get(e).status for e in ("e2", "e3", "e4")]
    assert statuses == [Status.ACTIVE, Status.FLED, Status.FLED]


def test_ca18_half_strength_save_follows_first_casualty() -> None:
    state = battle(_group()[:3], options={"morale": True})
    # e1 dies (first casualty, e2 saves 8 ≤ 8); 1 of 2 left = half strength: e2 saves again.
    play(state, [attack(state, "h", "e1")], ["d12=5", "d20=8", "d20=12"])
    assert state.get("e2").status is Status.FLED
    assert state.outcome is not None and state.outcome.winner is Side.HEROES


def test_ca18_lone_foe_saves_at_zero_pi() -> None:
    state = battle(
        [
            fighter("h", weapons=[{"name": "espada", "damage": "d8"}]),
            fighter("boss", "enemies", pi=5, vol=11),
        ],
        options={"morale": True},
    )
    play(state, [attack(state, "h", "boss")], ["d8=5", "d20=14"])
    assert state.get("boss").status is Status.FLED
