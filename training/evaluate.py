"""``escaramuza evaluate``: every pair of agents on each side, win matrix, ratings, heat map.

For each scenario and each ordered pair (heroes agent, enemies
agent) — an agent against itself included, as a reference — ``-n`` battles are
played with the playtest runner, so battle ``i`` of a pairing uses the seed
``SeedSequence(seed).spawn(n)[i]`` (escaramuza/playtest/records.py) for every pairing:
all pairings meet the same dice streams (common random numbers), which makes
their differences less noisy, and the numbers are the same for any worker count.

Statistics (docs/training.md, "Evaluation"):

* per scenario and pairing, the heroes' and the enemies' win rates and the
  draw rate, each with its 95 % Wilson interval (``escaramuza.playtest.stats.proportion``);
* the win matrix over all scenarios and both sides: cell (A, B) counts the
  battles A played against B (as heroes and as enemies), A's wins, draws and
  losses, A's win rate with its Wilson interval and A's score (win 1, draw ½);
* OpenSkill ratings from every battle between two different agents
  (:mod:`escaramuza.training.ratings`).

``--report DIR`` writes ``evaluation.json`` and ``heatmap.png`` (drawn with
matplotlib's Agg canvas, fixed size and fonts, no "Software" metadata: the same
evaluation gives byte-identical files), each through a temporary file and
``os.replace``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from escaramuza.agents import make_agent
from escaramuza.agents.fast import DEFAULT_ENGINE, REFERENCE
from escaramuza.agents.runner import check_agents
from escaramuza.playtest.records import BattleRecord
from escaramuza.playtest.runner import (
    PlaytestConfig,
    Progress,
    Runner,
    ScenarioRef,
    run_battles,
    scenario_engine,
)
from escaramuza.playtest.stats import proportion, round6
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.stats import paired_difference
from escaramuza.training.ratings import Game, openskill_ratings

SCHEMA = "escaramuza.evaluate/1"
#: The agent every other is compared with on the same battles.
REFERENCE_AGENT = "heuristic"
#: Added to ``--agents`` unless ``--no-baselines``: the reference and the two floors.
BASELINES = ("heuristic", "first-legal", "random")
DEFAULT_N = 100
DEFAULT_SEED = 1


def parse_agents(text: str, trust_policy: bool = False, baselines: bool = False) -> list[str]:
    """``--agents A,B,…``: distinct, known agents (``policy:PATH`` ones loadable without
    unpickling, unless ``trust_policy``). At least two, or one when the :data:`BASELINES`
    join them (``baselines``): they make it an evaluation of three agents or more, as
    ``--agents random,heuristic`` already was."""
    names = [a.strip() for a in text.split(",") if a.strip()]
    if not names:
        raise EscaramuzaError(_f("--agents: name at least one agent, not {text}", repr(text)))
    if len(names) < 2 and not baselines:
        raise EscaramuzaError(
            _f(
                "--agents: name at least two agents separated by commas, not {text} "
                "(with --no-baselines only the agents named play)",
                repr(text),
            )
        )
    if len(set(names)) != len(names):
        dup = next(a for a in names if names.count(a) > 1)
        raise EscaramuzaError(_f("--agents: {name} is named twice", repr(dup)))
    for name in names:
        with _agents_option():
            make_agent(name, trust_policy=trust_policy)
    return names


@contextmanager
def _agents_option() -> Iterator[None]:
    """An agent's refusal (an unknown name, a policy file that does not load or does not
    play a scenario) as ``--agents``' own: the option named first."""
    try:
        yield
    except EscaramuzaError as exc:
        raise EscaramuzaError(f"--agents: {exc}") from None


@dataclass(slots=True)
class Evaluation:
    agents: list[str]
    scenarios: list[str]
    n: int
    seed: int
    #: (scenario, heroes agent, enemies agent) → records sorted by battle index.
    records: dict[tuple[str, str, str], list[BattleRecord]] = field(default_factory=dict)
    #: (scenario, heroes agent, enemies agent) → (engine that played, auto's refusal).
    engines: dict[tuple[str, str, str], tuple[str, str | None]] = field(default_factory=dict)

    # -- statistics ---------------------------------------------------------------
    def pairing(self, scenario: str, heroes: str, enemies: str) -> dict[str, Any]:
        recs = self.records[(scenario, heroes, enemies)]
        n = len(recs)
        h = sum(r.winner == "heroes" for r in recs)
        e = sum(r.winner == "enemies" for r in recs)
        engine, why = self.engines.get((scenario, heroes, enemies), (REFERENCE, None))
        return {
            # Which engine played the pairing: the only keys --engine changes.
            "engine": engine,
            "engine_refusal": why,
            "heroes": heroes,
            "enemies": enemies,
            "battles": n,
            "heroes_win": proportion(h, n),
            "enemies_win": proportion(e, n),
            "draw": proportion(n - h - e, n),
        }

    def cell(self, a: str, b: str) -> dict[str, Any]:
        """A against B over every scenario, both sides. On the diagonal (A against
        itself) each battle counts once per side, so a win is also a loss there and the
        win rate is half the decisive share."""
        wins = draws = games = 0
        for scenario in self.scenarios:
            for heroes, enemies, side in ((a, b, "heroes"), (b, a, "enemies")):
                for r in self.records[(scenario, heroes, enemies)]:
                    games += 1
                    if r.winner == side:
                        wins += 1
                    elif r.winner is None:
                        draws += 1
        win = proportion(wins, games)
        return {
            "games": games,
            "wins": wins,
            "draws": draws,
            "losses": games - wins - draws,
            "win_rate": win["rate"],
            "ci95": win["ci95"],
            "score": round((wins + 0.5 * draws) / games, 6) if games else 0.0,
        }

    def side_records(
        self, scenario: str, side: str, agent: str, opponent: str
    ) -> list[BattleRecord]:
        """The battles ``agent`` played as ``side`` against ``opponent``."""
        key = (scenario, agent, opponent) if side == "heroes" else (scenario, opponent, agent)
        return self.records[key]

    def paired(self) -> list[dict[str, Any]]:
        """Each agent's win rate minus the heuristic's on the same battles (the same seeds,
        side and opponent), with Newcombe's paired interval; a ``policy:`` agent that
        played first-legal's battles in every one is flagged. Empty without the
        heuristic among the agents."""
        if REFERENCE_AGENT not in self.agents:
            return []
        rows: list[dict[str, Any]] = []
        for scenario in self.scenarios:
            for side in ("heroes", "enemies"):
                for opponent in self.agents:
                    ref = self.side_records(scenario, side, REFERENCE_AGENT, opponent)
                    r = [x.winner == side for x in ref]
                    for agent in self.agents:
                        if agent == REFERENCE_AGENT:
                            continue
                        recs = self.side_records(scenario, side, agent, opponent)
                        a = [x.winner == side for x in recs]
                        n = len(recs)
                        pair = paired_difference(a, r)
                        lo, hi = pair["ci95"]
                        collapsed: list[str] = []
                        if (
                            agent.startswith("policy:")
                            and "first-legal" in self.agents
                            and recs == self.side_records(scenario, side, "first-legal", opponent)
                        ):
                            collapsed.append(f"first-legal's battles in every one of its {n}")
                        rows.append(
                            {
                                "scenario": scenario,
                                "side": side,
                                "agent": agent,
                                "opponent": opponent,
                                "battles": n,
                                "win_rate": round6(sum(a) / n),
                                "reference_win_rate": round6(sum(r) / n),
                                "difference": round6(pair["difference"]),
                                "ci95": [round6(lo), round6(hi)],
                                "collapsed": collapsed,
                            }
                        )
        return rows

    def games(self) -> list[Game]:
        """Every battle between different agents, battle index first (see ratings.py)."""
        out: list[Game] = []
        for i in range(self.n):
            for scenario in self.scenarios:
                for heroes in self.agents:
                    for enemies in self.agents:
                        if heroes == enemies:
                            continue
                        r = self.records[(scenario, heroes, enemies)][i]
                        score = 0.5 if r.winner is None else (1.0 if r.winner == "heroes" else 0.0)
                        out.append((heroes, enemies, score))
        return out

    def document(self) -> dict[str, Any]:
        ratings = openskill_ratings(self.agents, self.games())
        # The matrix, the text tables and the heat map list the agents by rating rank
        # (best first), so a reader meets them in one order everywhere; "agents" keeps
        # the --agents order as given.
        ranked = [r.agent for r in ratings]
        return {
            "schema": SCHEMA,
            "agents": self.agents,
            "scenarios": [
                {
                    "scenario": s,
                    "pairings": [self.pairing(s, h, e) for h in self.agents for e in self.agents],
                }
                for s in self.scenarios
            ],
            "battles_per_pairing": self.n,
            "seed": self.seed,
            "matrix": {
                "rows": ranked,
                "columns": ranked,
                "cells": [[self.cell(a, b) for b in ranked] for a in ranked],
            },
            "paired": {"reference": REFERENCE_AGENT, "rows": self.paired()},
            "ratings": {
                "model": "openskill.PlackettLuce",
                "agents": [
                    {"rank": rank, **r.to_dict()} for rank, r in enumerate(ratings, start=1)
                ],
            },
        }


def evaluate(
    scenarios: Sequence[str],
    agents: Sequence[str],
    n: int = DEFAULT_N,
    seed: int = DEFAULT_SEED,
    workers: int = 1,
    trust_policy: bool = False,
    progress: bool = False,
    engine: str = DEFAULT_ENGINE,
) -> Evaluation:
    """Play ``n`` battles of every (scenario, heroes agent, enemies agent), each pairing
    on the engine :func:`~escaramuza.playtest.runner.scenario_engine` chooses for ``engine``;
    ``progress`` draws one bar over all of them (on stderr, a terminal only:
    escaramuza/progress.py)."""
    if n <= 0:
        raise EscaramuzaError(_f("-n must be a positive number of battles, not {n}", n))
    if len(agents) < 2:
        raise EscaramuzaError(_("--agents: name at least two agents"))
    if not scenarios:
        raise EscaramuzaError(_("--scenario: name at least one scenario"))
    refs = [ScenarioRef.resolve(s) for s in scenarios]
    # The pairings and the report tell scenarios apart by name: a second scenario of the
    # same name (the same one twice, or another file with its name) would replace the
    # first's battles and be counted twice.
    names = [r.name for r in refs]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        sources = ", ".join(r.source for r in refs if r.name == twice)
        raise EscaramuzaError(
            _f(
                "--scenario: two scenarios are named {name} ({sources}); each scenario once, "
                "and scenarios of different names",
                repr(twice),
                sources,
            )
        )
    base = PlaytestConfig(n=n, seed=seed, workers=workers, trust_policy=trust_policy, engine=engine)
    base.validate()
    # A policy that cannot play a scenario (another ruleset's, or beyond the limits it was
    # trained with) is refused before any battle, naming the option that gave it.
    for name in agents:
        with _agents_option():
            agent = make_agent(name, trust_policy=trust_policy)
            for ref in refs:
                check_agents([agent], ref.load())
    result = Evaluation(list(agents), [r.name for r in refs], n, seed)
    configs = {
        (ref.name, h, e): (ref, dataclasses.replace(base, heroes=h, enemies=e))
        for ref in refs
        for h in agents
        for e in agents
    }
    # Every pairing's engine first: --engine fast refuses before any battle.
    for key, (ref, config) in configs.items():
        result.engines[key] = scenario_engine(ref.load(), config)
    bar = Progress(len(configs) * n, "evaluate", progress)
    try:
        with Runner(base) as runner:
            runner.start()
            for key, (ref, config) in configs.items():
                result.records[key] = run_battles(
                    ref, config, runner, bar, engine=result.engines[key][0]
                )
    finally:
        bar.close()
    return result


# -- output -------------------------------------------------------------------------


def _pct(rate: float, ci: Sequence[float]) -> str:
    return f"{100 * rate:.0f}% [{100 * ci[0]:.0f}–{100 * ci[1]:.0f}]"


def render_text(doc: dict[str, Any]) -> str:
    # Rank order (document() sorts the matrix by rating): "#1" is the best-rated agent,
    # in the ratings, in the tables' rows and in their column keys alike.
    agents = doc["matrix"]["rows"]
    rank = {r["agent"]: r["rank"] for r in doc["ratings"]["agents"]}
    keys = [f"#{rank[a]}" for a in agents]
    lines = [
        _f(
            "{agents} agents, {scenarios} scenario(s), {n} battles per pairing and side, "
            "seed {seed}",
            len(agents),
            len(doc["scenarios"]),
            doc["battles_per_pairing"],
            doc["seed"],
        ),
        "",
        _("Ratings (OpenSkill Plackett-Luce; ranked by mu - 3 sigma):"),
    ]
    width = max(len(a) for a in agents) + 4
    label = {a: f"{k} {a}" for k, a in zip(keys, agents, strict=True)}
    for r in doc["ratings"]["agents"]:
        lo, hi = r["ci95"]
        lines.append(
            f"  {label[r['agent']]:<{width}}  mu {r['mu']:6.2f}  sigma {r['sigma']:5.2f}  "
            f"95% [{lo:.1f}, {hi:.1f}]  ordinal {r['ordinal']:6.2f}"
        )

    def table(rows: list[list[str]]) -> list[str]:
        col = max(len(t) for row in rows for t in row)
        out = [" " * (width + 2) + "".join("  " + k.rjust(col) for k in keys)]
        for a, row in zip(agents, rows, strict=True):
            out.append(f"  {label[a]:<{width}}" + "".join("  " + t.rjust(col) for t in row))
        return out

    lines += ["", engine_summary(doc)]
    lines += ["", _("Win rate of the row against the column (both sides; 95% Wilson interval):")]
    lines += table(
        [[_pct(c["win_rate"], c["ci95"]) for c in row] for row in doc["matrix"]["cells"]]
    )
    lines += paired_text(doc, label)
    for s in doc["scenarios"]:
        lines += [
            "",
            _f("{scenario}: enemies' win rate (rows: enemies, columns: heroes)", s["scenario"]),
        ]
        by = {(p["heroes"], p["enemies"]): p["enemies_win"] for p in s["pairings"]}
        lines += table(
            [[_pct(by[(h, e)]["rate"], by[(h, e)]["ci95"]) for h in agents] for e in agents]
        )
    return "\n".join(lines) + "\n"


def paired_text(doc: dict[str, Any], label: dict[str, str]) -> list[str]:
    """The paired differences from the heuristic, one line per (scenario, side, agent,
    opponent)."""
    rows = doc.get("paired", {}).get("rows", [])
    if not rows:
        return []
    lines = [
        "",
        _(
            "Win rate as that side against that opponent / the heuristic's on the same "
            "battles, and the difference (points; 95% Newcombe paired interval):"
        ),
    ]
    for r in rows:
        lo, hi = r["ci95"]
        flag = ("  " + _("COLLAPSED") + ": " + "; ".join(r["collapsed"])) if r["collapsed"] else ""
        lines.append(
            f"  {r['scenario']}, {_(r['side'])}: {label.get(r['agent'], r['agent'])} vs "
            f"{label.get(r['opponent'], r['opponent'])}  {100 * r['win_rate']:.1f}% / "
            f"{100 * r['reference_win_rate']:.1f}%  "
            f"{100 * r['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]{flag}"
        )
    return lines


def engine_summary(doc: dict[str, Any]) -> str:
    """The text report's line saying which engine played the pairings (and why the
    kernel did not, where it did not)."""
    pairings = [p for s in doc["scenarios"] for p in s["pairings"]]
    fast = sum(p.get("engine") == "fast" for p in pairings)
    if fast == len(pairings):
        line = _("engine: fast (compiled kernels) for every pairing")
    elif fast == 0:
        line = _("engine: reference for every pairing")
    else:
        line = _f(
            "engine: fast for {fast} of {n} pairings, reference for the rest", fast, len(pairings)
        )
    reasons = sorted({p["engine_refusal"] for p in pairings if p.get("engine_refusal")})
    return line + "".join("\n  " + _f("reference: {reason}", r) for r in reasons)


def heatmap_figure(doc: dict[str, Any]) -> Any:
    """The win matrix as a matplotlib ``Figure``: the row agent's win rate against the
    column agent, rows and columns in the matrix's own order (rating rank), so the
    picture and ``evaluation.json`` agree."""
    import matplotlib

    from escaramuza.playtest.report import DPI, RC

    agents = doc["matrix"]["rows"]
    cells = doc["matrix"]["cells"]
    values = [[c["win_rate"] for c in row] for row in cells]
    k = len(agents)
    with matplotlib.rc_context(RC):
        from matplotlib.figure import Figure

        size = 2.0 + 1.1 * k
        fig = Figure(figsize=(size + 1.5, size), dpi=DPI)
        ax = fig.add_subplot()
        image = ax.imshow(values, vmin=0.0, vmax=1.0, cmap="RdBu")
        for i in range(k):
            for j in range(k):
                c = cells[i][j]
                lo, hi = c["ci95"]
                ax.text(
                    j,
                    i,
                    f"{100 * c['win_rate']:.0f}%\n[{100 * lo:.0f}–{100 * hi:.0f}]",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(c["win_rate"] - 0.5) > 0.3 else "black",
                )
        ax.set_xticks(range(k), agents, rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(k), agents, fontsize=8)
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent (by rating rank)")
        ax.set_title("win rate of the row against the column (both sides)", fontsize=9)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        fig.tight_layout()
    return fig


def heatmap_png(doc: dict[str, Any]) -> bytes:
    """:func:`heatmap_figure` as PNG bytes (fixed size and fonts, no "Software" metadata)."""
    import matplotlib

    from escaramuza.playtest.report import RC, png

    with matplotlib.rc_context(RC):
        return png(heatmap_figure(doc))


def write_report(doc: dict[str, Any], folder: str | Path) -> list[Path]:
    from escaramuza.playtest.report import prepare_dir, write_files

    text = json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    files: dict[str, bytes | str] = {"evaluation.json": text, "heatmap.png": heatmap_png(doc)}
    return write_files(prepare_dir(folder), files)


def run(
    scenarios: Sequence[str],
    agents_text: str,
    n: int,
    seed: int,
    workers: int,
    report: str | None,
    as_json: bool,
    out: TextIO,
    trust_policy: bool = False,
    progress: bool = True,
    engine: str = DEFAULT_ENGINE,
    baselines: bool = True,
) -> int:
    agents = parse_agents(agents_text, trust_policy, baselines)
    if baselines:
        agents += [b for b in BASELINES if b not in agents]
    if report is not None:
        from escaramuza.playtest.report import prepare_dir

        prepare_dir(report)  # fail before the battles, not after
    doc = evaluate(scenarios, agents, n, seed, workers, trust_policy, progress, engine).document()
    if report is not None:
        write_report(doc, report)
    out.write(
        json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
        if as_json
        else render_text(doc)
    )
    return 0
