"""One language at a time: ``--lang en|es`` / ``ESCARAMUZA_LANG``, the
Spanish catalog, golden transcripts per ruleset and language, no line of the other language.

Golden transcripts: ``tests/golden/<ruleset>-<lang>.txt`` are ``escaramuza play SCENARIO
--seed 1 --lang LANG``. After a change that alters narration on purpose, regenerate them
with (docs/translating.md)::

    ESCARAMUZA_REGEN_GOLDEN=1 .venv/bin/python -m pytest -q tests/cli/test_cli_lang.py -k golden

and read the diff before committing it.
"""

from __future__ import annotations

import io
import os
import re
import string
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from escaramuza.cli import build_parser, main
from escaramuza.rules.core.i18n import (
    DOMAIN,
    ENV_VAR,
    _,
    _f,
    current_language,
    language,
    locale_dir,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
PO = locale_dir() / "es" / "LC_MESSAGES" / f"{DOMAIN}.po"
MO = PO.with_suffix(".mo")

#: One battle per ruleset (the seed the README uses).
BATTLES = {
    "destiny_dice": "destiny_dice/emboscada",
    "donjon": "donjon/duelo",
    "cairn": "cairn/duelo_bugbear",
    "sistema_2d10": "sistema_2d10/duelo",
}


def catalog() -> dict[str, str]:
    """msgid → msgstr; a plural message is one entry per form (singular, then plural)."""
    with PO.open("rb") as fp:
        messages = [m for m in read_po(fp) if m.id]
    found: dict[str, str] = {}
    for m in messages:
        if isinstance(m.id, str):
            found[m.id] = m.string
        else:  # Spanish has three CLDR forms; the last two are the plural
            singular, plural = m.id
            assert len(m.string) == 3 and m.string[1] == m.string[2]
            found[singular], found[plural] = m.string[0], m.string[1]
    return found


def fields(template: str) -> set[str]:
    return {f for _lit, f, _spec, _conv in string.Formatter().parse(template) if f is not None}


def play(capsys: pytest.CaptureFixture[str], scenario: str, *extra: str) -> str:
    code = main(["play", scenario, "--seed", "1", *extra])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


# -- the catalog ------------------------------------------------------------------------


def test_every_message_has_a_spanish_translation_with_the_same_fields() -> None:
    messages = catalog()
    assert len(messages) > 250  # the four rulesets' narration at least
    empty = [m for m, s in messages.items() if not s.strip()]
    assert empty == []
    mismatched = [m for m, s in messages.items() if fields(m) != fields(s)]
    assert mismatched == []


def test_the_catalog_holds_exactly_the_strings_the_code_marks() -> None:
    """A string marked in the code but missing from the .po would stay English in a
    Spanish battle; one in the .po but gone from the code is dead weight."""
    # The same map and keywords as docs/translating.md's pybabel extract.
    with (ROOT / "babel.cfg").open(encoding="utf-8") as fp:
        method_map, options_map = parse_mapping_cfg(fp)
    marked: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        ROOT, method_map, options_map, keywords={**DEFAULT_KEYWORDS, "_f": (1,)}
    ):
        marked.update([message] if isinstance(message, str) else message)
    assert marked - set(catalog()) == set(), "run the pybabel commands in docs/translating.md"
    assert set(catalog()) - marked == set()


def test_the_catalog_passes_babels_checks() -> None:
    """What ``pybabel compile`` refuses (a msgid Babel reads as a %-format, such as
    "{pct}% on average", must keep its conversions in the translation)."""
    with PO.open("rb") as fp:
        problems = [(m.id, [str(e) for e in errors]) for m, errors in read_po(fp).check()]
    assert problems == []


def test_the_compiled_mo_file_is_the_po_file_compiled() -> None:
    with PO.open("rb") as fp:
        compiled = io.BytesIO()
        write_mo(compiled, read_po(fp))
    assert MO.read_bytes() == compiled.getvalue(), "recompile: see docs/translating.md"


# -- the translation functions ----------------------------------------------------------


def test_f_fills_the_fields_in_the_translations_own_order() -> None:
    # "{t} esquiva el ataque de {c}." puts the second field first (written by hand here).
    msgid = "{c}'s attack on {t} is dodged."
    assert _f(msgid, "Aldara", "Gorm") == "Aldara's attack on Gorm is dodged."
    with language("es"):
        assert _f(msgid, "Aldara", "Gorm") == "Gorm esquiva el ataque de Aldara."
        assert (
            _f("{c} rolls iniciativa: 2d10 [{a}, {b}] {bonus:+d} = {total}.", "Rosa", 3, 10, 6, 19)
            == "Rosa tira iniciativa: 2d10 [3, 10] +6 = 19."
        )
        assert _("heroes") == "héroes"
        assert current_language() == "es"
    assert current_language() == "en" and _("heroes") == "heroes"


def test_a_percent_sign_in_a_message_is_kept() -> None:
    # _f compiles each template to a % format: a literal % must survive it.
    from escaramuza.rules.core.i18n import _Language, translations

    lang = _Language("en", translations("en"))
    template, order = lang.compile("{n}% of {what}")
    assert (template % (40, "the dice"), order) == ("40% of the dice", None)


# -- the command line -------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", sorted(BATTLES))
@pytest.mark.parametrize("lang", ["en", "es"])
def test_golden_transcript(capsys: pytest.CaptureFixture[str], ruleset: str, lang: str) -> None:
    out = play(capsys, BATTLES[ruleset], "--lang", lang)
    path = GOLDEN / f"{ruleset}-{lang}.txt"
    if os.environ.get("ESCARAMUZA_REGEN_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(out, encoding="utf-8")
        pytest.skip(f"regenerated {path.name}")
    assert out == path.read_text(encoding="utf-8")


def _pattern(template: str) -> re.Pattern[str] | None:
    """A regex finding ``template`` (its literal text, any value in each field) in a line;
    None when its literal text is too short to tell the languages apart."""
    literals = [lit for lit, *_rest in string.Formatter().parse(template)]
    if sum(len(re.sub(r"[^A-Za-zÁÉÍÓÚÑáéíóúñ]", "", lit)) for lit in literals) < 6:
        return None
    if " " not in "".join(literals).strip():
        # One word ("defensa", "timeout"): too often a game term both languages keep
        # ("parada (defensa activa)"); sentences are what must not cross over.
        return None
    # Whole words only: English "resist" is not a line of English inside "resistirse".
    return re.compile(r"(?<!\w)" + ".+?".join(re.escape(lit) for lit in literals) + r"(?!\w)")


def _foreign(text: str, templates: list[str]) -> list[tuple[str, str]]:
    found = []
    for template in templates:
        pattern = _pattern(template)
        if pattern is None:
            continue
        found += [(template, line) for line in text.splitlines() if pattern.search(line)]
    return found


@pytest.mark.parametrize("ruleset", sorted(BATTLES))
def test_no_line_of_the_other_language(capsys: pytest.CaptureFixture[str], ruleset: str) -> None:
    """Every message whose Spanish differs from its English: the English never appears in
    the Spanish battle, nor the Spanish in the English one."""
    pairs = [(m, s) for m, s in catalog().items() if m != s]
    english = play(capsys, BATTLES[ruleset], "--lang", "en")
    spanish = play(capsys, BATTLES[ruleset], "--lang", "es")
    assert english != spanish
    assert _foreign(spanish, [m for m, _s in pairs]) == []
    assert _foreign(english, [s for _m, s in pairs]) == []


def test_the_readme_battle_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    out = play(capsys, "destiny_dice/emboscada", "--lang", "es")
    lines = out.splitlines()
    assert lines[0].endswith("— semilla 1; héroes: heuristic, enemigos: heuristic")
    assert "Turno de Ilse (asalto 1)." in lines
    assert "  » Ilse ataca a Arquero 1 con arco largo." in lines
    assert lines[-11].startswith(
        "Resultado: ganan los héroes (el otro bando, fuera de combate) tras "
    )
    # English words of the engine's own vocabulary appear nowhere.
    for word in (" attacks ", " rolls ", "'s turn", "Round ", "Outcome", " heroes", " win "):
        assert word not in out


def test_lang_comes_from_the_environment_and_the_option_wins(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, "es")
    assert "Turno de Ilse" in play(capsys, "destiny_dice/emboscada")
    assert "Ilse's turn" in play(capsys, "destiny_dice/emboscada", "--lang", "en")
    # Before the command too.
    assert main(["--lang", "en", "play", "destiny_dice/emboscada"]) == 0
    assert "Ilse's turn" in capsys.readouterr().out
    assert current_language() == "en"  # main leaves the caller's language as it was


def test_an_unknown_language_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["play", "destiny_dice/emboscada", "--lang", "fr"]) == 2
    assert "invalid choice: 'fr'" in capsys.readouterr().err
    monkeypatch.setenv(ENV_VAR, "fr")
    assert main(["scenarios"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"escaramuza: error: {ENV_VAR}: 'fr' is not a language escaramuza speaks "
        "(choose en or es)\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        "scenarios",
        "play",
        "playtest",
        "suggest",
        "gm",
        "serve",
        "train",
        "evaluate",
        "validate",
        "schema",
    ],
)
def test_every_command_takes_lang(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser(command).parse_args([command, "--lang", "xx"])
    assert exc.value.code == 2
    assert "argument --lang: invalid choice: 'xx'" in capsys.readouterr().err


@pytest.mark.compile
def test_playtest_report_in_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["playtest", "donjon/duelo", "-n", "4", "--workers", "1", "--lang", "es"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 batallas por escenario, semilla 1; héroes: heuristic, ")
    for label in ("reglamento", "ganan los héroes", "grupo aniquilado", "combatiente"):
        assert label in out
    assert not any(w in out for w in ("heroes win", "party wipe", "battles per", "combatant"))


def test_gm_session_in_spanish_asks_for_dice_in_spanish() -> None:
    from escaramuza.gm import run_session

    out = io.StringIO()
    lines = ["5", "1", "show", "undo", "bogus", "quit"]
    with language("es"):
        run_session(
            "destiny_dice/brann-vs-saqueador",
            io.StringIO("\n".join(lines) + "\n"),
            out,
            False,
            seed=3,
            roll="manual",
        )
    text = out.getvalue()
    assert "  ¿d6 para iniciativa (Mente)? " in text  # Brann's Mente d6
    assert "Escribe help para ver las órdenes." in text
    assert "Pendiente: Brann [brann] (héroes) — turno" in text
    assert "orden desconocida 'bogus'" in text and "Adiós." in text
    assert " for " not in text and "Pending" not in text and "unknown command" not in text


# -- balance, campaign and gm's errors (the checker the battles use) -----------------------


def _both_ways(english: str, spanish: str) -> None:
    """The same check as :func:`test_no_line_of_the_other_language`, on any output."""
    pairs = [(m, s) for m, s in catalog().items() if m != s]
    assert english != spanish
    assert _foreign(spanish, [m for m, _s in pairs]) == []
    assert _foreign(english, [s for _m, s in pairs]) == []


def test_campaign_in_spanish_has_no_english_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = {}
    for lang in ("en", "es"):
        report = tmp_path / lang
        code = main(
            [
                "campaign",
                "scenarios/destiny_dice/jornada.day.yaml",
                "-n",
                "3",
                "--workers",
                "1",
                "--no-progress",
                "--report",
                str(report),
                "--lang",
                lang,
            ]
        )
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        outputs[lang] = out + (report / "report.md").read_text(encoding="utf-8")
    _both_ways(outputs["en"], outputs["es"])
    # Written by hand from the catalog: the tables' headings and the summary line.
    spanish = outputs["es"]
    assert "el grupo termina el día: " in spanish and "desgaste: cada héroe" in spanish
    assert "![hasta dónde llega el grupo](day-progress.png)" in spanish
    assert "encounter" not in spanish and "reached" not in spanish


@pytest.mark.compile
def test_balance_in_spanish_has_no_english_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = {}
    for lang in ("en", "es"):
        variant = tmp_path / f"{lang}.yaml"
        code = main(
            [
                "balance",
                "destiny_dice/brann-vs-saqueador",
                "--target",
                "hard",
                "--vary",
                "stat:saqueador.pv=4..16",
                "--max-battles",
                "100",
                "--workers",
                "1",
                "--out",
                str(variant),
                "--lang",
                lang,
            ]
        )
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        comment = [
            line
            for line in variant.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")
        ]
        assert len(comment) == 3  # the "how it was found" comment, in the run's language
        outputs[lang] = out + "\n".join(comment)
    _both_ways(outputs["en"], outputs["es"])
    spanish = outputs["es"]
    assert spanish.startswith(
        "equilibrio de destiny_dice/brann-vs-saqueador hacia difícil, semilla 1:"
    )
    assert "veredicto" in spanish and "\nelegida: stat:saqueador.pv=" in spanish
    assert "# Encontrada con `escaramuza balance destiny_dice/brann-vs-saqueador" in spanish


def test_engine_lines_in_spanish() -> None:
    from escaramuza.agents.fast import FAST, REFERENCE, engine_line
    from escaramuza.training.evaluate import engine_summary

    doc = {
        "scenarios": [
            {"pairings": [{"engine": FAST}, {"engine": REFERENCE, "engine_refusal": "why"}]}
        ]
    }
    with language("es"):
        assert engine_line(REFERENCE, None) == "motor: de referencia"
        assert engine_line(FAST, None).startswith("motor: rápido (núcleo compilado;")
        assert engine_summary(doc) == (
            "motor: rápido para 1 de 2 emparejamientos, de "
            "referencia para el resto\n  de referencia: why"
        )


def test_gm_errors_in_spanish() -> None:
    from escaramuza.gm import run_session

    lines = [
        "set brann pv 99",
        "set brann pv lots",
        "cond add brann flying",
        "status brann asleep",
        "apply 99",
        "apply dance wildly",
        "roll sometimes",
        "quit",
    ]
    outputs = {}
    for lang in ("en", "es"):
        out = io.StringIO()
        with language(lang):
            run_session(
                "destiny_dice/brann-vs-saqueador",
                io.StringIO("\n".join(lines) + "\n"),
                out,
                False,
                seed=3,
            )
        outputs[lang] = out.getvalue()
    _both_ways(outputs["en"], outputs["es"])
    spanish = outputs["es"]
    # Brann's pv maximum is 16 (scenarios/destiny_dice/brann-vs-saqueador.yaml).
    assert "error: pv de brann debe ser 0–16, no 99" in spanish
    assert "error: 'lots' no es un número entero" in spanish
    assert "error: estado desconocido 'flying' (conocidos: " in spanish
    assert "error: no hay acción 99: escribe actions (1–" in spanish
    assert "error: ninguna acción legal encaja con 'dance wildly'" in spanish
    assert "error: uso: roll auto|manual" in spanish
