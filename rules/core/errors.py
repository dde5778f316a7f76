"""Errors a user can cause. The CLI prints their message and exits 2, no traceback."""

from __future__ import annotations


class EscaramuzaError(Exception):
    """Base class of every error caused by input: files, names, actions."""


class ScenarioError(EscaramuzaError):
    """A scenario (or data table) that cannot be used: names the file, the field and the reason."""

    def __init__(self, source: str, field: str, reason: str) -> None:
        self.source = source
        self.field = field
        self.reason = reason
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {reason}")


class IllegalActionError(EscaramuzaError):
    """An action that is not among the legal actions of the pending decision."""


class UnknownNameError(EscaramuzaError):
    """An unknown scenario, ruleset, agent or combatant name."""
