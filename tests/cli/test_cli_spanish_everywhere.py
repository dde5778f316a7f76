"""One language everywhere: what every command shows under ``--lang es`` holds no English
left outside the catalog.

The scan's vocabulary comes from the catalog itself: a word is *English only* when some
English msgid uses it and no Spanish translation does (``the``, ``engine``, ``heroes``,
``cautious``…). A Spanish output that holds one printed a string the catalog does not
translate — a forgotten ``_()``, an engine value shown raw, a help text left in English.
Action ids (``[ilse: atacar a arquero1 con arco largo]``, the syntax ``apply`` reads),
``code`` spans and option names are the same in both languages and are not read.
"""

from __future__ import annotations

import io
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from escaramuza.cli import COMMAND_HELP, main
from escaramuza.gm import HELP, GMSession, run_session
from escaramuza.rules.core.i18n import DOMAIN, language, locale_dir

PO = locale_dir() / "es" / "LC_MESSAGES" / f"{DOMAIN}.po"

#: Names the same in both languages: the rulesets, the program, formats, agent specs.
SAME_IN_BOTH = {
    "destiny",
    "dice",
    "donjon",
    "cairn",
    "escaramuza",
    "json",
    "yaml",
    "heuristic",
    "mcts",
}

#: A ruleset each: its shipped battle with twins, moves and ranged attacks.
SCENARIOS = ("destiny_dice/emboscada", "donjon/duelo", "cairn/duelo_bugbear", "sistema_2d10/duelo")

_SKIP = re.compile(r"\{[^}]*\}|`[^`]*`|\[[^\]]*\]|--?[a-z][a-z0-9-]*|\S*[/_.:]\w\S*")


def _words(text: str) -> set[str]:
    """The lower-case words of ``text`` outside the skipped spans; words written all in
    capitals are metavars (``SEED``, ``FILE``), syntax like the options."""
    words = re.findall(r"[A-Za-z]{3,}", _SKIP.sub(" ", text))
    return {w.lower() for w in words if not w.isupper()}


def without_usage(text: str) -> str:
    """``--help`` output without its usage block and the command names that head the
    lines of the command list (syntax, the same in both languages)."""
    text = re.sub(r"^(?:uso|usage): .*?(?:\n\n|\Z)", "", text, flags=re.S | re.M)
    return re.sub(r"^ {2,}[a-z]+(?= {2,}|$)", "", text, flags=re.M)


@cache
def english_only() -> frozenset[str]:
    """Words some English msgid uses and no Spanish translation does."""
    with PO.open("rb") as fp:
        messages = [m for m in read_po(fp) if m.id]
    english: set[str] = set()
    spanish: set[str] = set()
    for m in messages:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for text in ids:
            english |= _words(text)
        for text in strings:
            spanish |= _words(text)
    return frozenset(english - spanish - SAME_IN_BOTH)


def leaks(text: str) -> list[tuple[str, str]]:
    """(word, line) for every English-only word of ``text``."""
    vocabulary = english_only()
    return [
        (word, line.strip())
        for line in text.splitlines()
        for word in sorted(_words(line) & vocabulary)
    ]


def test_the_vocabulary_holds_the_words_it_must_catch() -> None:
    # Written by hand: words an untranslated line would show, and Spanish it must not flag.
    vocabulary = english_only()
    assert {"the", "engine", "heroes", "cautious", "rollouts"} <= vocabulary
    assert not {"héroes", "motor", "asalto", "ataca", "vado"} & vocabulary
    assert leaks("Asalto 1 — Ilse (héroes, turno); (motor de referencia)") == []
    line = "Asalto 1 — Ilse (heroes, turno); (motor de referencia)"
    assert leaks(line) == [("heroes", line)]
    assert leaks("temperamento cautious") == [("cautious", "temperamento cautious")]


def session_output(scenario: str, lines: list[str], tmp_path: Path) -> tuple[GMSession, str]:
    out = io.StringIO()
    with language("es"):
        session = run_session(
            scenario,
            io.StringIO("\n".join(lines) + "\n"),
            out,
            False,
            seed=1,
            engine="reference",
            iterations=8,
        )
    return session, out.getvalue()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_gm_session_in_spanish_has_no_english(scenario: str, tmp_path: Path) -> None:
    """Every command of the session: help (and each command's), show, map, actions, the
    edits and their undo, suggest's table, apply, the autopilot (on, its decisions, undo,
    off, a bad agent), the round plan, the log and save."""
    probe, _ = session_output(scenario, [], tmp_path)
    state = probe.state
    assert state.pending is not None
    actor = state.by_id[state.pending.actor]
    other = next(c for c in state.combatants if c.id != actor.id)
    pool = next(iter(other.resources))
    neighbour = state.battlefield.neighbours(other.zone)[0]
    condition = next(iter(state.ruleset.conditions), None)
    edits = [
        f"set {other.id} {pool} 1",
        f"status {other.id} down",
        f"move {other.id} {neighbour}",
    ]
    if condition is not None:
        edits += [f"cond add {other.id} {condition}", f"cond remove {other.id} {condition}"]
    commands = [
        "help",
        *(f"help {name}" for name in HELP),
        "show",
        "map",
        "actions",
        *edits,
        "show",
        *["undo"] * len(edits),
        "suggest 60",
        "apply 1",
        "auto",
        "show",
        "apply 1",
        "apply 1",
        "plan 2",
        "undo 2",
        "auto off",
        "auto nadie",
        "undo 9",
        "log",
        f"save {tmp_path / 'battle.json'}",
        "nonsense",
        "set nadie pv 3",
        "quit",
    ]
    _, out = session_output(scenario, commands, tmp_path)
    assert "VICTORIA" in out and "deshecho:" in out  # the commands ran, in Spanish
    assert "piloto automático (mcts)" in out and "el plan de los enemigos" in out
    assert leaks(out) == []


def test_a_gm_die_the_table_gives_wrong_is_refused_in_spanish(tmp_path: Path) -> None:
    """``apply N dice …`` with a die that is not a number nor ``dN=V`` was refused half in
    English ("dados no válidos: scripted die 'x' is not 'dN=V', (N, V) or an integer")."""
    _, out = session_output(
        "donjon/duelo", ["apply 1 dice x", "apply 1 dice d6=", "quit"], tmp_path
    )
    assert "error: dados no válidos: el dado indicado 'x' no es 'dN=V'" in out
    assert "error: dados no válidos: el dado indicado 'd6=' no es 'dN=V'" in out
    assert leaks(out) == []


def test_the_table_dice_that_do_not_fit_the_roll_are_refused_in_spanish(tmp_path: Path) -> None:
    """Too few dice, a die of another size, a value the die cannot show: the scripted
    roller's refusals were English under --lang es ("scripted dice ran out: …")."""
    lines = ["initiative dice 5", "initiative dice d4=1 d4=1", "initiative dice 0 0", "quit"]
    _, out = session_output("donjon/duelo", lines, tmp_path)
    assert "error: se acabaron los dados indicados: se pidió un d20" in out
    assert "error: el dado indicado n.º 1 es un d4=1, pero se pidió un d20" in out
    assert "error: el dado indicado n.º 1 muestra 0, imposible en el d20 pedido" in out
    assert leaks(out) == []
    # A roll the rules name with a marked label is named in the current language.
    _, out = session_output(
        "destiny_dice/brann-vs-saqueador", ["initiative dice 0", "quit"], tmp_path
    )
    assert "pedido (iniciativa (Mente)); no ha cambiado nada" in out
    assert leaks(out) == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_play_and_suggest_in_spanish_have_no_english(
    capsys: pytest.CaptureFixture[str], scenario: str
) -> None:
    assert main(["play", scenario, "--seed", "1", "--lang", "es"]) == 0
    assert main(["suggest", scenario, "--iterations", "60", "--lang", "es"]) == 0
    plan = ["--plan", "--samples", "2", "--playouts", "10", "--iterations", "8"]
    assert main(["suggest", scenario, *plan, "--lang", "es"]) == 0
    out, err = capsys.readouterr()
    assert "VICTORIA" in out
    assert leaks(out + err) == []


@pytest.mark.parametrize("command", sorted(COMMAND_HELP))
def test_every_commands_help_in_spanish_has_no_english(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert main(["--lang", "es", command, "--help"]) == 0
    out, _err = capsys.readouterr()
    assert out.startswith("uso: ")
    assert leaks(without_usage(out)) == []


def test_the_top_level_help_in_spanish_has_no_english(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "es", "--help"]) == 0
    out, _err = capsys.readouterr()
    assert out.startswith("uso: ")
    assert leaks(without_usage(out)) == []


def test_a_loader_error_in_spanish_has_no_english(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = (
        Path(__file__).resolve().parents[2] / "scenarios" / "donjon" / "duelo.yaml"
    ).read_text(encoding="utf-8")
    bad = tmp_path / "malo.yaml"
    bad.write_text(source + "\nsobra: 1\n", encoding="utf-8")
    assert main(["play", str(bad), "--lang", "es"]) == 2
    _out, err = capsys.readouterr()
    assert "malo.yaml" in err and "sobra" in err
    assert leaks(err.removeprefix("escaramuza: error: ")) == []


#: Maps the loader refuses as a whole (the battlefield is built from its zones and links),
#: as edits of donjon/duelo, and the start of the Spanish reason each gets.
BAD_MAPS = [
    ("    - [pozo, puerta_este]\n", "    - [pozo, pozo]\n", "la conexión 'pozo'–'pozo' une"),
    ("    - [pozo, puerta_este]\n", "    - [pozo, nada]\n", "la conexión 'pozo'–'nada' nombra"),
    ("  links:\n", "    - {id: pozo}\n  links:\n", "la zona 'pozo' está definida dos veces"),
    (
        "    - [pozo, puerta_este]\n",
        "",
        "el mapa está desconectado: pozo, puerta_oeste | puerta_este",
    ),
]


@pytest.mark.parametrize(("old", "new", "reason"), BAD_MAPS)
def test_a_map_the_loader_refuses_is_refused_in_spanish(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old: str, new: str, reason: str
) -> None:
    """A duplicate zone, a link to itself or to an unknown zone, a map in pieces: the
    battlefield's refusals were English under --lang es."""
    source = (
        Path(__file__).resolve().parents[2] / "scenarios" / "donjon" / "duelo.yaml"
    ).read_text(encoding="utf-8")
    assert old in source
    bad = tmp_path / "mapa.yaml"
    bad.write_text(source.replace(old, new, 1), encoding="utf-8")
    assert main(["play", str(bad), "--lang", "es"]) == 2
    _out, err = capsys.readouterr()
    prefix = f"escaramuza: error: {bad}: battlefield: "  # the field: a key of the file
    assert err.startswith(prefix + reason), err
    assert leaks(err.removeprefix(prefix)) == []


def test_the_web_page_in_spanish_has_no_english() -> None:
    from fastapi.testclient import TestClient

    from escaramuza.web.app import create_app

    with TestClient(create_app()) as c:
        c.post("/ui/lang", data={"lang": "es"})
        c.post("/ui/new", data={"scenario": "destiny_dice/emboscada", "seed": "1"})
        version = re.search(r'name="version" value="(\d+)"', c.get("/").text)
        assert version is not None
        # The autopilot on, an action whose stretch it plays, then a search on the result.
        c.post("/ui/auto", data={"version": version[1], "enabled": "on", "budget_ms": "100"})
        c.post("/ui/apply", data={"version": version[1], "pick": "1"})
        c.post("/ui/suggest", data={"budget_ms": "200", "max_ms": "200"})
        c.post("/ui/edit", data={"command": "cond add brann envenenado 2"})
        c.post("/ui/undo", data={})
        page = c.get("/").text
    # The page's text: markup, the script and the style sheet are not read.
    text = re.sub(r"<script.*?</script>|<style.*?</style>|<[^>]+>", " ", page, flags=re.S)
    assert "VICTORIA" in text.upper() or "victoria" in text
    assert leaks(text) == []


#: Bad input of the commands and the start of the Spanish reason each gets; ``{tmp}`` is a
#: fresh folder. A list of known names is syntax (``tactician``, ``escaramuza/Donjon-v0``)
#: and is not read.
REFUSALS = [
    (["play", "donjon/duelo", "--heroes", "nadie"], "agente desconocido 'nadie'"),
    (["playtest", "donjon/duelo", "-n", "2", "--enemies", "nadie"], "agente desconocido"),
    (["warmup", "nadie"], "reglamento desconocido 'nadie'"),
    (["schema", "--ruleset", "nadie", "scenario"], "reglamento desconocido 'nadie'"),
    (
        ["play", "donjon/duelo", "--heroes", "mcts:100it:zz=3"],
        "presupuesto MCTS no válido 'mcts:100it:zz=3' (opción desconocida 'zz'): usa mcts",
    ),
    (["warmup", "--jobs", "0"], "--jobs debe ser un número positivo de procesos, no 0"),
    (
        ["train", "--out", "{tmp}/run", "--env", "escaramuza/Nadie-v0"],
        "--env: entorno desconocido 'escaramuza/Nadie-v0'",
    ),
    (
        ["train", "--out", "{tmp}/run", "--env", "escaramuza/Donjon-v0", "--timesteps", "64"]
        + ["--distill-rounds", "1", "--distill-planner", "random"],
        "--distill-planner 'random': no es un planificador mcts",
    ),
]


@pytest.mark.parametrize(("argv", "reason"), REFUSALS, ids=[" ".join(r[0]) for r in REFUSALS])
def test_a_commands_refusal_in_spanish_has_no_english(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], reason: str
) -> None:
    assert main(["--lang", "es", *(a.replace("{tmp}", str(tmp_path)) for a in argv)]) == 2
    _out, err = capsys.readouterr()
    message = err.removeprefix("escaramuza: error: ")
    assert message.startswith(reason), err
    assert leaks(re.sub(r"\(conocidos: [^)]*\)", "", message)) == []


def test_plays_saved_state_line_in_spanish_has_no_english(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "fin.json"
    assert (
        main(["play", "donjon/duelo", "--seed", "1", "--save-state", str(path), "--lang", "es"])
        == 0
    )
    _out, err = capsys.readouterr()
    assert err == f"estado guardado en {path}\n"
    assert leaks(err) == []


def test_the_apis_refusals_of_a_request_in_spanish_have_no_english() -> None:
    """pydantic's English ("Field required", "Value error, …") never reaches the user:
    each reason is the loader's, in the request's language."""
    from fastapi.testclient import TestClient

    from escaramuza.web.app import create_app

    bodies: list[object] = [
        {"seed": 3},
        {"scenario": "donjon/duelo", "seed": False},
        {"scenario": "donjon/duelo", "seed": -1},
        {"scenario": 5},
        [1, 2],
    ]
    with TestClient(create_app()) as c:
        details = [c.post("/api/battle?lang=es", json=body).json()["detail"] for body in bodies]
        broken = c.post(
            "/api/battle?lang=es", content=b"{", headers={"content-type": "application/json"}
        )
        details.append(broken.json()["detail"])
    assert details[:2] == [
        "scenario: falta este campo obligatorio",
        "seed: se esperaba un número, no false",
    ]
    assert details[-1].startswith("petición: JSON no válido: ")
    # The field names are the body's keys; the JSON parser's words after "JSON no
    # válido:" are the library's.
    reasons = [detail.split(": ", 1)[1] for detail in details[:-1]]
    assert leaks("\n".join(reasons)) == []


def test_a_state_files_bookkeeping_error_in_spanish_has_no_english(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A ruleset's bookkeeping (``data``) checked by its pydantic schema: an unknown key
    and a value of the wrong type are refused with the loader's Spanish reasons; so is a
    condition's value past the rulesets' shared bound, and an unknown combatant."""
    import json

    def saved(scenario: str) -> dict[str, Any]:
        path = tmp_path / "partida.json"
        argv = ["play", scenario, "--seed", "1", "--stop-after", "2", "--save-state"]
        assert main([*argv, str(path), "--lang", "es"]) == 0
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return doc

    extra = saved("donjon/duelo")
    extra["combatants"][0]["data"]["sobra"] = 1
    wrong = saved("donjon/duelo")
    wrong["data"]["count"] = "catorce"
    poisoned = saved("destiny_dice/emboscada")
    poisoned["combatants"][0]["conditions"] = [{"name": "envenenado", "value": 5000}]
    stranger = saved("cairn/duelo_bugbear")
    stranger["data"]["queue"] = ["nadie"]
    reasons = {}
    edits = (("sobra", extra), ("tipo", wrong), ("cota", poisoned), ("nadie", stranger))
    for name, edited in edits:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(edited), encoding="utf-8")
        capsys.readouterr()
        assert main(["validate", str(path), "--lang", "es"]) == 2
        reasons[name] = capsys.readouterr().out.splitlines()[0]
    assert reasons == {
        "sobra": f"{tmp_path / 'sobra.json'}:1: combatants[0].data.sobra: campo desconocido",
        "tipo": f"{tmp_path / 'tipo.json'}:1: data.count: 'catorce' no es un número entero",
        "cota": f"{tmp_path / 'cota.json'}:1: combatants[0].conditions[0].value: 5000 está "
        "fuera de ±1000",
        "nadie": f"{tmp_path / 'nadie.json'}:1: data.queue[0]: combatiente desconocido 'nadie' "
        "(combatientes: caballero, bugbear)",
    }
    assert leaks("\n".join(reasons.values())) == []
