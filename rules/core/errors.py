"""Errors a user can cause. The CLI prints their message and exits 2, no traceback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Longest reason an error message carries: a hostile file's value (a 5,000-character
#: name) is shown cut, so the CLI's error stays one readable line.
MAX_REASON = 400


#: Most problems of one file ``escaramuza validate`` lists; the rest are counted. More
#: than a hand-written file has (a stat block of every combatant written with retired
#: keys is a few dozen), far fewer than a 1 MiB file can hold (tens of thousands of
#: unknown keys), which no one reads one line each.
MAX_LISTED_PROBLEMS = 100


def clip(text: str, limit: int = MAX_REASON) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


class EscaramuzaError(Exception):
    """Base class of every error caused by input: files, names, actions."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a file: the field path and the reason.

    ``value`` and ``known`` are set where the problem is a name that is not among
    the known ones (an unknown zone, ruleset, temperament, field…), so the message
    can offer a "did you mean". ``at_key`` marks a problem with
    the key itself (a retired key): its line is the key's. ``line`` is the 1-based
    line of the field in the file, where the loader knows it.
    """

    field: str
    reason: str
    value: str | None = None
    known: tuple[str, ...] = ()
    at_key: bool = False
    line: int | None = None


class ScenarioError(EscaramuzaError):
    """A scenario (or data table) that cannot be used: names the file, the field and the reason.

    The message is the first problem (and how many more there are), one line for
    ``escaramuza play``; :attr:`problems` holds every problem found, which
    ``escaramuza validate`` lists (the first :data:`MAX_LISTED_PROBLEMS`, and how many
    more there are).
    """

    def __init__(
        self, source: str, field: str, reason: str, problems: Sequence[Problem] = ()
    ) -> None:
        self.source = source
        self.field = clip(field, 120)
        self.reason = reason = clip(reason)
        self.problems: tuple[Problem, ...] = tuple(problems) or (Problem(self.field, reason),)
        where = f"{source}: {self.field}" if field else source
        super().__init__(f"{where}: {reason}")

    @classmethod
    def of(cls, source: str, problems: Sequence[Problem]) -> ScenarioError:
        """One error for several problems: the first one's message, all in :attr:`problems`.

        The message adds the first problem's "did you mean" (a known name close to the
        one written) and its line, where known: ``play`` prints this one line.
        """
        from escaramuza.rules.core.i18n import _f, ngettext
        from escaramuza.rules.core.vocabulary import did_you_mean

        first = problems[0]
        close = did_you_mean(first.value, first.known)
        hint = _f(", did you mean {name}?", repr(close)) if close else ""
        line = _f(" (line {line})", first.line) if first.line else ""
        more = ""
        n = len(problems) - 1
        if len(problems) > MAX_LISTED_PROBLEMS:
            more = ngettext(
                " (and {n} more problem; `escaramuza validate {source}` lists the first {listed})",
                " (and {n} more problems; `escaramuza validate {source}` lists the first {listed})",
                n,
            ).format(n=n, source=source, listed=MAX_LISTED_PROBLEMS)
        elif n:
            more = ngettext(
                " (and {n} more problem; `escaramuza validate {source}` lists them all)",
                " (and {n} more problems; `escaramuza validate {source}` lists them all)",
                n,
            ).format(n=n, source=source)
        return cls(source, first.field, first.reason + hint + line + more, problems)


class IllegalActionError(EscaramuzaError):
    """An action that is not among the legal actions of the pending decision."""


class UnknownNameError(EscaramuzaError):
    """An unknown scenario, ruleset, agent or combatant name."""
