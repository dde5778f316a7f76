"""The readable text of a playtest: the comparison table, one column per scenario, and
each scenario's per-combatant table (the tables ``balance`` and ``campaign`` print are
drawn with the same :func:`table` and :func:`pct`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from escaramuza.agents.fast import REFERENCE, engine_line
from escaramuza.playtest.result import PlaytestResult
from escaramuza.rules.core.i18n import N_, _, _f, word


def pct(p: dict[str, Any]) -> str:
    lo, hi = p["ci95"]
    return f"{100 * p['rate']:5.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def table(rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            align_right = right is not None and right[i]
            cells.append(cell.rjust(widths[i]) if align_right else cell.ljust(widths[i]))
        lines.append("  ".join(cells).rstrip())
    return lines


#: Rows of the comparison table: (label, how to print it from a scenario summary). The
#: labels are marked for the catalog and translated where shown (``_(label)``); the
#: difficulty is a value of the JSON document, shown in words.
METRICS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    (N_("ruleset"), lambda s: s["ruleset"]),
    (N_("difficulty"), lambda s: _(s["difficulty"])),
    (N_("heroes win"), lambda s: pct(s["outcomes"]["heroes"])),
    (N_("enemies win"), lambda s: pct(s["outcomes"]["enemies"])),
    (N_("draw"), lambda s: pct(s["outcomes"]["draw"])),
    (N_("  timeout"), lambda s: pct(s["outcomes"]["draw_timeout"])),
    (N_("  withdrawal"), lambda s: pct(s["outcomes"]["draw_withdrawal"])),
    (N_("  mutual"), lambda s: pct(s["outcomes"]["draw_mutual"])),
    (N_("party wipe"), lambda s: pct(s["party_wipe"])),
    (
        N_("heroes knocked out"),
        lambda s: _f("{pct} on average", format(100 * s["hero_knockout_share"], ".1f") + "%"),
    ),
    (
        N_("rounds mean/median/p90"),
        lambda s: f"{s['rounds']['mean']:.2f} / {s['rounds']['median']:g} / {s['rounds']['p90']}",
    ),
    (
        N_("top damager"),
        lambda s: (
            f"{s['top_damager']['name']} ({100 * s['top_damager']['share']:.0f}%)"
            if s["top_damager"]
            else "—"
        ),
    ),
)


def combatant_table(summary: dict[str, Any]) -> list[str]:
    rows: list[list[str]] = [
        [
            _("combatant"),
            _("side"),
            _("P(knocked out)"),
            _("P(dies)"),
            _("dealt"),
            _("taken"),
            _("rounds up"),
            _("share"),
        ]
    ]
    for c in summary["combatants"]:
        rows.append(
            [
                c["name"],
                word(c["side"]),
                pct(c["p_knocked_out"]),
                pct(c["p_dies"]),
                f"{c['mean_damage_dealt']:.2f}",
                f"{c['mean_damage_taken']:.2f}",
                f"{c['mean_rounds_survived']:.2f}",
                f"{100 * c['damage_share']:.0f}%",
            ]
        )
    return table(rows, [False, False, True, True, True, True, True, True])


def render_text(result: PlaytestResult) -> str:
    """The readable report: a comparison table (one column per scenario) and, for each
    scenario, its per-combatant table."""
    cfg = result.config
    lines = [
        _f(
            "{n} battles per scenario, seed {seed}; heroes: {heroes}, enemies: {enemies}. "
            "Rates with 95% Wilson intervals.",
            cfg.n,
            cfg.seed,
            cfg.heroes,
            cfg.enemies,
        ),
        "",
    ]
    for s in result.summaries:
        # Which engine played each scenario, and why the kernel did not when it did not.
        used = engine_line(s.get("engine", REFERENCE), s.get("engine_refusal"))
        lines.append(f"{s['scenario']}: {used}")
    lines.append("")
    header = ["", *[s["scenario"] for s in result.summaries]]
    rows = [header] + [[_(label), *[fn(s) for s in result.summaries]] for label, fn in METRICS]
    lines.extend(table(rows))
    for s in result.summaries:
        lines += ["", f"{s['scenario']} — {s['title']} ({_(s['difficulty'])})"]
        lines.extend(combatant_table(s))
    return "\n".join(lines) + "\n"
