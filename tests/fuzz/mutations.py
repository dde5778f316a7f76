"""Hostile mutations of scenarios and state files for the fuzz tests.

Reusable by other suites (the web API half) as ``from tests.fuzz.mutations import …``.
Everything here is deterministic given hypothesis's draws; nothing touches the network
or the shipped files.

* :func:`scenario_sources` — every shipped scenario as (name, parsed tree).
* :func:`state_sources` — saved states of every ruleset (mid-battle, after a
  few different numbers of random decisions, so each kind of pending decision
  shows up), as (label, JSON document).
* :func:`mutated_text` — a hypothesis strategy: one source, mutated at a random
  place (a hostile value, a value taken from elsewhere in the same document, a
  deleted or duplicated key, a nudged number), serialised as YAML or JSON,
  sometimes truncated or with a byte flipped.
* :func:`play_out` — play an accepted state to its end (random agent), the
  "every accepted state plays to the end" check.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from escaramuza.agents import RandomAgent
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.rules.core.state import BattleState
from escaramuza.state_file import state_to_dict

#: Raw texts a mutation puts in place of a value: each is valid JSON and valid YAML flow.
HOSTILE: tuple[str, ...] = (
    "1" * 5000,  # pv: 111…1 (Python's int-str conversion limit)
    "9" * 5000,
    "-" + "9" * 30,
    "9" * 19,
    "-1",
    "0",
    "-2147483649",
    "3.5",
    "1e308",
    "-1e308",
    "true",
    "null",
    '""',
    '"' + "a" * 5000 + '"',  # a 5,000-character scenario name: file name too long
    '"/dev/zero"',  # an endless read
    '"."',
    "[]",
    "{}",
    '{"a": 1}',
    '[["a"]]',  # a state's "order": [["a"]]
    '["goblin"]',  # Cairn template: [goblin]
    "[" * 70 + "]" * 70,
    "[" * 900 + "]" * 900,  # ~800 nested lists in YAML: RecursionError
    "[" * 5000 + "]" * 5000,  # 5,000 in JSON
    '{"$type": "escaramuza.__main__:main", "fields": {}}',  # code named by a file
    '{"$type": "escaramuza.training.train:train", "fields": {}}',
    '{"$type": "escaramuza.rules.core.model:Action", "fields": {"verb": 5, "actor": []}}',
    '{"$enum": "escaramuza.rules.core.model:Side", "value": "nobody"}',
    '{"$frozenset": [[1], 2]}',
    '{"$scenario": true}',
)

_NUDGES = (-1, 1, -2, 2, -1000, 1000, -(10**12), 10**12)


@cache
def scenario_sources() -> tuple[tuple[str, Any], ...]:
    """Every shipped scenario: (its name, its parsed YAML tree)."""
    out = []
    for name, path in shipped_scenarios().items():
        out.append((name, yaml.safe_load(Path(path).read_text(encoding="utf-8"))))
    return tuple(out)


def _mid_battle(name: str, seed: int, decisions: int) -> BattleState:
    state = new_battle(load_scenario(name), RandomRoller(seed))
    rng, agent, roller = random.Random(seed), RandomAgent(), RandomRoller(seed + 1)
    for _ in range(decisions):
        if state.outcome is not None:
            break
        apply_action(state, agent.act(state, rng), roller)
    return state


@cache
def state_sources() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Saved states of every shipped scenario (so of every ruleset), mid-battle."""
    out = []
    for name in shipped_scenarios():
        for seed, decisions in ((3, 4), (5, 15), (11, 40)):
            state = _mid_battle(name, seed, decisions)
            if state.outcome is None:
                out.append((f"{name}@{seed}/{decisions}", state_to_dict(state)))
    return tuple(out)


def paths(tree: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a parsed document (the root excluded), parents first."""
    if isinstance(tree, dict):
        items: Any = tree.items()
    elif isinstance(tree, list):
        items = enumerate(tree)
    else:
        return
    for key, value in items:
        here = (*prefix, key)
        yield here
        yield from paths(value, here)


def _get(tree: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


class _Raw(str):
    """A value serialised as the raw text it holds (a hostile literal)."""


class _DupDict(dict):  # type: ignore[type-arg]
    """A mapping that serialises one of its keys twice (the second value wins in parsers
    that accept duplicates; ours must refuse it in YAML)."""

    duplicate: str = ""
    second: Any = None


def to_json(value: Any, indent: str = "") -> str:
    """JSON text of a mutated tree: raw literals as they are, duplicate keys kept."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, dict):
        pairs = [(str(k), v) for k, v in value.items()]
        if isinstance(value, _DupDict):
            pairs.append((value.duplicate, value.second))
        inner = indent + "  "
        body = ",\n".join(f"{inner}{json.dumps(k)}: {to_json(v, inner)}" for k, v in pairs)
        return "{\n" + body + "\n" + indent + "}" if pairs else "{}"
    if isinstance(value, list):
        inner = indent + "  "
        body = ",\n".join(inner + to_json(v, inner) for v in value)
        return "[\n" + body + "\n" + indent + "]" if value else "[]"
    return json.dumps(value, ensure_ascii=False)


def _to_block_yaml(tree: Any) -> str:
    """Block-style YAML, the raw literals put back in place of their placeholders."""
    raws: list[str] = []

    def swap(value: Any) -> Any:
        if isinstance(value, _Raw):
            raws.append(str(value))
            return f"__raw_{len(raws) - 1}__"
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = yaml.safe_dump(swap(tree), allow_unicode=True, sort_keys=False, width=10_000)
    for i, raw in enumerate(raws):
        text = text.replace(f"__raw_{i}__", raw.replace("\n", " "), 1)
    return text


#: The bookkeeping places of a state document: where a state can validate and then crash.
BOOKKEEPING = ("data", "turn", "order", "pending", "combatants")


@st.composite
def mutated_tree(draw: st.DrawFn, tree: Any, focus: tuple[str, ...] = ()) -> Any:
    """``tree`` (deep-copied) changed at one to three random places (under ``focus``'s
    top-level keys only, when given)."""
    tree = json.loads(json.dumps(tree))
    for _ in range(draw(st.integers(1, 3))):
        places = [p for p in paths(tree) if not focus or (len(p) > 1 and p[0] in focus)]
        if not places:
            break
        where = draw(st.sampled_from(places))
        parent, key = _get(tree, where[:-1]), where[-1]
        op = draw(st.sampled_from(("hostile", "elsewhere", "delete", "duplicate", "nudge")))
        if op == "hostile":
            parent[key] = _Raw(draw(st.sampled_from(HOSTILE)))
        elif op == "elsewhere":
            other = _get(tree, draw(st.sampled_from(places)))
            parent[key] = json.loads(json.dumps(other)) if not isinstance(other, _Raw) else other
        elif op == "delete":
            del parent[key]
        elif op == "duplicate" and isinstance(parent, dict):
            dup = _DupDict(parent)
            dup.duplicate, dup.second = str(key), _Raw(draw(st.sampled_from(HOSTILE[4:12])))
            if where[:-1]:
                _get(tree, where[:-2])[where[-2]] = dup
            else:
                tree = dup
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, parent[key])
        elif isinstance(parent[key], int) and not isinstance(parent[key], bool):
            parent[key] += draw(st.sampled_from(_NUDGES))
        elif isinstance(parent[key], str):
            parent[key] = draw(st.sampled_from(("", "x", "ghost", parent[key] * 3)))
    return tree


@st.composite
def mutated_text(
    draw: st.DrawFn, sources: Any, as_yaml: bool, focus: tuple[str, ...] = ()
) -> tuple[str, str]:
    """(label, text): a mutated source serialised as YAML (block or flow) or JSON."""
    label, tree = draw(st.sampled_from(sources))
    tree = draw(mutated_tree(tree, focus))
    if as_yaml and draw(st.booleans()):
        text = _to_block_yaml(tree)
    else:
        text = to_json(tree) + "\n"
    damage = draw(st.sampled_from(("none",) * 6 + ("truncate", "flip")))
    if damage == "truncate":
        text = text[: draw(st.integers(0, len(text)))]
    elif damage == "flip":
        i = draw(st.integers(0, max(0, len(text) - 1)))
        byte = draw(st.sampled_from(("{", "]", ":", "\t", "\x00", "é", "'")))
        text = text[:i] + byte + text[i + 1 :]
    return label, text


def play_out(state: BattleState, seed: int = 0, limit: int = 20_000) -> int:
    """Play ``state`` to its end with random agents; return the decisions taken.

    Raises whatever the engine raises: an accepted state must never crash. ``limit``
    only guards the test against an endless battle (which would itself be a bug).
    """
    rng, agent, roller = random.Random(seed), RandomAgent(), RandomRoller(seed)
    steps = 0
    while state.outcome is None:
        assert steps < limit, f"no end after {limit} decisions"
        apply_action(state, agent.act(state, rng), roller, validate=True)
        steps += 1
    return steps
