"""The bounds of every search budget a user can give, and their check."""

from __future__ import annotations

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f

#: Bounds of every search budget a user can give (``suggest --budget-ms/--iterations``,
#: ``gm``'s ``suggest MS``, the ``mcts:MS`` / ``mcts:Nit`` agents): a search must end
#: (``suggest nan`` or ``suggest 1e99`` would never return). 10 ms is about
#: one rollout of a small battle; a minute is far past the 1 s answer ``suggest`` aims
#: at; 100,000 rollouts take from a few minutes (duels) to about half an hour (the
#: largest scenarios) on one core.
MIN_BUDGET_MS = 10.0
MAX_BUDGET_MS = 60_000.0
MAX_ITERATIONS = 100_000


def check_budget(
    budget_ms: float | None,
    iterations: int | None,
    ms_name: str | None = None,
    it_name: str | None = None,
) -> None:
    """Refuse a budget outside :data:`MIN_BUDGET_MS`–:data:`MAX_BUDGET_MS` ms or
    1–:data:`MAX_ITERATIONS` rollouts; ``ms_name``/``it_name`` name it in the message, in
    the current language (an option's name, or ``_("the budget")``); by default the MCTS
    budget and iterations."""
    if iterations is not None and (
        isinstance(iterations, bool) or not 1 <= iterations <= MAX_ITERATIONS
    ):
        raise EscaramuzaError(
            _f(
                "{name} must be 1–{most}, not {iterations}",
                it_name or _("the MCTS iterations"),
                MAX_ITERATIONS,
                iterations,
            )
        )
    # Written so that NaN fails as well: every comparison with NaN is false.
    if budget_ms is not None and not MIN_BUDGET_MS <= budget_ms <= MAX_BUDGET_MS:
        raise EscaramuzaError(
            _f(
                "{name} must be {least:g}–{most:g} ms (a finite number), not {budget_ms:g}",
                ms_name or _("the MCTS budget"),
                MIN_BUDGET_MS,
                MAX_BUDGET_MS,
                budget_ms,
            )
        )
