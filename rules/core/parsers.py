"""The bounded YAML and JSON parsers every file a user gives goes through.

:func:`parse_yaml` and :func:`parse_json` parse a user's text into plain values
and bound what the parser accepts: nesting at most :data:`MAX_DEPTH` levels,
integers of at most :data:`MAX_INT_DIGITS` digits, finite numbers only (no NaN,
no infinity, also in JSON). YAML is read with the surprises of YAML 1.1 removed:

* aliases stand for at most :data:`MAX_ALIAS_NODES` values once expanded, and an
  alias never sits inside what it names: a "billion laughs" document is refused
  from the event stream, before anything is composed or built;
* booleans are YAML 1.2's (``true``, ``false``); ``yes``, ``no``, ``on``, ``off``
  are text;
* integers are decimal: hexadecimal, octal (``0o17`` and ``017``), binary and
  sexagesimal spellings are refused, as are sexagesimal floats;
* a JSON object's key appears once in it (json would keep the last value silently);
* a YAML or JSON value or key holds no control character but tab and line feed, even
  written as an escape (:data:`_CONTROL`);
* a mapping key is a scalar, appears once in its mapping (a duplicate is reported
  at the second key's line), and merge keys (``<<``) come before the mapping's own
  keys. The own keys override what is merged wherever they are written, so one
  written above the merge would read as if the merge replaced it. Among merged
  mappings the first listed wins.

Every failure is the caller's error class naming the file, the place (``line L,
column C`` or the field path) and the reason — never a ``RecursionError`` or
``ValueError`` escaping a parser.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import yaml

from escaramuza.rules.core.i18n import N_, _, _f

#: ``error(source, field, reason)`` builds the caller's error class.
ErrorFactory = Callable[[str, str, str], Exception]

#: Deepest nesting of lists and mappings a YAML or JSON file may have. The deepest the
#: project writes is about 8 (a state's pending attack inside ``data``); Python's parsers
#: and the validators recurse, so a file nested thousands deep must be stopped first.
MAX_DEPTH = 64

#: Longest integer a file may spell, in digits (more than any 64-bit value needs). Python
#: refuses to convert more than 4,300 digits and big ints are slow to compare and print.
MAX_INT_DIGITS = 19

#: Most values the aliases of a YAML document may stand for, counted as they would be
#: expanded (an alias of a list of ten values stands for eleven). A scenario's anchors and
#: merge keys stand for a few hundred at most; a "billion laughs" document (lists of nine
#: aliases of the list before, nine levels deep) stands for 9⁹, hundreds of millions, and
#: would hang every walk of the tree (the checks, the validators, the web page's views).
MAX_ALIAS_NODES = 10_000

_TAG = "tag:yaml.org,2002:"
_BOOL, _INT, _FLOAT, _MERGE, _STR, _TIMESTAMP, _VALUE = (
    _TAG + name for name in ("bool", "int", "float", "merge", "str", "timestamp", "value")
)


class _LongInteger(str):
    """An integer literal longer than :data:`MAX_INT_DIGITS`, kept as text until it is
    reported with its field path by :func:`check_tree` (the parser knows no path)."""


class _NonFinite(str):
    """A JSON number that is not finite (``NaN``, ``Infinity``, ``1e999``), kept as its
    text until :func:`check_tree` reports it with its field path."""


class _DuplicateKeys(dict[str, Any]):
    """A JSON object that spells a key twice, kept until :func:`check_tree` reports it with
    its field path (the parser knows no path). ``duplicate`` is the first key repeated."""

    duplicate: str


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: the object as ``json`` builds it, or a
    :class:`_DuplicateKeys` if a key repeats (``json`` would keep its last value)."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    seen: set[str] = set()
    flagged = _DuplicateKeys(value)
    for key, _value in pairs:
        if key in seen:
            flagged.duplicate = key
            break
        seen.add(key)
    return flagged


def _bounded_int(text: str) -> int | _LongInteger:
    digits = sum(ch.isdigit() for ch in text)
    if digits > MAX_INT_DIGITS or len(text) > 2 * MAX_INT_DIGITS:
        return _LongInteger(text)
    return int(text)


def _finite_float(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def _shown(text: str) -> str:
    """A value as a message quotes it: a hostile 1 MiB literal is cut."""
    return text if len(text) <= 24 else f"{text[:20]}…"


#: A UTF-16 surrogate code point: JSON's ``"\\ud800"`` escape reads as one when it is not
#: half of a pair. It is not a character: no UTF-8 text (a message, an answer, a saved
#: file) can hold it, so writing it out would fail far from where it came in.
_SURROGATE = re.compile("[\ud800-\udfff]")


def escaped(text: str) -> str:
    """``text`` with its surrogates written as escapes, so that a message can quote it."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _integer_base(text: str) -> str | None:
    """The base a YAML 1.1 integer is spelled in when it is not plain decimal, or None.

    YAML 1.1 (PyYAML) reads ``0x1F``, ``017``, ``0b101`` and ``190:20:30`` as integers;
    YAML 1.2 reads ``017`` as 17 and the sexagesimal one as text, so a file meaning
    either is ambiguous. ``0o17`` is YAML 1.2's octal (see :class:`StrictSafeLoader`).
    """
    body = text.replace("_", "")
    if body[:1] in ("+", "-"):
        body = body[1:]
    if ":" in body:
        return _("sexagesimal (base 60)")
    base = {"0x": N_("hexadecimal"), "0o": N_("octal"), "0b": N_("binary")}.get(body[:2].lower())
    if base is None and len(body) > 1 and body.startswith("0"):
        base = N_("octal")
    return None if base is None else _(base)


class _Refused(yaml.constructor.ConstructorError):
    """A document the loader refuses on purpose; ``problem`` is the whole reason."""

    def __init__(self, reason: str, mark: Any) -> None:
        super().__init__(None, None, reason, mark)  # type: ignore[no-untyped-call]  # PyYAML's


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictSafeLoader(_Base):  # type: ignore[misc]
    """PyYAML's safe loader (the C one when libyaml is there: the pure-Python parser
    runs at about 10 s per MB), stricter where YAML 1.1 surprises a user.

    Before anything is built, the composed document is checked
    (:meth:`construct_document`): every mapping key is a scalar, no key repeats in a
    mapping, merge keys come first. Booleans are YAML 1.2's (``true``, ``false``);
    ``yes``, ``no``, ``on``, ``off`` are text. An integer is decimal: the other YAML 1.1
    spellings are refused with their line. A number is finite. An explicit tag on text
    that is not of its type (``!!int abc``, ``!!bool yes``, ``!!timestamp x``) is refused
    with its line, not left to raise from PyYAML. An overlong decimal integer is kept as
    text for :func:`check_tree` to report with its field path.
    """

    def construct_document(self, node: Any) -> Any:
        self.check_document(node)
        return super().construct_document(node)

    def check_document(self, root: Any) -> None:
        """Refuse a non-scalar key, a duplicate key or a merge key after a mapping's own
        keys, anywhere in the composed document (each node once: an alias is the node it
        names). Done before construction, which flattens merges into the merged mappings."""
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
            elif isinstance(node, yaml.MappingNode):
                self._check_mapping(node)
                stack.extend(value for _, value in node.value)

    def _check_mapping(self, node: Any) -> None:
        keys: set[Any] = set()
        own_key = False
        for key_node, _value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                if isinstance(key_node, yaml.SequenceNode):
                    reason = _(
                        "a mapping key must be a plain scalar (a string or a number), not a list"
                    )
                else:
                    reason = _(
                        "a mapping key must be a plain scalar (a string or a number), not a mapping"
                    )
                raise _Refused(reason, key_node.start_mark)
            if key_node.tag == _MERGE:
                if own_key:
                    raise _Refused(
                        _(
                            "a merge key (<<) must come before the mapping's own keys: these "
                            "override what it merges wherever they are written"
                        ),
                        key_node.start_mark,
                    )
                continue  # "<<: *base" keys may repeat what they merge
            own_key = True
            if key_node.tag == _VALUE:  # a bare "=" key: text, as flatten_mapping makes it
                key_node.tag = _STR
            key = self.construct_object(key_node)
            try:
                hash(key)
            except TypeError:  # a scalar tagged as a collection: "? !!set x"
                raise _Refused(
                    _f(
                        "a mapping key must be a plain scalar (a string or a number), not a {type}",
                        type(key).__name__,
                    ),
                    key_node.start_mark,
                ) from None
            if key in keys:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    _f("duplicate key {key} (it appears earlier in the mapping)", repr(key)),
                    key_node.start_mark,
                )
            keys.add(key)

    def flatten_mapping(self, node: Any) -> None:
        """Replace the merge keys of ``node`` by the pairs they merge, as the YAML merge
        key spec has it: the mapping's own keys win over merged ones, and among merged
        mappings the first listed wins. Each key is kept once, compared by value
        (PyYAML's own compares the key strings' identities, so which value won depended
        on how long the key was). The work is bounded: a merged mapping is written out
        in the file or is an alias's, whose expansion :func:`_check_events` bounds by
        :data:`MAX_ALIAS_NODES`."""
        own: list[tuple[Any, Any]] = []
        merged: list[tuple[Any, Any]] = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE:
                if key_node.tag == _VALUE:
                    key_node.tag = _STR
                own.append((key_node, value_node))
                continue
            sources = (
                value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            )
            for source in sources:
                if not isinstance(source, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        _f(
                            "expected a mapping or list of mappings for merging, but found {node}",
                            source.id,
                        ),
                        source.start_mark,
                    )
                self.flatten_mapping(source)  # its own merges first: then it has none
                merged.extend(source.value)
        if not merged:
            return
        taken = {self.construct_object(key_node) for key_node, _ in own}
        kept: list[tuple[Any, Any]] = []
        for key_node, value_node in merged:
            key = self.construct_object(key_node)
            if key not in taken:
                taken.add(key)
                kept.append((key_node, value_node))
        node.value = kept + own

    def construct_yaml_int(self, node: Any) -> Any:
        text = self.construct_scalar(node)
        base = _integer_base(text)
        if base is not None:
            raise _Refused(
                _f(
                    "integer {text} is spelled in {base}; write it in decimal "
                    "(or quote it if it is text)",
                    _shown(text),
                    base,
                ),
                node.start_mark,
            )
        digits = text.replace("_", "")
        body = digits[1:] if digits[:1] in ("+", "-") else digits
        if not (body.isascii() and body.isdigit()):  # an explicit "!!int abc"
            raise _Refused(_f("{text} is not an integer", repr(_shown(text))), node.start_mark)
        value = _bounded_int(digits)
        return _LongInteger(text) if isinstance(value, _LongInteger) else value

    def construct_yaml_float(self, node: Any) -> Any:
        text = self.construct_scalar(node)
        if ":" in text:
            raise _Refused(
                _f(
                    "number {text} is spelled in sexagesimal (base 60); write it in "
                    "decimal (or quote it if it is text)",
                    _shown(text),
                ),
                node.start_mark,
            )
        try:
            value = super().construct_yaml_float(node)
        except (ValueError, IndexError):  # an explicit "!!float abc" or "!!float ''"
            raise _Refused(
                _f("{text} is not a number", repr(_shown(text))), node.start_mark
            ) from None
        if not math.isfinite(value):
            raise _Refused(
                _f("number {text} is not finite; NaN and infinities are refused", _shown(text)),
                node.start_mark,
            )
        return value

    def construct_yaml_bool(self, node: Any) -> bool:
        text: str = self.construct_scalar(node)
        if text.lower() not in ("true", "false"):  # "!!bool yes" is YAML 1.1's, not 1.2's
            raise _Refused(
                _f("{text} is not a boolean (true or false)", repr(_shown(text))), node.start_mark
            )
        return text.lower() == "true"

    def construct_yaml_timestamp(self, node: Any) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (AttributeError, ValueError):  # "!!timestamp x", "2001-13-01"
            text = self.construct_scalar(node)
            raise _Refused(
                _f("{text} is not a date or time", repr(_shown(text))), node.start_mark
            ) from None


StrictSafeLoader.add_constructor(_INT, StrictSafeLoader.construct_yaml_int)
StrictSafeLoader.add_constructor(_FLOAT, StrictSafeLoader.construct_yaml_float)
StrictSafeLoader.add_constructor(_BOOL, StrictSafeLoader.construct_yaml_bool)
StrictSafeLoader.add_constructor(_TIMESTAMP, StrictSafeLoader.construct_yaml_timestamp)
# YAML 1.2's booleans: only true and false (in three cases). YAML 1.1's yes/no/on/off
# become text, so "pv: yes" is not read as 1 by a lax number field.
StrictSafeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL]
    for first, resolvers in _Base.yaml_implicit_resolvers.items()
}
StrictSafeLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
# YAML 1.2's octal spelling, resolved as an integer only to be refused like YAML 1.1's.
StrictSafeLoader.add_implicit_resolver(_INT, re.compile(r"^[-+]?0o[0-7_]+$"), list("-+0"))


def _yaml_where(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    return _at(mark) if mark else "YAML"


def _at(mark: Any) -> str:
    return _f("line {line}, column {column}", mark.line + 1, mark.column + 1)


#: The control characters no value or key may hold, though YAML and JSON write them as
#: escapes (``"\e[2J"``, ``"\u001b"``): C0 but tab and line feed, DEL and C1. A scenario's
#: names and texts and a state file's condition tags are printed by ``escaramuza gm`` and
#: ``play``, and a terminal acts on such a character (clears the screen, retitles the
#: window) instead of showing it.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: A line break as PyYAML's marks count them (``\r\n`` is one).
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _control_reason(char: str) -> str:
    """Why a value holding the control character ``char`` (:data:`_CONTROL`) is refused."""
    return _f(
        "control character {char} (U+{code}) in a value: a name or text "
        "may not hold one, escaped or not (a terminal showing it would act "
        "on it)",
        repr(char),
        f"{ord(char):04X}",
    )


def _refused_character(
    text: str, index: int, char: str, source: str, error: ErrorFactory
) -> Exception:
    """The error for a character YAML does not allow in a file (a control character such
    as U+0007 or U+0000, a non-character, a lone surrogate) at ``text[index]``: its line
    and column, counted as for every other YAML error, and the character escaped."""
    breaks = list(_LINE_BREAK.finditer(text, 0, index))
    start = breaks[-1].end() if breaks else 0
    line, column = len(breaks), index - start
    mark = yaml.Mark(source, index, line, column, None, None)
    return error(
        source,
        _at(mark),
        _f(
            "YAML syntax error: character {char} (U+{code}) is not allowed in a YAML file",
            repr(char),
            f"{ord(char):04X}",
        ),
    )


def _check_events(text: str, source: str, error: ErrorFactory) -> None:
    """Refuse too deep a nesting and too large an alias expansion from the event stream,
    before the composer and the constructor (which recurse once per level) run.

    One pass, no recursion: each list, mapping or scalar's expanded size (the values it
    stands for, counting each alias as the size of what it names) is summed into the
    collection that holds it, and an anchor's is remembered when it closes. The aliases'
    sizes add up to what they would expand to.
    """
    open_collections: list[list[Any]] = []  # [anchor, size so far] of each open one
    sizes: dict[str, int] = {}  # anchor -> expanded size of the closed node it names
    expanded = 0
    for event in yaml.parse(text, Loader=StrictSafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_collections) >= MAX_DEPTH:
                raise error(
                    source,
                    _at(event.start_mark),
                    _f("lists and mappings are nested more than {depth} levels deep", MAX_DEPTH),
                )
            open_collections.append([event.anchor, 1])
            continue
        if isinstance(event, yaml.CollectionEndEvent):
            anchor, size = open_collections.pop()
        elif isinstance(event, yaml.ScalarEvent):
            anchor, size = event.anchor, 1
            control = _CONTROL.search(event.value)
            if control is not None:
                raise error(source, _at(event.start_mark), _control_reason(control.group()))
        elif isinstance(event, yaml.AliasEvent):
            anchor = None
            if any(held == event.anchor for held, _ in open_collections):
                raise error(
                    source,
                    _at(event.start_mark),
                    _f(
                        "alias *{name} is inside the list or mapping it names (a value that "
                        "contains itself)",
                        _shown(event.anchor),
                    ),
                )
            size = sizes.get(event.anchor, 1)  # an undefined one: the composer reports it
            expanded += size
            if expanded > MAX_ALIAS_NODES:
                raise error(
                    source,
                    _at(event.start_mark),
                    _f(
                        "the file's aliases (*name) would expand to more than {most} values; "
                        "a file may repeat at most that many through anchors and aliases",
                        MAX_ALIAS_NODES,
                    ),
                )
        elif isinstance(event, yaml.DocumentStartEvent):
            sizes.clear()  # anchors are a document's own
            continue
        else:
            continue
        if anchor is not None:
            sizes[anchor] = size
        if open_collections:
            open_collections[-1][1] += size


#: libyaml's problems that name a closing bracket: one message with the bracket as a field
#: (a catalog's msgid holds no lone brace).
_CLOSING = {"did not find expected ',' or ']'": "']'", "did not find expected ',' or '}'": "'}'"}
#: The problems libyaml (PyYAML's C parser, the one the loader uses where it is there) and
#: PyYAML's composer name in a file a user writes, marked for the catalog: each is said in
#: the user's language; any other as PyYAML words it.
YAML_PROBLEMS = frozenset(
    {
        N_("mapping values are not allowed in this context"),
        N_("block sequence entries are not allowed in this context"),
        N_("did not find expected key"),
        N_("did not find expected '-' indicator"),
        N_("did not find expected node content"),
        N_("did not find expected <document start>"),
        N_("did not find expected comment or line break"),
        N_("did not find expected alphabetic or numeric character"),
        N_("did not find the expected '>'"),
        N_("could not find expected ':'"),
        N_("found unexpected end of stream"),
        N_("found character that cannot start any token"),
        N_("found undefined tag handle"),
        N_("found unknown escape character"),
        N_("found unknown directive name"),
        N_("found duplicate %YAML directive"),
        N_("found incompatible YAML document"),
        N_("found an indentation indicator equal to 0"),
        N_("found a tab character where an indentation space is expected"),
        N_("found a tab character that violates indentation"),
        N_("found undefined alias"),
        *_CLOSING,
    }
)


def yaml_problem(problem: str) -> str:
    """PyYAML's ``problem`` in the current language; one this catalog does not know (the
    pure-Python parser's wording, another version's) as PyYAML words it."""
    if problem in _CLOSING:
        return _f("did not find expected ',' or {closing}", _CLOSING[problem])
    return _(problem) if problem in YAML_PROBLEMS else problem


def parse_yaml(text: str, source: str, error: ErrorFactory) -> Any:
    """The value of a YAML document, bounded (see the module docstring).

    A syntax error is ``error(source, "line L, column C", "YAML syntax error: …")``;
    a duplicate key names the second key's line, each refusal of
    :class:`StrictSafeLoader` and :func:`_check_events` the line of what it refuses.
    """
    try:
        _check_events(text, source, error)
        value = yaml.load(text, Loader=StrictSafeLoader)  # a safe loader
    except yaml.reader.ReaderError as exc:
        # Raised before any token, with no line: libyaml gives the byte offset, PyYAML the
        # character's. The first place the refused character appears is where it stopped.
        char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
        index = text.find(char)
        raise _refused_character(text, max(index, 0), char, source, error) from None
    except UnicodeEncodeError as exc:
        # A lone surrogate (a JSON string's escape U+D800 read into a string): libyaml
        # reads UTF-8 and cannot encode it.
        raise _refused_character(text, exc.start, text[exc.start], source, error) from None
    except _Refused as exc:
        raise error(source, _yaml_where(exc), str(exc.problem)) from None
    except yaml.constructor.ConstructorError as exc:
        # A duplicate key, an unknown tag (``!!python/object/apply`` is one: never built).
        raise error(source, _yaml_where(exc), _f("invalid YAML: {problem}", exc.problem)) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or _("invalid YAML")
        raise error(
            source, _yaml_where(exc), _f("YAML syntax error: {problem}", yaml_problem(problem))
        ) from None
    except RecursionError:  # pragma: no cover - the depth pass stops this first
        raise error(source, "", _f("nested more than {depth} levels deep", MAX_DEPTH)) from None
    check_tree(value, source, error)
    return value


#: The problems Python's json names (``JSONDecodeError.msg``, its C scanner's and its
#: own), marked for the catalog: each is said in the user's language (two end in "at":
#: the error's line and column say where).
JSON_PROBLEMS = frozenset(
    {
        N_("Expecting value"),
        N_("Expecting property name enclosed in double quotes"),
        N_("Expecting ':' delimiter"),
        N_("Expecting ',' delimiter"),
        N_("Extra data"),
        N_("Unterminated string starting at"),
        N_("Invalid control character at"),
        N_("Invalid \\escape"),
        N_("Invalid \\uXXXX escape"),
    }
)


def json_problem(problem: str) -> str:
    """json's ``problem`` in the current language; one this catalog does not know (another
    Python's wording) as json words it."""
    return _(problem) if problem in JSON_PROBLEMS else problem


def parse_json(text: str, source: str, error: ErrorFactory) -> Any:
    """The value of a JSON document, bounded (see the module docstring)."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_json_object,
            parse_int=_bounded_int,
            parse_float=_finite_float,
            parse_constant=_NonFinite,
        )
    except json.JSONDecodeError as exc:
        raise error(
            source,
            _f("line {line}, column {column}", exc.lineno, exc.colno),
            _f("not valid JSON: {problem}", json_problem(exc.msg)),
        ) from None
    except RecursionError:
        raise error(
            source, "", _f("lists and objects are nested more than {depth} levels deep", MAX_DEPTH)
        ) from None
    check_tree(value, source, error)
    return value


def _surrogate_error(text: str, where: str, source: str, error: ErrorFactory) -> Exception:
    """The error for a text holding a lone surrogate (a JSON ``\\ud800`` escape that is not
    half of a pair), which no UTF-8 file or answer can hold."""
    char = _SURROGATE.search(text)
    assert char is not None
    return error(
        source,
        where,
        _f(
            "text {text} holds a lone surrogate, {escape}: half of a UTF-16 pair without its "
            "other half, not a character",
            repr(_shown(text)),
            escaped(char.group()),
        ),
    )


def check_tree(value: Any, source: str, error: ErrorFactory) -> None:
    """Refuse too deep a nesting, an overlong integer, a number that is not finite or a
    JSON object with a duplicate key, naming its field (no recursion)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, _LongInteger):
            raise error(
                source,
                where or _("value"),
                _f("integer {digits}… has more than {most} digits", item[:12], MAX_INT_DIGITS),
            )
        if isinstance(item, _NonFinite):
            raise error(
                source,
                where or _("value"),
                _f("number {text} is not finite; NaN and infinities are refused", _shown(item)),
            )
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise _surrogate_error(item, where or _("value"), source, error)
            control = _CONTROL.search(item)
            if control is not None:
                raise error(source, where or _("value"), _control_reason(control.group()))
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise error(
                    source,
                    where or _("value"),
                    _f("lists and mappings are nested more than {depth} levels deep", MAX_DEPTH),
                )
            if isinstance(item, _DuplicateKeys):
                twice = item.duplicate
                raise error(
                    source,
                    f"{where}.{escaped(twice)}" if where else escaped(twice),
                    _f(
                        "duplicate key {key} (it appears earlier in the object)",
                        repr(_shown(twice)),
                    ),
                )
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, sub in pairs:
                if isinstance(key, _LongInteger):
                    raise error(source, where or _("value"), _f("key {key}… is too long", key[:12]))
                if isinstance(key, str) and _SURROGATE.search(key):
                    at = f"{where}.{escaped(key)}" if where else escaped(key)
                    raise _surrogate_error(key, at, source, error)
                control = _CONTROL.search(key) if isinstance(key, str) else None
                if control is not None:
                    # The key is quoted with its control characters escaped: the message
                    # is printed, and must not act on the terminal either.
                    shown = _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(key))
                    at = f"{where}.{shown}" if where else shown
                    raise error(source, at, _control_reason(control.group()))
                at = (
                    f"{where}[{key}]"
                    if isinstance(key, int)
                    else (f"{where}.{key}" if where else str(key))
                )
                stack.append((sub, at, depth + 1))
