"""Dice notation, RandomRoller determinism and ScriptedRoller failing loudly (engine core)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from escaramuza.rules.core.dice import (
    STANDARD_DICE,
    DiceError,
    RandomRoller,
    ScriptedRoller,
    ScriptError,
    parse_dice,
    parse_die,
    roll_pool,
)
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import language


def brute_force(spec: list[tuple[int, int, int | None, int]], modifier: int) -> dict[int, float]:
    """Exact distribution by enumerating every face of every die (count, sides, keep, sign)."""
    dice = [
        (sides, i, keep, sign)
        for i, (count, sides, keep, sign) in enumerate(spec)
        for _ in range(count)
    ]
    counts: Counter[int] = Counter()
    total_outcomes = 0
    for faces in itertools.product(*[range(1, d[0] + 1) for d in dice]):
        total = modifier
        for term, (_count, _sides, keep, sign) in enumerate(spec):
            term_faces = [f for f, d in zip(faces, dice, strict=True) if d[1] == term]
            kept = sorted(term_faces, reverse=True)[:keep] if keep else term_faces
            total += sign * sum(kept)
        counts[total] += 1
        total_outcomes += 1
    return {k: v / total_outcomes for k, v in sorted(counts.items())}


# -- notation -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "terms", "modifier", "minimum", "maximum"),
    [
        ("d8", [(1, 8, None, 1)], 0, 1, 8),
        ("D8", [(1, 8, None, 1)], 0, 1, 8),
        ("1d6", [(1, 6, None, 1)], 0, 1, 6),
        ("2d10+3", [(2, 10, None, 1)], 3, 5, 23),
        (" 2d10 + 3 ", [(2, 10, None, 1)], 3, 5, 23),
        ("2d20kh1", [(2, 20, 1, 1)], 0, 1, 20),
        ("d6+d4-1", [(1, 6, None, 1), (1, 4, None, 1)], -1, 1, 9),
        ("d8-d4", [(1, 8, None, 1), (1, 4, None, -1)], 0, -3, 7),
        ("3d6kh2+1", [(3, 6, 2, 1)], 1, 3, 13),
        ("5", [], 5, 5, 5),
    ],
)
def test_dice_notation_parses(
    text: str,
    terms: list[tuple[int, int, int | None, int]],
    modifier: int,
    minimum: int,
    maximum: int,
) -> None:
    expr = parse_dice(text)
    assert [(t.count, t.sides, t.keep, t.sign) for t in expr.terms] == terms
    assert expr.modifier == modifier
    assert (expr.minimum, expr.maximum) == (minimum, maximum)
    assert str(expr) == text.strip()
    dist = expr.distribution()
    assert min(dist) == minimum and max(dist) == maximum


def test_dice_notation_integer_is_a_constant() -> None:
    expr = parse_dice(4)
    assert expr.terms == () and expr.modifier == 4
    assert expr.distribution() == {4: 1.0}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("d", "not dice notation"),
        ("x", "not dice notation"),
        ("d8+", "not dice notation"),
        ("d8 d6", r"missing '\+' or '-'"),
        ("d1", "2 to 20 faces"),
        ("d21", "2 to 20 faces"),
        ("0d6", "count must be 1 to 20"),
        ("21d6", "count must be 1 to 20"),
        ("2d6kh3", "keep 1 to 2"),
        ("2d6kh0", "keep 1 to 2"),
        (True, "not dice notation"),
    ],
)
def test_dice_notation_rejects(text: str | bool, reason: str) -> None:
    with pytest.raises(DiceError, match=reason):
        parse_dice(text)


#: (text, its refusal in Spanish), one for each reason parse_dice gives; written by hand
#: from the catalog.
SPANISH_REFUSALS: list[tuple[str | int, str]] = [
    ("", "expresión de dados vacía"),
    (True, "True no es notación de dados"),
    ("x", "'x' no es notación de dados (se esperaba p. ej. 'd8', '2d10+3')"),
    ("d8 d6", "'d8 d6' no es notación de dados (falta '+' o '-')"),
    ("d21", "'d21': un dado tiene de 2 a 20 caras"),
    ("21d6", "'21d6': el número de dados debe ser de 1 a 20"),
    ("2d6kh3", "'2d6kh3': se pueden conservar de 1 a 2 dados"),
    ("d6+1001", "'d6+1001': una constante debe ser de -1000 a 1000"),
    (1001, "1001: una constante debe ser de -1000 a 1000"),
    ("d6+" * 8 + "d6", f"{'d6+' * 8 + 'd6'!r}: como mucho 8 términos (dados y constantes)"),
    ("10d6+11d4", "'10d6+11d4': como mucho 20 dados entre todos los términos"),
    (
        "d6+500+501",
        "'d6+500+501': las constantes suman 1001; el modificador debe ser de -1000 a 1000",
    ),
    (
        "d6+" + "1" * 62,
        f"{'d6+' + '1' * 61 + '…'!r}: una expresión de dados tiene como mucho 64 caracteres, no 65",
    ),
]


@pytest.mark.parametrize(("text", "reason"), SPANISH_REFUSALS)
def test_dice_notation_is_refused_in_spanish(text: str | int, reason: str) -> None:
    with language("es"), pytest.raises(DiceError) as info:
        parse_dice(text)
    assert str(info.value) == reason


def test_a_single_die_is_asked_for_in_spanish() -> None:
    with language("es"), pytest.raises(DiceError) as info:
        parse_die("d7")
    assert str(info.value) == "'d7' no es un solo dado (uno de d2, d3, d4, d6, d8, d10, d12, d20)"


def test_dice_error_is_a_user_error() -> None:
    # The CLI turns every EscaramuzaError into "escaramuza: error: …" and exit 2.
    assert issubclass(DiceError, EscaramuzaError)
    assert issubclass(ScriptError, EscaramuzaError)


@pytest.mark.parametrize(
    ("text", "spec", "modifier"),
    [
        ("2d6+1", [(2, 6, None, 1)], 1),
        ("d6+d4-1", [(1, 6, None, 1), (1, 4, None, 1)], -1),
        ("2d20kh1", [(2, 20, 1, 1)], 0),
        ("3d6kh2", [(3, 6, 2, 1)], 0),
        ("d8-d4+2", [(1, 8, None, 1), (1, 4, None, -1)], 2),
        ("d12", [(1, 12, None, 1)], 0),
        ("4d6kh3", [(4, 6, 3, 1)], 0),
        ("d8-3d4kh2+1", [(1, 8, None, 1), (3, 4, 2, -1)], 1),
        ("2d6-3d4", [(2, 6, None, 1), (3, 4, None, -1)], 0),
    ],
)
def test_dice_distribution_matches_enumeration(
    text: str, spec: list[tuple[int, int, int | None, int]], modifier: int
) -> None:
    dist = parse_dice(text).distribution()
    expected = brute_force(spec, modifier)
    assert dist.keys() == expected.keys()
    for total, p in expected.items():
        assert dist[total] == pytest.approx(p, abs=1e-12)
    assert sum(dist.values()) == pytest.approx(1.0)
    assert parse_dice(text).mean() == pytest.approx(sum(k * p for k, p in expected.items()))


def test_dice_keep_highest_closed_form() -> None:
    # P(max of 2d20 = k) = (2k - 1) / 400.
    dist = parse_dice("2d20kh1").distribution()
    for k in range(1, 21):
        assert dist[k] == pytest.approx((2 * k - 1) / 400)


@pytest.mark.parametrize(
    ("text", "script", "total", "faces"),
    [
        ("d8", ["d8=7"], 7, (7,)),
        ("2d10+3", ["d10=4", "d10=9"], 16, (4, 9)),
        ("2d20kh1", ["d20=5", "d20=17"], 17, (5, 17)),
        ("3d6kh2", ["d6=6", "d6=1", "d6=4"], 10, (6, 1, 4)),
        ("d8-d4", ["d8=3", "d4=4"], -1, (3, 4)),
        ("d6+d4-1", ["d6=2", "d4=1"], 2, (2, 1)),
    ],
)
def test_dice_expression_rolls_scripted(
    text: str, script: list[str], total: int, faces: tuple[int, ...]
) -> None:
    roller = ScriptedRoller(script)
    assert parse_dice(text).roll(roller, "test") == (total, faces)
    roller.assert_exhausted()


@pytest.mark.parametrize(
    ("text", "sides"),
    [("d4", 4), ("d6", 6), ("d8", 8), ("D10", 10), ("d12", 12), ("d20", 20), (8, 8), (12, 12)],
)
def test_parse_die_accepts_single_standard_dice(text: str | int, sides: int) -> None:
    assert parse_die(text) == sides


@pytest.mark.parametrize("text", ["d7", "d100", "2d6", "d8+1", "d8+d4", "-d8", "eight", 7, 0, True])
def test_parse_die_rejects_anything_but_one_standard_die(text: str | int) -> None:
    with pytest.raises(DiceError, match="not a single die"):
        parse_die(text)


# -- RandomRoller -------------------------------------------------------------------


def test_random_roller_same_seed_same_dice() -> None:
    sides = [4, 6, 8, 10, 12, 20] * 50
    a, b = RandomRoller(42), RandomRoller(42)
    assert [a.roll(s) for s in sides] == [b.roll(s) for s in sides]


def test_random_roller_different_seeds_differ() -> None:
    a, b = RandomRoller(1), RandomRoller(2)
    assert [a.roll(20) for _ in range(50)] != [b.roll(20) for _ in range(50)]


def test_random_roller_is_independent_of_the_global_rng() -> None:
    import random

    a = RandomRoller(7)
    first = [a.roll(20) for _ in range(20)]
    random.seed(12345)
    random.random()
    b = RandomRoller(7)
    assert [b.roll(20) for _ in range(20)] == first


@pytest.mark.parametrize("sides", STANDARD_DICE)
def test_random_roller_covers_every_face_and_nothing_else(sides: int) -> None:
    roller = RandomRoller(3)
    seen = Counter(roller.roll(sides) for _ in range(sides * 60))
    assert set(seen) == set(range(1, sides + 1))


def test_random_roller_draws_what_randrange_draws() -> None:
    """The inlined draw is ``Random.randrange(sides) + 1`` die for die, so every seed
    names the same battle it named before (and the same one ``random`` would give)."""
    import random

    sides = [1, 2, 3, 5, 7, 100, *STANDARD_DICE] * 40
    for seed in range(25):
        roller, reference = RandomRoller(seed), random.Random(seed)
        assert [roller.roll(s) for s in sides] == [reference.randrange(s) + 1 for s in sides]


def test_random_roller_pool_is_rolls_in_a_row() -> None:
    """roll_pool's one-call path for RandomRoller gives the dice one roll at a time would."""
    for seed in range(10):
        pooled, single = RandomRoller(seed), RandomRoller(seed)
        for count, sides in [(0, 6), (1, 6), (5, 6), (9, 10), (3, 1), (4, 20)]:
            assert roll_pool(pooled, count, sides) == [single.roll(sides) for _ in range(count)]


@pytest.mark.parametrize("sides", [0, -3])
def test_random_roller_rejects_a_die_without_faces(sides: int) -> None:
    with pytest.raises(ValueError, match="at least one face"):
        RandomRoller(1).roll(sides)
    with pytest.raises(ValueError, match="at least one face"):
        RandomRoller(1).pool(2, sides)


def test_random_roller_state_replays() -> None:
    roller = RandomRoller(5)
    roller.roll(6)
    saved = roller.getstate()
    first = [roller.roll(8) for _ in range(10)]
    roller.setstate(saved)
    assert [roller.roll(8) for _ in range(10)] == first


# -- ScriptedRoller -------------------------------------------------------------------


def test_scripted_roller_plays_back_every_item_form() -> None:
    roller = ScriptedRoller([3, "d8=7", "D6:2", (20, 14)])
    assert [
        roller.roll(12, "a"),
        roller.roll(8, "b"),
        roller.roll(6, "c"),
        roller.roll(20, "d"),
    ] == [3, 7, 2, 14]
    assert roller.log == [(12, 3, "a"), (8, 7, "b"), (6, 2, "c"), (20, 14, "d")]
    assert roller.remaining == 0
    roller.assert_exhausted()


@pytest.mark.parametrize(
    ("script", "asks", "message"),
    [
        ([], [(8, "ataque de Brann")], "ran out: a d8 was asked for \\(ataque de Brann\\)"),
        (["d8=7"], [(8, "x"), (20, "destino")], "ran out: a d20 .*destino.* after 1 dice"),
        (["d8=7"], [(6, "defensa")], "#1 is a d8=7 but a d6 was asked for \\(defensa\\)"),
        ([9], [(8, "cuerpo")], "#1 shows 9, impossible on the d8"),
        (["d20=0"], [(20, "destino")], "shows 0, impossible"),
        ([5, "d4=2"], [(6, ""), (6, "")], "#2 is a d4=2 but a d6 .*unnamed roll"),
    ],
)
def test_scripted_roller_fails_loudly(
    script: list[int | str], asks: list[tuple[int, str]], message: str
) -> None:
    roller = ScriptedRoller(script)
    with pytest.raises(ScriptError, match=message):
        for sides, why in asks:
            roller.roll(sides, why)


def test_scripted_roller_failed_roll_does_not_consume() -> None:
    roller = ScriptedRoller(["d8=7"])
    with pytest.raises(ScriptError):
        roller.roll(6)
    assert roller.roll(8) == 7


def test_scripted_roller_reports_leftover_dice() -> None:
    roller = ScriptedRoller(["d8=7", "d20=14", 4])
    roller.roll(8)
    with pytest.raises(ScriptError, match="2 scripted dice were not used: d20=14, 4"):
        roller.assert_exhausted()


@pytest.mark.parametrize("item", ["x", "d8", "8=d8", "d8=seven", True, ""])
def test_scripted_roller_rejects_bad_items(item: str | bool) -> None:
    with pytest.raises(ScriptError):
        ScriptedRoller([item])  # type: ignore[list-item]


def test_one_leftover_scripted_die_is_one_die() -> None:
    roller = ScriptedRoller(["d8=7", 4])
    roller.roll(8)
    with pytest.raises(ScriptError, match="^1 scripted die was not used: 4$"):
        roller.assert_exhausted()
