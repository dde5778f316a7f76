"""Errors a user can cause. The CLI prints their message and exits 2, no traceback."""

from __future__ import annotations

#: Longest reason an error message carries: a hostile file's value (a 5,000-character
#: name) is shown cut, so the CLI's error stays one readable line (issue 19).
MAX_REASON = 400


def clip(text: str, limit: int = MAX_REASON) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


class EscaramuzaError(Exception):
    """Base class of every error caused by input: files, names, actions."""


class ScenarioError(EscaramuzaError):
    """A scenario (or data table) that cannot be used: names the file, the field and the reason."""

    def __init__(self, source: str, field: str, reason: str) -> None:
        self.source = source
        self.field = clip(field, 120)
        self.reason = reason = clip(reason)
        where = f"{source}: {self.field}" if field else source
        super().__init__(f"{where}: {reason}")


class IllegalActionError(EscaramuzaError):
    """An action that is not among the legal actions of the pending decision."""


class UnknownNameError(EscaramuzaError):
    """An unknown scenario, ruleset, agent or combatant name."""
