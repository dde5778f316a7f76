"""The API half of the hostile-input fuzz suite: hostile uploads never make the server fail.

Every shipped scenario's YAML and a saved state of each ruleset (a battle a few
decisions in, downloaded from ``GET /api/state``) are mutated by hypothesis — a value
swapped for a hostile one (a 5,000-digit integer, 1,000 nested lists, NaN, a long
string, a wrong type), a key removed or added, a list item repeated, the text cut short
or a byte changed — and posted to ``POST /api/battle/upload`` and ``POST /api/state``.

Each answer must be a 2xx or a 4xx, never a 5xx, and fit ``/openapi.json`` (checked
with jsonschema). A battle the server accepted must then answer ``/api/suggest`` and
``/api/apply`` without a 5xx. The runs are derandomized (the same examples every time)
and bounded (``max_examples``, no shrinking): every example is recorded, and the test
fails at the end with the count of tried, accepted and refused uploads and each distinct
server error, its exception and where it was raised.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from escaramuza.rules.core.scenario import shipped_scenarios
from tests.web.web_helpers import client

#: A battle of each ruleset whose state is mutated (a few decisions in, so that the
#: per-combatant and per-battle bookkeeping is filled in).
STATE_SOURCES = (
    "destiny_dice/emboscada",
    "donjon/emboscada",
    "cairn/emboscada_goblin",
    "sistema_2d10/escuadra",
)
DECISIONS_BEFORE_SAVE = 5
#: About a minute for the whole file on one core (a fifth of a second an upload, with
#: the battle played on when it is accepted).
SCENARIO_EXAMPLES = 12  # per shipped scenario
STATE_EXAMPLES = 35  # per ruleset
#: Stand-ins that the dumped text replaces with a 5,000-digit integer and lists nested
#: 1,000 (YAML) or 5,000 (JSON) deep: the standard dumpers cannot write those (Python
#: refuses int→str past 4,300 digits; the dumpers recurse).
BIG_INT, DEEP_LIST = "ZZBIGINTZZ", "ZZDEEPLISTZZ"
#: Hostile values by kind; a kind is drawn first, so that the rare ones come up as
#: often as the simple ones (hypothesis favours the first values of a list).
HOSTILE_KINDS: dict[str, st.SearchStrategy[Any]] = {
    "digits": st.just(BIG_INT),
    "deep": st.just(DEEP_LIST),
    "empty": st.sampled_from([None, "", [], {}]),
    "bool": st.booleans(),
    "int": st.integers(-(10**6), 10**6),
    "extreme int": st.sampled_from([-(2**63), 2**63, 2**64 + 1, -(10**18)]),
    "float": st.sampled_from([1.5, -0.0, float("nan"), float("inf"), float("-inf"), 1e308]),
    "long text": st.just("x" * 5000),
    "text": st.text(max_size=12),
    "path": st.sampled_from(["../../etc/passwd", "/dev/zero", "/proc/self/environ"]),
    "nested": st.sampled_from([[["a"]], {"a": {"b": []}}, [{}]]),
    "type tag": st.sampled_from(
        [
            {"$type": "escaramuza.__main__"},
            {"$type": "os:system", "fields": {}},
            {"$enum": "escaramuza.rules.core.model:Status", "value": 9},
        ]
    ),
}
HOSTILE = st.sampled_from(sorted(HOSTILE_KINDS)).flatmap(lambda kind: HOSTILE_KINDS[kind])

# -- the record of a run -------------------------------------------------------------


class ServerErrors(logging.Handler):
    """Collects the exceptions the app logs with its bare 500 answers."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(frame.filename).name}:{frame.lineno}"
            self.seen.append(f"{type(exc).__name__} at {where}: {str(exc)[:160]}")


class Record:
    """Outcomes of one fuzz run, by kind; the distinct server errors with a reproducer."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.crashes: dict[str, str] = {}
        self.schema_errors: dict[str, str] = {}

    def summary(self, what: str) -> str:
        lines = [f"{what}: {dict(sorted(self.counts.items()))}"]
        lines += [f"  5xx {kind}\n    after: {how[:300]}" for kind, how in self.crashes.items()]
        lines += [
            f"  schema {kind}\n    after: {how[:300]}" for kind, how in self.schema_errors.items()
        ]
        return "\n".join(lines)


@pytest.fixture()
def server_errors() -> Iterator[ServerErrors]:
    handler = ServerErrors()
    logger = logging.getLogger("escaramuza.web")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


# -- the API and its schema ------------------------------------------------------------


@cache
def openapi() -> dict[str, Any]:
    return client().get("/openapi.json").json()  # type: ignore[no-any-return]


def check_answer(r: Any, model: str, record: Record, errors: ServerErrors, how: str) -> bool:
    """Record one answer; True if it is a 2xx. A 5xx or a body off the schema is a fault."""
    if r.status_code >= 500:
        kind = errors.seen[-1] if errors.seen else f"{r.status_code} {r.text[:160]}"
        record.counts["5xx"] += 1
        record.crashes.setdefault(kind, how)
        return False
    ok = r.status_code < 300
    schema = {
        "$ref": f"#/components/schemas/{model if ok else 'ErrorView'}",
        "components": openapi()["components"],
    }
    try:
        jsonschema.Draft202012Validator(schema).validate(r.json())
    except (jsonschema.ValidationError, ValueError) as exc:
        record.schema_errors.setdefault(f"{r.status_code} {str(exc)[:160]}", how)
    return ok


def play_on(c: Any, record: Record, errors: ServerErrors, how: str) -> None:
    """An accepted battle answers a suggestion and a few applied actions without a 5xx."""
    for step in ("suggest", "apply", "apply", "apply"):
        if step == "suggest":
            r = c.post("/api/suggest", json={"iterations": 4})
            model = "SuggestionsView"
        else:
            r = c.post("/api/apply", json={"index": 1})
            model = "ApplyView"
        if not check_answer(r, model, record, errors, f"{how}, then {step}"):
            return
    record.counts["played"] += 1


# -- mutations ------------------------------------------------------------------------------


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in items:
        yield from _paths(child, (*prefix, key))


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


def mutate(doc: Any, data: Any) -> tuple[Any, list[str]]:
    """``doc`` (a deep copy) with one to three structural mutations; their description."""
    doc = json.loads(json.dumps(doc))
    done: list[str] = []
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = [p for p in _paths(doc) if p]
        path = data.draw(st.sampled_from(paths), label="path")
        parent, key = _parent(doc, path), path[-1]
        kind = data.draw(
            st.sampled_from(["replace", "replace", "replace", "delete", "add", "repeat", "swap"]),
            label="kind",
        )
        if kind == "replace":
            parent[key] = data.draw(HOSTILE, label="value")
        elif kind == "delete":
            del parent[key]
        elif kind == "add" and isinstance(parent, dict):
            added = data.draw(st.sampled_from(["extra", "$type", "id", "data"]), label="key")
            parent[added] = data.draw(HOSTILE, label="value")
            kind = f"add {added!r} beside"
        elif kind == "repeat" and isinstance(parent, list):
            parent.append(json.loads(json.dumps(parent[key])))
        elif kind == "swap":
            # Another part of the same document: a wrong type that still looks real.
            other = data.draw(st.sampled_from(paths), label="other")
            parent[key] = json.loads(json.dumps(_parent(doc, other)[other[-1]]))
            kind = f"swap with {'.'.join(map(str, other))}:"
        else:
            continue
        done.append(f"{kind} {'.'.join(map(str, path))}")
    return doc, done


def expand(text: str, quote: str, depth: int) -> str:
    return text.replace(f"{quote}{BIG_INT}{quote}", "1" * 5000).replace(
        f"{quote}{DEEP_LIST}{quote}", "[" * depth + "]" * depth
    )


def mangle_text(text: str, data: Any) -> tuple[str, str]:
    """The text cut short or with one character changed (a byte-level mutation)."""
    at = data.draw(st.integers(0, max(len(text) - 1, 0)), label="at")
    if data.draw(st.booleans(), label="cut"):
        return text[:at], f"cut at {at}"
    char = data.draw(st.sampled_from(list(":-[]{}&*!|>'\"#%@`\t\n ,?0")), label="char")
    return text[:at] + char + text[at + 1 :], f"{char!r} at {at}"


def run_fuzz(examples: int, one: Callable[[Any], None]) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def each(data: Any) -> None:
        one(data)

    each()


def fuzz_uploads(
    what: str,
    path: str,
    filename: str,
    text: str,
    dump: Callable[[Any], str],
    examples: int,
    errors: ServerErrors,
) -> None:
    """Post ``examples`` mutations of ``text`` (parsed, mutated, ``dump``-ed back; one in
    four mangled as text) to ``path``; fail with the record if any answer was a 5xx."""
    base = json.loads(text) if filename.endswith(".json") else yaml.safe_load(text)
    c = client(raise_server_exceptions=False)
    record = Record()
    # The unmutated file is accepted: the mutations start from a good document.
    r = c.post(path, files={"file": (filename, text.encode())})
    assert r.status_code == 200, r.text

    def one(data: Any) -> None:
        if data.draw(st.integers(0, 3), label="text or tree") == 0:
            body, how = mangle_text(text, data)
        else:
            doc, done = mutate(base, data)
            body, how = dump(doc), "; ".join(done)
        how = f"{what}: {how}"
        record.counts["tried"] += 1
        r = c.post(path, files={"file": (filename, body.encode())})
        if check_answer(r, "BattleView", record, errors, how):
            record.counts["accepted"] += 1
            play_on(c, record, errors, how)
        elif r.status_code < 500:
            record.counts["refused"] += 1

    run_fuzz(examples, one)
    print(record.summary(what))  # the counts, shown with pytest -s
    assert record.counts["tried"] > 0
    assert not record.crashes and not record.schema_errors, record.summary(what)


# -- scenario uploads ------------------------------------------------------------------------


def _yaml(doc: Any) -> str:
    return expand(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), "", 1000)


@pytest.mark.compile
@pytest.mark.parametrize("name", list(shipped_scenarios()))
def test_mutated_scenario_uploads_never_fail_the_server(
    name: str, server_errors: ServerErrors
) -> None:
    text = Path(shipped_scenarios()[name]).read_text(encoding="utf-8")
    fuzz_uploads(
        name, "/api/battle/upload", "fuzz.yaml", text, _yaml, SCENARIO_EXAMPLES, server_errors
    )


# -- state uploads ------------------------------------------------------------------------------


@cache
def saved_state(name: str) -> str:
    """The state file of a battle of ``name`` a few decisions in, as the page saves it."""
    c = client()
    assert c.post("/api/battle", json={"scenario": name, "seed": 2}).status_code == 200
    for _ in range(DECISIONS_BEFORE_SAVE):
        if c.post("/api/apply", json={"index": 1}).status_code != 200:
            break
    r = c.get("/api/state")
    assert r.status_code == 200
    return r.text


def _json(doc: Any) -> str:
    return expand(json.dumps(doc, ensure_ascii=False), '"', 5000)


@pytest.mark.compile
@pytest.mark.parametrize("name", STATE_SOURCES)
def test_mutated_state_uploads_never_fail_the_server(
    name: str, server_errors: ServerErrors
) -> None:
    fuzz_uploads(
        f"{name} state",
        "/api/state",
        "fuzz.json",
        saved_state(name),
        _json,
        STATE_EXAMPLES,
        server_errors,
    )


# -- the hostile-input reproducers, posted to the API ------------------------------------


def _state_with(name: str, change: Callable[[dict[str, Any]], None]) -> str:
    doc = json.loads(saved_state(name))
    change(doc)
    return json.dumps(doc)


def _set_type(doc: Any, to: str) -> None:
    """Every ``$type`` of the document names ``to`` instead."""
    if isinstance(doc, dict):
        if "$type" in doc:
            doc["$type"] = to
        for v in doc.values():
            _set_type(v, to)
    elif isinstance(doc, list):
        for v in doc:
            _set_type(v, to)


def _combatants_data(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        for c in doc["combatants"]:
            if key in c["data"]:
                c["data"][key] = value

    return change


def _battle_data(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        data = doc.get("data", doc)
        assert key in json.dumps(doc)
        data[key] = value

    return change


DUEL_TEXT = Path(shipped_scenarios()["destiny_dice/brann-vs-saqueador"]).read_text("utf-8")
GOBLINS_TEXT = Path(shipped_scenarios()["cairn/emboscada_goblin"]).read_text("utf-8")
#: (what, item, path, body); item is the kind of hostile input, numbered as the sections of
#: tests/fuzz/test_hostile_input_regressions.py are. The upload's answer must be a 4xx, or a 2xx
#: whose battle then answers /api/suggest and /api/apply without a 5xx.
REPRODUCERS: list[tuple[str, int, str, Callable[[], str]]] = [
    (
        "state $type escaramuza.__main__",
        2,
        "/api/state",
        lambda: _state_with("donjon/emboscada", lambda d: _set_type(d, "escaramuza.__main__:main")),
    ),
    (
        "state $type escaramuza.training.train",
        2,
        "/api/state",
        lambda: _state_with(
            "donjon/emboscada", lambda d: _set_type(d, "escaramuza.training.train:Trainer")
        ),
    ),
    (
        "state version of 5,000 digits",
        4,
        "/api/state",
        lambda: _state_with("cairn/emboscada_goblin", lambda d: d.update(version=BIG_INT)).replace(
            f'"{BIG_INT}"', "9" * 5000
        ),
    ),
    (
        "state with 5,000 nested lists",
        4,
        "/api/state",
        lambda: _state_with("cairn/emboscada_goblin", lambda d: d.update(order=DEEP_LIST)).replace(
            f'"{DEEP_LIST}"', "[" * 5000 + "]" * 5000
        ),
    ),
    (
        "state order [['a']]",
        4,
        "/api/state",
        lambda: _state_with("cairn/emboscada_goblin", lambda d: d.update(order=[["a"]])),
    ),
    (
        "state scenario of 5,000 characters",
        4,
        "/api/state",
        lambda: _state_with("cairn/emboscada_goblin", lambda d: d.update(scenario="a" * 5000)),
    ),
    (
        "state scenario /dev/zero",
        3,
        "/api/state",
        lambda: _state_with("cairn/emboscada_goblin", lambda d: d.update(scenario="/dev/zero")),
    ),
    (
        "state data.acted a large negative integer",
        5,
        "/api/state",
        lambda: _state_with("donjon/emboscada", _combatants_data("acted", -(10**18))),
    ),
    (
        "state data.turn_actor 5",
        5,
        "/api/state",
        lambda: _state_with("destiny_dice/emboscada", _battle_data("turn_actor", 5)),
    ),
    (
        "scenario pv of 5,000 digits",
        4,
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: " + "1" * 5000, 1),
    ),
    (
        "scenario with 800 nested lists",
        4,
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: " + "[" * 800 + "]" * 800, 1),
    ),
    (
        "cairn template [goblin]",
        4,
        "/api/battle/upload",
        lambda: GOBLINS_TEXT.replace("template: goblin", "template: [goblin]", 1),
    ),
    (
        "scenario with a duplicate key",
        7,
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: 16\n    pv: 99", 1),
    ),
]


@pytest.mark.parametrize(
    ("what", "item", "path", "body"), REPRODUCERS, ids=[r[0] for r in REPRODUCERS]
)
def test_hostile_reproducers_get_a_4xx_or_a_playable_battle(
    what: str, item: int, path: str, body: Callable[[], str], server_errors: ServerErrors
) -> None:
    c = client(raise_server_exceptions=False)
    record = Record()
    name = "fuzz.json" if path == "/api/state" else "fuzz.yaml"
    modules = set(sys.modules)
    r = c.post(path, files={"file": (name, body().encode())})
    # A state file names data, never code to load: nothing of training (torch) or the
    # command line may be imported by reading one.
    imported = {
        m
        for m in set(sys.modules) - modules
        if m.split(".")[0] == "torch"
        or m.startswith(("escaramuza.training", "escaramuza.__main__"))
    }
    assert not imported, f"{what}: the upload imported {sorted(imported)}"
    how = f"item {item}: {what}"
    if check_answer(r, "BattleView", record, server_errors, how):
        play_on(c, record, server_errors, how)
    assert not record.crashes and not record.schema_errors, record.summary(how)
    if item == 7:  # duplicate keys are refused, naming the second key's line
        assert r.status_code == 400 and "line" in r.json()["detail"], r.text
    if item in (2, 3, 4) and r.status_code >= 400:
        assert "fuzz." in r.json()["detail"]  # the message names the file


def _resources(value: int, first_only: bool = False) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        for c in doc["combatants"][: 1 if first_only else None]:
            for key in c["resources"]:
                c["resources"][key] = value

    return change


DUEL_2D10_TEXT = Path(shipped_scenarios()["sistema_2d10/duelo"]).read_text("utf-8")
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)
#: (what, path, body): states that validated and then crashed or misled the kernels,
#: scenarios that hung or overflowed them, and YAML that hung or broke the loader. Each
#: must be refused with a 4xx naming the reason, or give a battle that then answers
#: /api/suggest and /api/apply without a 5xx.
HOSTILE_UPLOADS: list[tuple[str, str, Callable[[], str]]] = [
    (
        "state pv -9e18",
        "/api/state",
        lambda: _state_with(
            "destiny_dice/emboscada", _resources(-9_000_000_000_000_000_000, first_only=True)
        ),
    ),
    (
        "state pv -5",
        "/api/state",
        lambda: _state_with("destiny_dice/emboscada", _resources(-5, first_only=True)),
    ),
    (
        "cairn state with every resource at -9e18",
        "/api/state",
        lambda: _state_with("cairn/emboscada_goblin", _resources(-9_000_000_000_000_000_000)),
    ),
    (
        "state turn 10**18",
        "/api/state",
        lambda: _state_with("donjon/emboscada", lambda d: d.update(turn=10**18)),
    ),
    (
        "state order empty",
        "/api/state",
        lambda: _state_with("destiny_dice/emboscada", lambda d: d.update(order=[])),
    ),
    (
        "scenario pv 1000000",
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: 1000000", 1),
    ),
    (
        "scenario pv 9e18",
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: 9000000000000000000", 1),
    ),
    (
        "a 19-digit dice modifier",
        "/api/battle/upload",
        lambda: DUEL_2D10_TEXT.replace('"1d10+2"', '"1d10+9000000000000000000"', 1),
    ),
    ("an alias bomb", "/api/battle/upload", lambda: DUEL_TEXT + "\n" + BOMB),
    (
        "a hexadecimal pv",
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: 0x7fffffffffffffff", 1),
    ),
    (
        "a sexagesimal pv",
        "/api/battle/upload",
        lambda: DUEL_TEXT.replace("pv: 16", "pv: 190:20:30", 1),
    ),
    ("pv: yes", "/api/battle/upload", lambda: DUEL_TEXT.replace("pv: 16", "pv: yes", 1)),
    ("a list as a key", "/api/battle/upload", lambda: DUEL_TEXT + "\n? [a, b]\n: 1\n"),
]


@pytest.mark.parametrize(
    ("what", "path", "body"), HOSTILE_UPLOADS, ids=[h[0] for h in HOSTILE_UPLOADS]
)
def test_hostile_uploads_are_refused_with_a_4xx(
    what: str, path: str, body: Callable[[], str], server_errors: ServerErrors
) -> None:
    c = client(raise_server_exceptions=False)
    record = Record()
    name = "fuzz.json" if path == "/api/state" else "fuzz.yaml"
    r = c.post(path, files={"file": (name, body().encode())})
    if check_answer(r, "BattleView", record, server_errors, what):
        play_on(c, record, server_errors, what)
    assert not record.crashes and not record.schema_errors, record.summary(what)
    # None of these is a battle the rules can reach: each is refused, naming the file.
    assert 400 <= r.status_code < 500, (what, r.status_code, r.text[:300])
    assert "fuzz." in r.json()["detail"], r.text[:300]
