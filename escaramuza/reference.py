"""The reference pages whose truth is in the code, generated from it.

* ``docs/cli.md``: every command of :func:`escaramuza.cli.build_parser` — its synopsis,
  description and every option with its help text and default, read from the parsers
  themselves — into the hand-written template ``docs/cli.md.in``, with a note under
  the commands no other page explains (:data:`NOTES`).
* ``docs/rulesets/<ruleset>.md``: the table of the ruleset's scenario options, from
  ``Ruleset.options_model`` (each field's name, type, default and ``description``),
  between the page's ``options`` markers.
* ``docs/environments.md``: the table of the registered env ids with their spaces'
  sizes, between the page's ``env`` markers. The env's reference itself is the
  docstring of ``escaramuza.envs.single.EscaramuzaEnv``, which the page links to.
* ``docs/gm.md``: the table of the ``gm`` session's commands, from its ``help``
  (``escaramuza.gm.HELP``), between the page's ``gm-commands`` markers.

Everything is rendered in English whatever ``ESCARAMUZA_LANG`` says. Run from the
repository root::

    python -m escaramuza.reference --write   # rewrite what is stale
    python -m escaramuza.reference --check   # exit 1 naming what is stale

``tests/test_reference.py`` fails while a page differs from what this module makes.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from escaramuza.rules.core.i18n import language

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CLI_PAGE = DOCS / "cli.md"
ENV_PAGE = DOCS / "environments.md"
GM_PAGE = DOCS / "gm.md"
FIX = "python -m escaramuza.reference --write"

#: Width the synopses are wrapped at (argparse's own wrapping, at a fixed width so the
#: page does not depend on the terminal it was made in).
USAGE_WIDTH = 96

#: Options every command takes, documented once at the top of the page.
COMMON = frozenset({"-h", "--help", "--lang"})

#: An option written and explained alike in this many commands, with a help text this
#: long, is explained once, in the shared table, and each command's row points there.
SHARED_MIN = 3
SHARED_HELP_CHARS = 80
SHARED_ANCHOR = "shared-options"

#: Where each command is explained beyond its options (a page, with an anchor).
GUIDES: dict[str, str] = {
    "playtest": "playtest.md",
    "balance": "playtest.md#balancing-an-encounter-escaramuza-balance",
    "campaign": "playtest.md#adventuring-days-escaramuza-campaign",
    "suggest": "gm.md#escaramuza-suggest",
    "gm": "gm.md#escaramuza-gm",
    "serve": "web.md",
    "train": "training.md#escaramuza-train",
    "evaluate": "training.md#escaramuza-evaluate",
    "validate": "scenario-format.md#errors",
    "migrate": "scenario-format.md#migrating-retired-names-escaramuza-migrate",
    "schema": "scenario-format.md#editor-support-json-schema",
    "warmup": "fast-path.md#compilation-and-numbas-cache",
}

#: The page's hand-written parts, around ``{{commands}}`` (an index of the commands) and
#: ``{{reference}}`` (the shared options and every command's section).
TEMPLATE = DOCS / "cli.md.in"

#: Hand-written notes under a command's options, where no other page explains its output.
NOTES: dict[str, str] = {
    "scenarios": (
        '`--json` writes `{"name", "ruleset", "title", "heroes", "enemies", "zones", '
        '"round_limit"}` a line. Every listed scenario is loaded: a shipped file with an error '
        "fails the command."
    ),
    "play": (
        "Prints every event's narrated line as it happens (the chosen action marked `»`, its "
        "dice indented), then the outcome; with `--json` each line is an event's `to_json()` "
        "and the last one the outcome (or, after `--stop-after`, a `Stopped` line). "
        "`--save-state` writes the battle for `suggest` or `gm` "
        "([gm.md](gm.md#state-file-format-escaramuza-state-version-1))."
    ),
}


# -- the command line ---------------------------------------------------------


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    choices: dict[str, argparse.ArgumentParser] = action.choices
    return choices


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=USAGE_WIDTH)


def synopsis(prog: str, parser: argparse.ArgumentParser) -> str:
    """The usage line argparse prints, without ``usage:``, ``-h`` and ``--lang``."""
    formatter = _formatter(prog)
    actions = [a for a in parser._actions if not COMMON & set(a.option_strings)]
    formatter.add_usage(None, actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip("\n")


def _cell(text: str) -> str:
    """Text in a Markdown table cell: one line, the table's and Markdown's signs escaped."""
    text = " ".join(text.split())
    for sign in ("\\", "|", "*", "<", ">"):
        text = text.replace(sign, "\\" + sign)
    return text


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], source: str | None = None) -> str:
    """A Markdown table; with ``source``, after a comment naming where it is generated
    from and the command that regenerates it."""
    lines = [f"<!-- Generated from {source} by `{FIX}`. -->", ""] if source else []
    lines += ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _default(action: argparse.Action) -> str:
    if action.required and not (not action.option_strings and action.nargs in ("?", "*")):
        return "required"
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        return "on" if action.default else "off"
    default = action.default
    if default is None or default is argparse.SUPPRESS or default == []:
        return "—"
    if isinstance(default, list | tuple):
        return ", ".join(f"`{v}`" for v in default)
    return f"`{default}`"


def _invocation(formatter: argparse.HelpFormatter, action: argparse.Action) -> str:
    return formatter._format_action_invocation(action)


def _help(formatter: argparse.HelpFormatter, action: argparse.Action) -> str:
    return _cell(formatter._expand_help(action)) if action.help else ""


def options_table(
    prog: str, actions: Iterable[argparse.Action], shared: frozenset[tuple[str, str]] = frozenset()
) -> str:
    """One row per argument: how it is written, its default and its help (a pointer to
    the shared table for an option in ``shared``)."""
    formatter = _formatter(prog)
    rows = []
    for action in actions:
        if action.help is argparse.SUPPRESS:
            continue
        invocation, help_text = _invocation(formatter, action), _help(formatter, action)
        if (invocation, help_text) in shared:
            help_text = f"see [shared options](#{SHARED_ANCHOR})"
        rows.append((f"`{invocation}`", _default(action), help_text))
    return _table(("argument", "default", "help"), rows)


def _own_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not COMMON & set(a.option_strings) and a.help is not argparse.SUPPRESS
    ]


def shared_options(
    commands: dict[str, argparse.ArgumentParser], prog: str
) -> dict[tuple[str, str], list[str]]:
    """Options written and explained alike, at length, in at least :data:`SHARED_MIN`
    commands: (invocation, help) → the commands, in order."""
    seen: dict[tuple[str, str], list[str]] = {}
    for name, sub in commands.items():
        formatter = _formatter(f"{prog} {name}")
        for action in _own_actions(sub):
            if action.option_strings:
                key = (_invocation(formatter, action), _help(formatter, action))
                seen.setdefault(key, []).append(name)
    return {
        key: names
        for key, names in seen.items()
        if len(names) >= SHARED_MIN and len(key[1]) >= SHARED_HELP_CHARS
    }


def _anchor(title: str) -> str:
    """GitHub's anchor of a heading (as tests/test_docs_links.py computes it)."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def cli_markdown() -> str:
    """docs/cli.md: :data:`TEMPLATE` filled from the parsers as they are now."""
    from escaramuza.cli import COMMAND_HELP, PROG, build_parser

    with language("en"):
        top = build_parser()
        commands = {name: _subparsers(top)[name] for name in COMMAND_HELP}
        index = " · ".join(f"[`{name}`](#{_anchor(f'`{PROG} {name}`')})" for name in commands)
        shared = shared_options(commands, PROG)
        shared_table = _table(
            ("argument", "commands", "help"),
            (
                (f"`{invocation}`", ", ".join(f"`{n}`" for n in names), help_text)
                for (invocation, help_text), names in shared.items()
            ),
        )
        reference = [
            "## Options every command takes\n\n"
            "`--lang` may come before the command or after it, `--version` only before it "
            "([translating.md](translating.md) says what follows the language).\n\n"
            + options_table(PROG, [a for a in top._actions if a.option_strings])
            + "\n\n## Shared options\n\nExplained once here; each command's table gives "
            "its default.\n\n" + shared_table + "\n"
        ]
        for name, sub in commands.items():
            prog = f"{PROG} {name}"
            section = [f"## `{prog}`", "", (sub.description or "").replace("%(prog)s", prog)]
            guide = GUIDES.get(name)
            if guide:
                section += ["", f"Guide: [{guide.partition('#')[0]}]({guide})."]
            section += ["", "```", synopsis(prog, sub), "```", ""]
            section.append(options_table(prog, _own_actions(sub), frozenset(shared)))
            if name in NOTES:
                section += ["", NOTES[name]]
            reference.append("\n".join(section) + "\n")
    page = TEMPLATE.read_text(encoding="utf-8")
    return page.replace("{{commands}}", f"Commands: {index}.\n").replace(
        "{{reference}}", "\n".join(reference)
    )


# -- a ruleset's options ----------------------------------------------------------


def _rst(text: str) -> str:
    """Docstring markup as Markdown: ``code`` and Sphinx roles as code spans."""

    def role(match: re.Match[str]) -> str:
        name = match[3].split(".")[-1] if match[2] else match[3]
        return f"``{name}()``" if match[1] in ("meth", "func") else f"``{name}``"

    text = re.sub(r":(class|exc|data|attr|mod|meth|func):`(~?)([^`]+)`", role, text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _schema_type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " \\| ".join(f"`{v}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    if "anyOf" in prop:
        return " or ".join(_schema_type(p) for p in prop["anyOf"])
    kind = prop.get("type", "mapping" if "$ref" in prop else "any")
    words = {"integer": "integer", "boolean": "boolean", "string": "string", "number": "number"}
    out = words.get(kind, kind)
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        out += f" {low}–{high}".replace("-", "−") if low < 0 else f" {low}–{high}"
    elif low is not None:
        out += f" ≥ {low}"
    return out


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _field_rows(model: type[Any], prefix: str = "") -> list[tuple[str, str, str, str]]:
    """(name, type, default, description) of each field of a pydantic model, a nested
    model's fields after it as ``parent.child``."""
    from pydantic import BaseModel

    schema = model.model_json_schema()
    rows = []
    for name, field in model.model_fields.items():
        prop = schema["properties"][name]
        default = field.get_default(call_default_factory=True)
        if isinstance(default, BaseModel):
            default = default.model_dump()
        description = field.description or ""
        rows.append((prefix + name, _schema_type(prop), _value(default), description))
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            rows += _field_rows(annotation, f"{prefix}{name}.")
    return rows


def options_markdown(ruleset_id: str) -> str:
    """The table of a ruleset's ``options:`` block, from its options model."""
    from escaramuza.rules import get_ruleset

    model = get_ruleset(ruleset_id).options_model
    rows = [
        (f"`{name}`", kind, f"`{default}`", _rst(" ".join(description.split())).replace("|", "\\|"))
        for name, kind, default, description in _field_rows(model)
    ]
    return _table(
        ("option", "type", "default", "meaning"),
        rows,
        f"the field descriptions of `{model.__name__}` (`options_model`)",
    )


# -- the env ids -----------------------------------------------------------------


def env_markdown() -> str:
    """The registered ids, each with its ruleset, default scenario and spaces' sizes."""
    from escaramuza.envs.single import EscaramuzaEnv
    from escaramuza.rules import RULESETS, get_ruleset

    rows = []
    for ruleset_id in RULESETS:
        env = EscaramuzaEnv(ruleset_id)
        shape = env.observation_space.shape
        assert shape is not None
        ruleset = get_ruleset(ruleset_id)
        rows.append(
            (
                f"`{ruleset.env_id}`",
                f"`{ruleset_id}`",
                f"`{ruleset.default_scenario}`",
                str(env.codec.n),
                str(shape[0]),
            )
        )
        env.close()
    return _table(
        ("id", "ruleset", "default scenario", "actions `N`", "observation size"),
        rows,
        "`RULESETS` (sizes with the default limits)",
    )


# -- the GM session's commands -----------------------------------------------------------


def gm_commands_markdown() -> str:
    """The table of ``gm``'s commands: each one's synopsis and first line of ``help``."""
    from escaramuza.gm import HELP

    rows = []
    for text in HELP.values():
        synopsis_text, _, what = text.split("\n")[0].partition(" — ")
        forms = " or ".join(
            f"`{form.strip()}`".replace("|", "\\|") for form in synopsis_text.split(" | ")
        )
        rows.append((forms, _cell(what)))
    return _table(("command", "what it does"), rows, "`escaramuza.gm.HELP`")


# -- pages ------------------------------------------------------------------------------


class StalePageError(Exception):
    """A page lacks the markers its generated block goes between."""


def replace_block(text: str, name: str, body: str, where: Path) -> str:
    """``text`` with what stands between ``<!-- name:begin -->`` and ``<!-- name:end -->``
    replaced by ``body``."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    head, found, rest = text.partition(begin)
    _, found_end, tail = rest.partition(end)
    if not found or not found_end:
        raise StalePageError(f"{where}: no '{begin}' … '{end}' markers")
    return f"{head}{begin}\n{body}\n{end}{tail}"


def expected_pages() -> dict[Path, str]:
    """Every generated page, as this module makes it now."""
    from escaramuza.rules import RULESETS

    pages = {CLI_PAGE: cli_markdown()}
    for ruleset_id in RULESETS:
        page = DOCS / "rulesets" / f"{ruleset_id}.md"
        pages[page] = replace_block(
            page.read_text(encoding="utf-8"), "options", options_markdown(ruleset_id), page
        )
    pages[ENV_PAGE] = replace_block(
        ENV_PAGE.read_text(encoding="utf-8"), "env", env_markdown(), ENV_PAGE
    )
    pages[GM_PAGE] = replace_block(
        GM_PAGE.read_text(encoding="utf-8"), "gm-commands", gm_commands_markdown(), GM_PAGE
    )
    return pages


def stale_pages() -> list[Path]:
    """The generated pages that differ from what is on disk."""
    return [
        path
        for path, text in expected_pages().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m escaramuza.reference",
        description="Generate the reference pages the code holds (docs/cli.md, the "
        "rulesets' options tables, the env reference).",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the stale pages")
    mode.add_argument("--check", action="store_true", help="exit 1 naming the stale pages")
    args = parser.parse_args(argv)
    if not DOCS.is_dir():
        print(f"no docs/ folder at {DOCS}: run from a checkout of the repository", file=sys.stderr)
        return 2
    try:
        pages = expected_pages()
    except StalePageError as exc:
        print(exc, file=sys.stderr)
        return 2
    stale = [p for p, t in pages.items() if not p.exists() or p.read_text(encoding="utf-8") != t]
    for path in stale:
        where = path.relative_to(ROOT)
        if args.write:
            path.write_text(pages[path], encoding="utf-8")
            print(f"wrote {where}")
        else:
            print(f"{where} is stale: run {FIX}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
