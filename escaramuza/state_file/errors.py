"""The error of a state file that cannot be read or used."""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.rules.core.errors import EscaramuzaError, Problem, clip
from escaramuza.rules.core.i18n import _f


class StateFileError(EscaramuzaError):
    """A state file that cannot be read or used: names the file, the field and the reason."""

    def __init__(
        self, source: str, field: str, reason: str, problems: Sequence[Problem] = ()
    ) -> None:
        self.source = source
        self.field = field = clip(field, 120)
        self.reason = reason = clip(reason)
        #: Every problem found (``escaramuza validate`` lists them); the message is the first.
        self.problems: tuple[Problem, ...] = tuple(problems) or (Problem(field, reason),)
        more = len(self.problems) - 1
        tail = ""
        if more:
            tail = _f(" (and {n} more problem(s); `escaramuza validate` lists them all)", more)
        text = f"{source}: {field}: {reason}" if field else f"{source}: {reason}"
        super().__init__(text + tail)

    @classmethod
    def of(cls, source: str, problems: Sequence[Problem]) -> StateFileError:
        """One error for several problems: the first one's field and reason, all kept."""
        return cls(source, problems[0].field, problems[0].reason, problems)
