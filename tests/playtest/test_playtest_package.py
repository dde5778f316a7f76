"""The playtest package: its modules import one another without a
cycle, and the commands built on it use only its public names."""

from __future__ import annotations

import ast
import importlib.util
from graphlib import TopologicalSorter
from pathlib import Path

import escaramuza.playtest

PACKAGE = Path(escaramuza.playtest.__file__).parent
PREFIX = "escaramuza.playtest"


def imported(path: Path) -> list[tuple[str, list[str]]]:
    """Every ``import`` in a file — top level, in functions and under TYPE_CHECKING alike
    (a type-only cycle is still a cycle to a reader): (module, names imported from it)."""
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
    return out


def module_graph() -> dict[str, set[str]]:
    """Submodule → the sibling submodules it imports."""
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in modules:
        deps: set[str] = set()
        for module, names in imported(PACKAGE / f"{name}.py"):
            if module == PREFIX:
                deps.update(n for n in names if n in modules)
                # the package itself runs __init__, which imports every submodule
                deps.update("__init__" for n in names if n not in modules)
            elif module.startswith(PREFIX + "."):
                deps.add(module.removeprefix(PREFIX + ".").split(".")[0])
        graph[name] = deps
    return graph


def test_the_package_has_the_named_parts() -> None:
    assert set(module_graph()) == {"records", "runner", "stats", "result", "text", "report", "cli"}


def test_submodules_import_each_other_without_a_cycle() -> None:
    graph = module_graph()
    # The walk sees the imports (so an empty graph cannot pass for an acyclic one).
    assert {"runner", "result", "text"} <= graph["cli"]
    assert "records" in graph["stats"]
    # No submodule goes through the package's __init__ (which imports them all).
    assert all("__init__" not in deps for deps in graph.values()), graph
    order = list(TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
    assert order.index("records") < order.index("runner") < order.index("result")


def test_commands_import_no_private_playtest_names() -> None:
    users = ["balance", "campaign", "cli", "web.sessions", "training.evaluate", "agents.fast"]
    for user in users:
        spec = importlib.util.find_spec(f"escaramuza.{user}")
        assert spec is not None and spec.origin is not None
        path = Path(spec.origin)
        for module, names in imported(path):
            if module.startswith(PREFIX):
                private = [n for n in names if n.startswith("_")]
                assert not private, f"{path.name} imports {private} from {module}"
