"""One stat-block vocabulary: retired keys say what they are now.

Each case takes a shipped scenario, writes one retired key (or value) back into it and
expects, from ``play`` and from ``validate``, exit 2 and "`old` is now `new`" at the
line where the retired key is written — the line found here by searching the text, not
by the loader's own line lookup.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from escaramuza.cli import main
from escaramuza.rules.core.scenario import shipped_scenarios

ROOT = Path(__file__).resolve().parents[2] / "scenarios"


def _broken(tmp_path: Path, shipped: str, old: str, new: str) -> tuple[Path, int]:
    """The shipped scenario with the first ``old`` line text replaced by ``new``; the
    1-based line of the replacement."""
    text = (ROOT / f"{shipped}.yaml").read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {shipped}"
    line = text[: text.index(old)].count("\n") + 1
    path = tmp_path / "viejo.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path, line


# (shipped scenario, text in it, the same with a retired key/value, field, message)
RETIRED = [
    (
        "destiny_dice/emboscada",
        "    shield: 1",
        "    escudo: 1",
        "combatants[0].escudo",
        "`escudo` is now `shield`",
    ),
    (
        "destiny_dice/emboscada",
        "    energy: {pa: 4}",
        "    energia: {pa: 4}",
        "combatants[2].energia",
        "`energia` is now `energy`",
    ),
    (
        "destiny_dice/brann-vs-saqueador",
        "    armour: 1",
        "    armadura: 1",
        "combatants[1].armadura",
        "`armadura` is now `armour`",
    ),
    (
        "destiny_dice/kaspar-tiroteo",
        "kind: distancia",
        "kind: ranged",
        "combatants[0].weapons[0].kind",
        "`ranged` is now `distancia`",
    ),
    (
        "donjon/duelo",
        "    weapons:",
        "    armas:",
        "combatants[0].armas",
        "`armas` is now `weapons`",
    ),
    (
        "donjon/duelo",
        "    level: 2",
        "    nivel: 2",
        "combatants[0].nivel",
        "`nivel` is now `level`",
    ),
    (
        "donjon/duelo",
        "{name: espada,",
        "{nombre: espada,",
        "combatants[0].weapons[0].nombre",
        "`nombre` is now `name`",
    ),
    (
        "donjon/duelo",
        "    skills: {ataque: 2, dano: 1}",
        "    habilidades: {ataque: 2, dano: 1}",
        "combatants[1].habilidades",
        "`habilidades` is now `skills`",
    ),
    (
        "cairn/duelo_bugbear",
        "kind: distancia",
        "ranged: true",
        "combatants[0].weapons[1].ranged",
        "`ranged` is now `kind: distancia`",
    ),
    (
        "cairn/duelo_bugbear",
        "armour: 2",
        "armadura: 2",
        "combatants[0].armadura",
        "`armadura` is now `armour`",
    ),
    (
        "sistema_2d10/duelo",
        "    actions: 3",
        "    acciones: 3",
        "combatants[0].acciones",
        "`acciones` is now `actions`",
    ),
    (
        "sistema_2d10/duelo",
        "    attributes: {reflejos: 35",
        "    caracteristicas: {reflejos: 35",
        "combatants[0].caracteristicas",
        "`caracteristicas` is now `attributes`",
    ),
    (
        "sistema_2d10/duelo",
        "skill: espada, attribute: destreza",
        "skill: espada, caracteristica: destreza",
        "combatants[0].weapons[0].caracteristica",
        "`caracteristica` is now `attribute`",
    ),
    # A habit from another ruleset: Donjon's `armas` in a Destiny Dice file.
    (
        "destiny_dice/brann-vs-saqueador",
        "    weapons:\n      - {name: espada corta",
        "    armas:\n      - {name: espada corta",
        "combatants[0].armas",
        "`armas` is now `weapons`",
    ),
]


@pytest.mark.parametrize(
    ("shipped", "old", "new", "field", "message"), RETIRED, ids=[f"{r[0]}:{r[3]}" for r in RETIRED]
)
def test_a_retired_key_says_what_it_is_now_via_play(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shipped: str,
    old: str,
    new: str,
    field: str,
    message: str,
) -> None:
    path, line = _broken(tmp_path, shipped, old, new)
    assert main(["play", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    # Only the retired key is wrong, so it is the one problem reported, with its line.
    assert err == f"escaramuza: error: {path}: {field}: {message} (line {line})\n"


@pytest.mark.parametrize(
    ("shipped", "old", "new", "field", "message"), RETIRED, ids=[f"{r[0]}:{r[3]}" for r in RETIRED]
)
def test_a_retired_key_says_what_it_is_now_via_validate(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shipped: str,
    old: str,
    new: str,
    field: str,
    message: str,
) -> None:
    path, line = _broken(tmp_path, shipped, old, new)
    assert main(["validate", str(path)]) == 2
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"{path}:{line}: {field}: {message}",
        "1 problem(s) in 1 of 1 file(s)",
    ]


def test_a_retired_key_whose_successor_the_ruleset_lacks_is_just_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Destiny Dice has no `level`: Donjon's `nivel` there is an unknown field, nothing more.
    path, line = _broken(
        tmp_path, "destiny_dice/brann-vs-saqueador", "    pv: 16", "    pv: 16\n    nivel: 2"
    )
    assert main(["play", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err == (
        f"escaramuza: error: {path}: combatants[0].nivel: unknown field (line {line + 1})\n"
    )


@pytest.mark.parametrize(
    ("shipped", "old", "new", "field", "meant"),
    [
        (
            "destiny_dice/brann-vs-saqueador",
            "    weapons:\n      - {name: espada corta",
            "    wepons:\n      - {name: espada corta",
            "combatants[0].wepons",
            "weapons",
        ),
        ("donjon/duelo", "    armour: 1", "    armuor: 1", "combatants[0].armuor", "armour"),
        (
            "cairn/duelo_bugbear",
            "kind: distancia",
            "knd: distancia",
            "combatants[0].weapons[1].knd",
            "kind",
        ),
        (
            "sistema_2d10/duelo",
            "    extra_actions: 1",
            "    extra_action: 1",
            "combatants[1].extra_action",
            "extra_actions",
        ),
    ],
    ids=["destiny_dice", "donjon", "cairn", "sistema_2d10"],
)
def test_a_typo_of_a_new_key_gets_did_you_mean_from_play_and_validate(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shipped: str,
    old: str,
    new: str,
    field: str,
    meant: str,
) -> None:
    path, line = _broken(tmp_path, shipped, old, new)
    assert main(["play", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err == (
        f"escaramuza: error: {path}: {field}: unknown field, "
        f"did you mean {meant!r}? (line {line})\n"
    )
    assert main(["validate", str(path)]) == 2
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == f"{path}:{line}: {field}: unknown field (did you mean {meant!r}?)"


def test_every_problem_of_a_file_of_old_keys_is_listed_in_the_file_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "donjon/duelo.yaml").read_text(encoding="utf-8")
    old = re.sub(r"(?m)^    weapons:", "    armas:", text).replace("    armour:", "    armadura:")
    path = tmp_path / "viejo.yaml"
    path.write_text(old, encoding="utf-8")
    lines = [
        i + 1
        for i, row in enumerate(old.splitlines())
        if row.startswith(("    armas:", "    armadura:"))
    ]
    assert main(["validate", str(path)]) == 2
    out, _ = capsys.readouterr()
    got = [int(row.split(":")[1]) for row in out.splitlines()[:-1]]
    assert got == lines and len(lines) == 4
    assert all(" is now `" in row for row in out.splitlines()[:-1])


def test_every_shipped_scenario_validates(capsys: pytest.CaptureFixture[str]) -> None:
    files = list(shipped_scenarios().values())
    assert main(["validate", "-q", *files]) == 0
    assert capsys.readouterr().out == ""
