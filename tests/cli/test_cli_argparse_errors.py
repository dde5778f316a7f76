"""A bad command line's errors, which argparse writes itself, in the language asked for.

The Spanish below is written by hand (not read from the catalog), so a lost or wrong
translation fails; the ``escaramuza: error:`` tag stays as a script reads it."""

from __future__ import annotations

import argparse
import ast
import gettext
import inspect

import pytest

from escaramuza.cli import ARGPARSE_ERRORS, argparse_errors, main
from escaramuza.rules.core.i18n import _, current_language, language

SCENARIO = "destiny_dice/emboscada"


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["play"], "escaramuza play: error: faltan estos argumentos obligatorios: SCENARIO"),
        (
            ["jugar"],
            "escaramuza: error: argumento COMMAND: opción no válida: 'jugar' (elige entre "
            "'scenarios',",
        ),
        (["play", SCENARIO, "--turbo"], "escaramuza: error: argumentos no reconocidos: --turbo"),
        (
            ["play", SCENARIO, "--seed", "x"],
            "escaramuza play: error: argumento --seed: valor int no válido: 'x'",
        ),
        (
            ["playtest", SCENARIO, "-n"],
            "escaramuza playtest: error: argumento -n: se esperaba un argumento",
        ),
        (
            ["play", SCENARIO, "--heroes"],
            "escaramuza play: error: argumento --heroes: se esperaba un argumento",
        ),
    ],
    ids=["required", "choice", "unrecognized", "type", "one-argument", "one-argument-2"],
)
@pytest.mark.parametrize("where", ["flag", "environment"])
def test_a_bad_command_line_is_refused_in_spanish(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    line: str,
    where: str,
) -> None:
    if where == "flag":
        argv = ["--lang", "es", *argv]
    else:
        monkeypatch.setenv("ESCARAMUZA_LANG", "es")
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    last = err.splitlines()[-1]
    assert last.startswith(line), last
    assert err.startswith("uso: escaramuza"), err


def test_english_is_argparses_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--lang", "en"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "escaramuza play: error: the following arguments are required: SCENARIO"
    )


def test_the_plural_follows_the_count(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="p")
    parser.add_argument("--pair", nargs=2)
    parser.add_argument("--one", nargs=1)
    with language("es"), argparse_errors():
        for args, words in (
            (["--pair", "a"], "argumento --pair: se esperaban 2 argumentos"),
            (["--one"], "argumento --one: se esperaba 1 argumento"),
        ):
            with pytest.raises(SystemExit):
                parser.parse_args(args)
            assert capsys.readouterr().err.splitlines()[-1] == f"p: error: {words}"


def test_argparse_is_left_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    """The swap lasts the parse only: after main (an error or not) argparse's own gettext
    is back, and another parser in the process speaks argparse's English."""
    module: object = argparse
    before = (module._, module.ngettext)  # type: ignore[attr-defined]
    assert main(["--lang", "es", "play"]) == 2
    assert main(["--lang", "es", "scenarios", "--json"]) == 0
    capsys.readouterr()
    assert (module._, module.ngettext) == before  # type: ignore[attr-defined]
    assert module._ is gettext.gettext  # type: ignore[attr-defined]
    with language("es"):
        parser = argparse.ArgumentParser(prog="other")
        with pytest.raises(SystemExit):
            parser.parse_args(["--x"])
    assert capsys.readouterr().err.splitlines()[-1] == "other: error: unrecognized arguments: --x"
    assert current_language() == "en"


def _argparse_messages() -> set[str]:
    """Every literal argparse passes to its ``_`` (singular) in this Python."""
    tree = ast.parse(inspect.getsource(argparse))
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(node.args[0].value)
    return found


#: argparse's messages that are not a bad command line's error: its help words (translated
#: per parser, escaramuza.cli._localize), the error tag, and a wrong parser definition's.
NOT_USER_ERRORS = {
    "usage: ",
    "positional arguments",
    "options",
    "show this help message and exit",
    "%(prog)s: error: %(message)s\n",
    ".__call__() not defined",
    "conflicting subparser: %s",
    "conflicting subparser alias: %s",
    'argument "-" with mode %r',
    "can't open '%(filename)s': %(error)s",
    "cannot merge actions - two groups are named %r",
    "'required' is an invalid argument for positionals",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r",
    "dest= is required for options like %r",
    "invalid conflict_resolution value: %r",
    "mutually exclusive arguments must be optional",
    "cannot have multiple subparser arguments",
    "%r is not callable",
}


def test_every_argparse_error_is_in_the_catalog() -> None:
    """Each message listed is one argparse makes (a renamed one would silently stay
    English), and each error argparse can make of a command line is listed."""
    made = _argparse_messages()
    assert set(ARGPARSE_ERRORS) <= made, set(ARGPARSE_ERRORS) - made
    assert made - NOT_USER_ERRORS - set(ARGPARSE_ERRORS) == set()
    with language("es"):
        untranslated = [msgid for msgid in ARGPARSE_ERRORS if _(msgid) == msgid]
    assert untranslated == []
