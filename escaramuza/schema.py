"""JSON Schemas of the files a user writes, from the pydantic models that load them.

``escaramuza schema scenario [--ruleset R]`` and ``escaramuza schema tables`` print
them; an editor with yaml-language-server completes and checks a scenario that names
one in its first line (docs/scenario-format.md, "Editor support"):

    # yaml-language-server: $schema=../schema/donjon.json

The schemas are generated, never written by hand: they are the models' own
``model_json_schema()`` (:func:`escaramuza.rules.core.scenario_spec.scenario_model`), so
an editor accepts what the loader accepts. The repository ships them in
``scenarios/schema/``; ``python -m escaramuza.schema`` regenerates that folder and a
test fails when it is out of date.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Annotated, Any, TextIO, Union

from escaramuza.rules.core.i18n import _

#: The JSON Schema dialect pydantic generates.
DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: ``escaramuza schema KIND``.
KINDS = ("scenario", "tables")


def schema_dir() -> Path:
    """The folder of the shipped schemas, ``scenarios/schema/`` beside the shipped scenarios."""
    import importlib.resources

    return Path(str(importlib.resources.files("escaramuza.scenarios"))) / "schema"


def _finish(schema: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    return {
        "$schema": DIALECT,
        "title": title,
        "description": description,
        **{key: value for key, value in schema.items() if key not in ("title", "description")},
    }


def scenario_schema(ruleset: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a scenario file of ``ruleset``, or of any ruleset (``None``)."""
    from pydantic import Field, TypeAdapter

    from escaramuza.rules import RULESETS, get_ruleset
    from escaramuza.rules.core.scenario import scenario_model

    if ruleset is not None:
        name = get_ruleset(ruleset).name  # UnknownNameError for an unknown id
        schema = scenario_model(ruleset).model_json_schema()
        return _finish(
            schema,
            f"escaramuza scenario ({name})",
            f"A scenario file of the {name} ruleset (docs/scenario-format.md).",
        )
    models = tuple(scenario_model(r) for r in RULESETS)
    # One schema for every ruleset: the ``ruleset`` key picks the branch.
    union = Annotated[Union[models], Field(discriminator="ruleset")]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    return _finish(
        schema,
        "escaramuza scenario",
        "A scenario file of any ruleset; its `ruleset` key picks the stat block "
        "(docs/scenario-format.md).",
    )


def tables_schema() -> dict[str, Any]:
    """The JSON Schema of a Sistema 2d10 tables file (``options.tables``)."""
    from escaramuza.rules.sistema_2d10.tables import tables_model

    return _finish(
        tables_model().model_json_schema(),
        "escaramuza Sistema 2d10 tables",
        "The Sistema 2d10 tables the seed omits: localizacion, ataque_apuntado, gdf "
        "(docs/rulesets/sistema_2d10.md).",
    )


def render(schema: dict[str, Any]) -> str:
    """The text of a schema file: stable (sorted keys), readable, one final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def shipped_schemas() -> dict[str, dict[str, Any]]:
    """File name in ``scenarios/schema/`` → its schema."""
    from escaramuza.rules import RULESETS

    out = {"scenario.json": scenario_schema()}
    out.update({f"{ruleset}.json": scenario_schema(ruleset) for ruleset in RULESETS})
    out["sistema_2d10-tables.json"] = tables_schema()
    return out


def add_parser(commands: Any) -> None:
    schema = commands.add_parser(
        "schema",
        help=_("print the JSON Schema of a scenario or tables file (for editors)"),
        description=_(
            "Print the JSON Schema of a scenario file (of one ruleset with --ruleset, "
            "else of any) or of a Sistema 2d10 tables file. Editors with yaml-language-server "
            "complete and check a YAML file whose first line is "
            "'# yaml-language-server: $schema=FILE' (docs/scenario-format.md)."
        ),
    )
    schema.add_argument("kind", choices=KINDS, metavar="KIND", help=_("scenario or tables"))
    schema.add_argument(
        "--ruleset", metavar="R", help=_("only this ruleset's scenarios (e.g. donjon)")
    )


def cmd_schema(args: argparse.Namespace, out: TextIO) -> int:
    from escaramuza.rules.core.errors import UnknownNameError

    if args.kind == "tables":
        if args.ruleset not in (None, "sistema_2d10"):
            raise UnknownNameError(
                "tables files are Sistema 2d10's; --ruleset must be sistema_2d10"
            )
        out.write(render(tables_schema()))
        return 0
    out.write(render(scenario_schema(args.ruleset)))
    return 0


def write_shipped(folder: Path | None = None) -> list[Path]:
    """(Re)write the shipped schema files; return their paths."""
    from escaramuza.rules.core.files import write_file

    folder = folder or schema_dir()
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, schema in shipped_schemas().items():
        write_file(folder / name, render(schema))
        paths.append(folder / name)
    return paths


if __name__ == "__main__":  # python -m escaramuza.schema: regenerate scenarios/schema/
    for written in write_shipped():
        sys.stdout.write(f"wrote {written}\n")
