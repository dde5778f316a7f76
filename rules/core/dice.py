"""Dice notation and rollers.

Every random number in a battle comes from one injected :class:`Roller`
(architecture.md, "Dice / Roller"): :class:`RandomRoller` in play,
:class:`ScriptedRoller` in tests and for dice the GM rolls at the table.
Notation is parsed once into a :class:`DiceExpr`; the hot loop only calls
``roller.roll(sides)``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import Protocol

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f, ngettext

#: Die sizes the rulesets use. d3 exists for a few damage tables; d100 is not used.
STANDARD_DICE: tuple[int, ...] = (2, 3, 4, 6, 8, 10, 12, 20)

# Bounds of a dice expression, for every ruleset at once: an expression comes from an
# untrusted file, and its cost is rolled on every hit and enumerated by the exact odds
# (:meth:`DiceExpr.distribution` has a value for every total between the minimum and the
# maximum). The rule texts write at most "2d10+3", "3d6" or "1d4"; these leave a GM's
# monster room while keeping every expression's span of totals at a few hundred and every
# total far inside int64 (a kernel rolls the terms in compiled code).

#: Longest expression text, in characters ("2d6+1d4+3" is 9).
MAX_DICE_TEXT = 64
#: Most terms (dice and constants) in one expression ("d6+d4-1" has 3).
MAX_DICE_TERMS = 8
#: Most dice one expression rolls, all terms together ("10d6" is 10).
MAX_DICE = 20
#: Most faces of one die (d20, the largest die the rule texts roll).
MAX_DIE_SIDES = 20
#: Largest constant of a term, and largest net modifier of an expression, either sign.
MAX_DICE_MODIFIER = 1000


class DiceError(EscaramuzaError):
    """A dice expression that is not valid notation."""


class ScriptError(EscaramuzaError):
    """A :class:`ScriptedRoller` ran out of dice or was asked for an unexpected die."""


class Roller(Protocol):
    """The single source of randomness of a battle."""

    def roll(self, sides: int, why: str = "") -> int:
        """Roll one die with ``sides`` faces; ``why`` names the roll for scripts and errors."""
        ...


class RandomRoller:
    """Seeded pseudo-random roller.

    ``random.Random`` is used rather than a numpy Generator because a battle rolls
    one die at a time and the stdlib generator is several times faster per call;
    both are fully determined by the seed.
    """

    __slots__ = ("_bits", "_rng", "seed")

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._bits = self._rng.getrandbits

    def roll(self, sides: int, why: str = "") -> int:
        # ``self._rng.randrange(sides) + 1`` done inline: CPython's randrange(n) is
        # _randbelow_with_getrandbits(n), this same rejection loop on getrandbits(k), so the
        # draws are the same ones from the same generator. randrange's argument handling
        # cost more than the draw: dice were a sixth of a search-heavy Donjon battle's time,
        # and this took about 10 % off it. A test checks the two agree die by die.
        if sides < 1:
            raise ValueError(f"a die needs at least one face, not {sides}")
        bits = self._bits
        k = sides.bit_length()
        r = bits(k)
        while r >= sides:
            r = bits(k)
        return r + 1

    def pool(self, count: int, sides: int) -> list[int]:
        """``count`` rolls of ``sides`` faces: :meth:`roll` ``count`` times, in one call
        (Donjon rolls a pool of dice for every test)."""
        if sides < 1:
            raise ValueError(f"a die needs at least one face, not {sides}")
        bits = self._bits
        k = sides.bit_length()
        out: list[int] = []
        for _n in range(count):
            r = bits(k)
            while r >= sides:
                r = bits(k)
            out.append(r + 1)
        return out

    def getstate(self) -> object:
        return self._rng.getstate()

    def setstate(self, state: object) -> None:
        self._rng.setstate(state)  # type: ignore[arg-type]


_SCRIPT_ITEM = re.compile(r"^d(\d+)\s*[=:]\s*(\d+)$")


@dataclass(frozen=True, slots=True)
class ScriptedDie:
    """One scripted result; ``sides`` None means "any die that can show ``value``"."""

    value: int
    sides: int | None = None

    @staticmethod
    def parse(item: int | str | tuple[int, int] | ScriptedDie) -> ScriptedDie:
        if isinstance(item, ScriptedDie):
            return item
        if isinstance(item, bool):
            raise ScriptError(_f("scripted die {item} is not a number", repr(item)))
        if isinstance(item, int):
            return ScriptedDie(item)
        if isinstance(item, tuple):
            sides, value = item
            return ScriptedDie(int(value), int(sides))
        match = _SCRIPT_ITEM.match(str(item).strip().lower())
        if not match:
            raise ScriptError(
                _f("scripted die {item} is not 'dN=V', (N, V) or an integer", repr(item))
            )
        return ScriptedDie(int(match.group(2)), int(match.group(1)))


def _roll_name(why: str) -> str:
    """The roll a scripted die was asked for, in the reader's language (the rules name
    their rolls with untranslated msgids)."""
    return _(why) if why else _("unnamed roll")


class ScriptedRoller:
    """Plays back a fixed list of results and fails loudly on any surprise.

    Items are integers (any die that can show that value) or ``"d8=7"`` /
    ``(8, 7)`` (exactly a d8 showing 7). Asking for more dice than scripted,
    for a die of another size, or for a value the die cannot show raises
    :class:`ScriptError` naming the roll, so a worked example cannot pass by
    consuming the wrong die.
    """

    __slots__ = ("_items", "_pos", "log")

    def __init__(self, items: Iterable[int | str | tuple[int, int] | ScriptedDie]) -> None:
        self._items: list[ScriptedDie] = [ScriptedDie.parse(i) for i in items]
        self._pos = 0
        #: (sides, value, why) of every die handed out, for assertions.
        self.log: list[tuple[int, int, str]] = []

    @property
    def remaining(self) -> int:
        return len(self._items) - self._pos

    def roll(self, sides: int, why: str = "") -> int:
        if self._pos >= len(self._items):
            raise ScriptError(
                _f(
                    "scripted dice ran out: a d{sides} was asked for ({why}) after {n} dice",
                    sides,
                    _roll_name(why),
                    len(self._items),
                )
            )
        item = self._items[self._pos]
        if item.sides is not None and item.sides != sides:
            raise ScriptError(
                _f(
                    "scripted die #{k} is a d{given}={value} but a d{sides} was asked for ({why})",
                    self._pos + 1,
                    item.sides,
                    item.value,
                    sides,
                    _roll_name(why),
                )
            )
        if not 1 <= item.value <= sides:
            raise ScriptError(
                _f(
                    "scripted die #{k} shows {value}, impossible on the d{sides} asked for ({why})",
                    self._pos + 1,
                    item.value,
                    sides,
                    _roll_name(why),
                )
            )
        self._pos += 1
        self.log.append((sides, item.value, why))
        return item.value

    def assert_exhausted(self) -> None:
        """Raise if scripted dice were left over (the example used fewer dice than written)."""
        if self.remaining:
            left = ", ".join(
                f"d{d.sides}={d.value}" if d.sides else str(d.value)
                for d in self._items[self._pos :]
            )
            raise ScriptError(
                ngettext(
                    "{n} scripted die was not used: {left}",
                    "{n} scripted dice were not used: {left}",
                    self.remaining,
                ).format(n=self.remaining, left=left)
            )


_TERM = re.compile(r"([+-]?)\s*(?:(\d*)d(\d+)(?:kh(\d+))?|(\d+))", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``count`` dice of ``sides`` faces, keeping the ``keep`` highest (None keeps all)."""

    count: int
    sides: int
    keep: int | None = None
    sign: int = 1


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A parsed expression such as ``d8``, ``2d10+3``, ``2d20kh1`` or ``d6+d4-1``."""

    terms: tuple[DiceTerm, ...]
    modifier: int = 0
    text: str = ""

    def roll(self, roller: Roller, why: str = "") -> tuple[int, tuple[int, ...]]:
        """Roll every die; return (total, the faces in the order rolled)."""
        total = self.modifier
        faces: list[int] = []
        for term in self.terms:
            rolled = [roller.roll(term.sides, why) for _ in range(term.count)]
            faces.extend(rolled)
            kept = sorted(rolled, reverse=True)[: term.keep] if term.keep else rolled
            total += term.sign * sum(kept)
        return total, tuple(faces)

    @property
    def minimum(self) -> int:
        return self.modifier + sum(
            t.sign * (t.keep or t.count) * (1 if t.sign > 0 else t.sides) for t in self.terms
        )

    @property
    def maximum(self) -> int:
        return self.modifier + sum(
            t.sign * (t.keep or t.count) * (t.sides if t.sign > 0 else 1) for t in self.terms
        )

    def distribution(self) -> dict[int, float]:
        """Exact probability of each total.

        Counted in whole numbers of equally likely outcomes, then divided once, so each
        probability is the correctly rounded ratio; the cost is polynomial in the number
        of dice and faces (a sum of dice is one sliding window per die), never the
        ``sides ** count`` outcomes themselves.
        """
        low = self.modifier
        ways = [1]
        outcomes = 1
        for term in self.terms:
            outcomes *= term.sides**term.count
            if term.keep is None or term.keep == term.count:
                # A sum of dice has the same counts read from either end, so a subtracted
                # term only moves the lowest total (to −count·sides).
                for _ in range(term.count):
                    ways = _add_die(ways, term.sides)
                low += term.sign * term.count * (1 if term.sign > 0 else term.sides)
            else:
                term_low, term_ways = _keep_highest_ways(term.count, term.sides, term.keep)
                if term.sign < 0:
                    term_ways = term_ways[::-1]
                    term_low = -(term_low + len(term_ways) - 1)
                ways = _convolve(ways, term_ways)
                low += term_low
        return {low + i: w / outcomes for i, w in enumerate(ways) if w}

    def mean(self) -> float:
        return sum(v * p for v, p in self.distribution().items())

    def __str__(self) -> str:
        return self.text


def _add_die(ways: list[int], sides: int) -> list[int]:
    """``ways`` convolved with one die of ``sides`` equally likely faces (a sliding sum)."""
    out = [0] * (len(ways) + sides - 1)
    window = 0
    for i in range(len(out)):
        if i < len(ways):
            window += ways[i]
        if i >= sides:
            window -= ways[i - sides]
        out[i] = window
    return out


def _convolve(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def _keep_highest_ways(count: int, sides: int, keep: int) -> tuple[int, list[int]]:
    """(lowest total, ways of each total from it) of the ``keep`` highest of ``count`` dice.

    The faces are walked from the highest down: a state is how many dice showed a higher
    face (all of them kept while fewer than ``keep``) and their sum; at each face some of
    the other dice show it, and once ``keep`` dice are placed the rest only need to show
    less. Polynomial in the dice and faces, where listing the outcomes is exponential.
    """
    totals: dict[int, int] = {}
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for face in range(sides, 0, -1):
        nxt: dict[tuple[int, int], int] = {}
        for (placed, total), w in states.items():
            left = count - placed
            for j in range(left + 1):
                ways = w * comb(left, j)
                if placed + j >= keep:
                    below = left - j
                    rest = (face - 1) ** below
                    if rest:
                        final = total + (keep - placed) * face
                        totals[final] = totals.get(final, 0) + ways * rest
                else:
                    key = (placed + j, total + j * face)
                    nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    low = min(totals)
    out = [0] * (max(totals) - low + 1)
    for total, w in totals.items():
        out[total - low] = w
    return low, out


def _shown(src: str) -> str:
    """An expression as an error quotes it: cut, since the text may be a whole file."""
    return repr(src if len(src) <= MAX_DICE_TEXT else src[:MAX_DICE_TEXT] + "…")


def _constant_problem(shown: str) -> str:
    """Why a constant of the expression ``shown`` is refused (its size)."""
    return _f("{dice}: a constant must be -{most} to {most}", shown, MAX_DICE_MODIFIER)


def _dice_term(src: str, match: re.Match[str], sign: int) -> DiceTerm:
    """The dice term ``match`` read in ``src``, within the bounds."""
    count = int(match.group(2) or 1)
    sides = int(match.group(3))
    keep = int(match.group(4)) if match.group(4) else None
    if count < 1 or count > MAX_DICE:
        raise DiceError(_f("{dice}: dice count must be 1 to {most}", repr(src), MAX_DICE))
    if sides < 2 or sides > MAX_DIE_SIDES:
        raise DiceError(_f("{dice}: a die has 2 to {most} faces", repr(src), MAX_DIE_SIDES))
    if keep is not None and not 1 <= keep <= count:
        raise DiceError(_f("{dice}: can keep 1 to {count} dice", repr(src), count))
    return DiceTerm(count, sides, keep, sign)


def parse_dice(text: str | int) -> DiceExpr:
    """Parse dice notation; raise :class:`DiceError` with the reason if it is not valid
    or exceeds a bound (:data:`MAX_DICE_TEXT`, :data:`MAX_DICE_TERMS`, :data:`MAX_DICE`,
    :data:`MAX_DIE_SIDES`, :data:`MAX_DICE_MODIFIER`)."""
    if isinstance(text, bool):
        raise DiceError(_f("{dice} is not dice notation", repr(text)))
    if isinstance(text, int):
        if abs(text) > MAX_DICE_MODIFIER:
            raise DiceError(_constant_problem(str(text)))
        return DiceExpr((), text, str(text))
    src = str(text).strip()
    if not src:
        raise DiceError(_("empty dice expression"))
    # Before any parsing: the number of digits read below must stay small.
    if len(src) > MAX_DICE_TEXT:
        raise DiceError(
            _f(
                "{dice}: a dice expression is at most {most} characters, not {n}",
                _shown(src),
                MAX_DICE_TEXT,
                len(src),
            )
        )
    pos = 0
    terms: list[DiceTerm] = []
    modifier = 0
    dice = 0
    count_terms = 0
    compact = src.replace(" ", "")
    while pos < len(compact):
        match = _TERM.match(compact, pos)
        if not match or match.end() == pos:
            raise DiceError(
                _f("{dice} is not dice notation (expected e.g. 'd8', '2d10+3')", repr(src))
            )
        if pos > 0 and not match.group(1):
            raise DiceError(_f("{dice} is not dice notation (missing '+' or '-')", repr(src)))
        count_terms += 1
        if count_terms > MAX_DICE_TERMS:
            raise DiceError(
                _f("{dice}: at most {most} terms (dice and constants)", repr(src), MAX_DICE_TERMS)
            )
        sign = -1 if match.group(1) == "-" else 1
        if match.group(3):
            term = _dice_term(src, match, sign)
            dice += term.count
            if dice > MAX_DICE:
                raise DiceError(
                    _f("{dice}: at most {most} dice in all terms together", repr(src), MAX_DICE)
                )
            terms.append(term)
        else:
            constant = int(match.group(5))
            if constant > MAX_DICE_MODIFIER:
                raise DiceError(_constant_problem(repr(src)))
            modifier += sign * constant
        pos = match.end()
    if abs(modifier) > MAX_DICE_MODIFIER:
        raise DiceError(
            _f(
                "{dice}: the constants add up to {total}; the modifier must be -{most} to {most}",
                repr(src),
                modifier,
                MAX_DICE_MODIFIER,
            )
        )
    return DiceExpr(tuple(terms), modifier, src)


def parse_die(text: str | int) -> int:
    """Parse a single characteristic die such as ``d8`` and return its size."""
    if isinstance(text, int) and not isinstance(text, bool) and text in STANDARD_DICE:
        return text
    try:
        expr = parse_dice(text) if isinstance(text, str) else None
    except DiceError:
        # "cuerpo: eight" must say a single die is wanted, not suggest "2d10+3".
        expr = None
    if (
        expr is None
        or expr.modifier
        or len(expr.terms) != 1
        or expr.terms[0].count != 1
        or expr.terms[0].sign != 1
        or expr.terms[0].sides not in STANDARD_DICE
    ):
        names = ", ".join(f"d{d}" for d in STANDARD_DICE)
        raise DiceError(_f("{dice} is not a single die (one of {known})", repr(text), names))
    return expr.terms[0].sides


def die_name(sides: int) -> str:
    return f"d{sides}"


def roll_pool(roller: Roller, count: int, sides: int, why: str = "") -> list[int]:
    """Roll ``count`` dice of ``sides`` faces (pool systems such as Donjon)."""
    if type(roller) is RandomRoller:
        # The same dice as the loop below, without a Python call per die.
        return roller.pool(count, sides)
    return [roller.roll(sides, why) for _ in range(count)]


def faces_text(faces: Sequence[int]) -> str:
    return ", ".join(str(f) for f in faces)
