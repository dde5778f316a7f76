"""``--help`` in the language asked for: every command's help texts and argparse's own words
(``usage:``, the groups' titles, ``-h``'s help) follow ``--lang`` / ``ESCARAMUZA_LANG``,
whether ``--lang`` comes before the command or after ``--help`` (docs/translating.md).

Each help text is compared between the two languages action by action: a Spanish help that
is still the English one is a string that was not marked, or marked but not translated.
"""

from __future__ import annotations

import argparse

import pytest

from escaramuza.cli import COMMAND_HELP, build_parser, main
from escaramuza.rules.core.i18n import ENV_VAR, _, language

#: Every command, and None for ``escaramuza --help`` itself.
COMMANDS: list[str | None] = [None, *COMMAND_HELP]

#: Help texts that are genuinely the same words in English and Spanish (none so far); any
#: other help text must differ between the two languages.
SAME_IN_BOTH: frozenset[str] = frozenset()


def subcommands(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def parser_of(command: str | None, lang: str) -> argparse.ArgumentParser:
    """The parser ``escaramuza [COMMAND] --help`` prints, built in ``lang``."""
    with language(lang):
        root = build_parser(command or "")
    return root if command is None else subcommands(root).choices[command]


def help_texts(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """(what, text) of every help text ``parser`` shows, in order: its description, each
    action's help with argparse's ``%(default)s`` & co. filled in, each command's line."""
    formatter = parser._get_formatter()
    texts = [("description", parser.description or "")]
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            texts.append((action.dest, formatter._expand_help(action)))
        if isinstance(action, argparse._SubParsersAction):
            texts.extend((line.dest, line.help or "") for line in action._choices_actions)
    return texts


def flat(text: str) -> str:
    """``text`` with argparse's line wrapping undone."""
    return " ".join(text.split())


def help_output(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


def assert_spanish(out: str, command: str | None) -> None:
    assert out.startswith("uso: escaramuza" + (f" {command}" if command else ""))
    assert "\nopciones:\n" in out
    assert "-h, --help" in out and "muestra esta ayuda y sale" in flat(out)
    for english in ("usage:", "options:", "positional arguments:", "show this help message"):
        assert english not in out


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c or "escaramuza")
def test_every_help_text_is_translated(command: str | None) -> None:
    english = help_texts(parser_of(command, "en"))
    spanish = help_texts(parser_of(command, "es"))
    assert [what for what, _text in spanish] == [what for what, _text in english]
    assert any(text for _what, text in english)  # the comparison below compares something
    untranslated = [
        what
        for (what, en), (_what, es) in zip(english, spanish, strict=True)
        if en and es == en and en not in SAME_IN_BOTH
    ]
    assert untranslated == []


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c or "escaramuza")
@pytest.mark.parametrize("where", ["before", "after"])
def test_help_in_spanish_has_no_english_help_text(
    capsys: pytest.CaptureFixture[str], command: str | None, where: str
) -> None:
    words = [command, "--help"] if command else ["--help"]
    argv = ["--lang", "es", *words] if where == "before" else [*words, "--lang", "es"]
    out = help_output(capsys, argv)
    assert_spanish(out, command)
    shown = flat(out)
    for what, text in help_texts(parser_of(command, "en")):
        if text and text not in SAME_IN_BOTH:
            assert flat(text) not in shown, what
    # The same command in English still speaks English.
    english = help_output(capsys, words)
    assert english.startswith("usage: escaramuza") and "\noptions:\n" in english


def test_the_command_lines_are_the_same_translated_in_both_passes() -> None:
    """A command's line in ``escaramuza --help`` is the one its own module gives, in
    Spanish too (the first pass shows COMMAND_HELP, the modules their own strings)."""
    with language("es"):
        lazy = {line.dest: line.help for line in subcommands(build_parser(""))._choices_actions}
        full = {line.dest: line.help for line in subcommands(build_parser())._choices_actions}
        translated = {name: _(line) for name, line in COMMAND_HELP.items()}
    assert lazy == full == translated
    assert all(translated[name] != line for name, line in COMMAND_HELP.items())


def test_help_language_comes_from_the_environment_and_the_option_wins(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, "es")
    assert_spanish(help_output(capsys, ["play", "--help"]), "play")
    assert_spanish(help_output(capsys, ["--help"]), None)
    assert help_output(capsys, ["play", "--help", "--lang", "en"]).startswith("usage: ")
    assert help_output(capsys, ["--lang=en", "play", "--help"]).startswith("usage: ")
    # The last --lang wins, as argparse reads them.
    assert_spanish(help_output(capsys, ["--lang", "en", "play", "--help", "--lang=es"]), "play")
    monkeypatch.setenv(ENV_VAR, " ES ")  # as the check after parsing reads the variable
    assert_spanish(help_output(capsys, ["scenarios", "--help"]), "scenarios")


def test_an_unknown_environment_language_gives_english_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, "fr")
    assert help_output(capsys, ["play", "--help"]).startswith("usage: escaramuza play")


@pytest.mark.parametrize(
    "argv",
    [
        ["--lang", "xx", "play", "--help"],
        ["play", "--help", "--lang", "xx"],
        ["--lang=xx", "--help"],
        ["--lang", "ES", "scenarios", "--help"],
    ],
    ids=["before", "after", "root", "case"],
)
def test_an_unknown_language_is_argparses_error(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "argument --lang: invalid choice: " in err and err.startswith("usage: escaramuza")
