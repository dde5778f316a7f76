"""Ratings of agents from head-to-head battles: OpenSkill's Plackett–Luce model.

Ratings come from a maintained package, not a hand-fitted Elo: ``openskill``
(PyPI, actively maintained, pure Python, MIT) installs here and is a dependency
of the project; ``trueskill``'s last release is from 2019, so OpenSkill it is.
Each agent gets a skill ``mu`` with an uncertainty ``sigma``; we report the
95 % interval ``mu ± 1.96 sigma`` and rank by the conservative
``ordinal = mu − 3 sigma`` (OpenSkill's own ranking number). Draws are ties (both ranked first).

OpenSkill updates one game at a time, so the order of games matters a little;
games are fed in a fixed order — battle index first, then scenario, then
pairing — so every agent's games are spread over the whole sequence (not all
of A-vs-B before A-vs-C) and the same evaluation gives the same ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from escaramuza.rules.core.errors import EscaramuzaError

#: One battle between two different agents: (first, second, score of first: 1, 0.5 or 0).
Game = tuple[str, str, float]

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Rating:
    agent: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma

    @property
    def ci95(self) -> tuple[float, float]:
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    def to_dict(self) -> dict[str, object]:
        lo, hi = self.ci95
        return {
            "agent": self.agent,
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "games": self.games,
        }


def openskill_ratings(agents: Sequence[str], games: Sequence[Game]) -> list[Rating]:
    """Plackett–Luce ratings after ``games`` (in order), best ``ordinal`` first."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - a dependency of the project
        raise EscaramuzaError("ratings need openskill: pip install openskill") from None
    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    played = dict.fromkeys(agents, 0)
    for first, second, score in games:
        if first == second:
            continue  # an agent against itself says nothing about its skill
        ranks = [0, 0] if score == 0.5 else ([0, 1] if score > 0.5 else [1, 0])
        [[a], [b]] = model.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
        ratings[first], ratings[second] = a, b
        played[first] += 1
        played[second] += 1
    out = [Rating(a, float(ratings[a].mu), float(ratings[a].sigma), played[a]) for a in agents]
    # Ties keep the --agents order (sorted() is stable).
    return sorted(out, key=lambda r: -r.ordinal)
