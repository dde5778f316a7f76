"""The report folder: ``escaramuza playtest --report DIR`` writes summary.json, report.md
and PNG plots; ``balance`` and ``campaign`` draw their plots with :data:`RC`,
:func:`figure` and :func:`png` and write their folders with :func:`write_files`.

Outcome bars with their 95 % intervals, a histogram of rounds
and the survival curve of each combatant by round, for each scenario. Everything
is drawn from the summary alone (the same numbers as ``summary.json``), so a
report can be redrawn from a saved summary.

Determinism: the plots use a fixed size, dpi and font, a fixed ``svg.hashsalt``
and no "Software" metadata, and PNG has no timestamp, so the same summary gives
byte-identical files. Each file is written to a temporary file in the same
folder and moved into place with ``os.replace``, so a reader never sees half a
report file.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from escaramuza.playtest.text import METRICS
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import atomic_write, make_writable_folder
from escaramuza.rules.core.i18n import N_, _, _f, word

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from escaramuza.playtest.result import PlaytestResult

#: Every figure: same size and resolution on every machine (byte-identical PNGs).
FIGSIZE = (7.0, 4.0)
#: Wider: the legend of every combatant sits to the right of the curves.
SURVIVAL_FIGSIZE = (9.0, 4.0)
DPI = 100
RC = {
    "svg.hashsalt": "escaramuza",
    "font.family": "DejaVu Sans",  # shipped with matplotlib: no system font lookup
    "path.simplify": True,
}
OUTCOME_BARS = (
    (N_("heroes win"), "heroes", "#2b6cb0"),
    (N_("enemies win"), "enemies", "#c53030"),
    (N_("draw: timeout"), "draw_timeout", "#718096"),
    (N_("draw: withdrawal"), "draw_withdrawal", "#a0aec0"),
    (N_("draw: mutual"), "draw_mutual", "#4a5568"),
)


def prepare_dir(path: str | os.PathLike[str]) -> Path:
    """Create the report folder and check it can be written, before any battle runs."""
    try:
        return make_writable_folder(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise EscaramuzaError(
            _f("--report {path}: cannot write there ({reason})", path, reason)
        ) from None


# -- plots ------------------------------------------------------------------------


def figure(figsize: tuple[float, float] = FIGSIZE) -> Figure:
    from matplotlib.figure import Figure

    # A bare Figure (no pyplot): no global state, Agg chosen by savefig for PNG.
    return Figure(figsize=figsize, dpi=DPI)


def _integer_ticks(ax: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def outcome_plot(summary: dict[str, Any]) -> bytes:
    """Bars of the outcome rates with their 95 % Wilson intervals as error bars."""
    import matplotlib

    with matplotlib.rc_context(RC):
        fig = figure()
        ax = fig.add_subplot()
        labels, rates, lows, highs, colours = [], [], [], [], []
        for label, key, colour in OUTCOME_BARS:
            p = summary["outcomes"][key]
            labels.append(_(label))
            rates.append(p["rate"])
            lows.append(p["rate"] - p["ci95"][0])
            highs.append(p["ci95"][1] - p["rate"])
            colours.append(colour)
        xs = list(range(len(labels)))
        ax.bar(xs, rates, color=colours, yerr=[lows, highs], capsize=6)
        for x, rate, high in zip(xs, rates, highs, strict=True):
            ax.annotate(
                f"{100 * rate:.1f}%",
                (x, rate + high),
                textcoords="offset points",
                xytext=(0, 4),
                ha="center",
                fontsize=8,
            )
        ax.set_xticks(xs, labels, fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(_("probability"))
        ax.set_title(
            _f(
                "{scenario}: outcomes of {n} battles (95% Wilson intervals)",
                summary["scenario"],
                summary["battles"],
            ),
            fontsize=10,
        )
        fig.tight_layout()
        return png(fig)


def rounds_plot(summary: dict[str, Any]) -> bytes:
    """Histogram of battle length in rounds, with the mean, median and p90 marked."""
    import matplotlib

    rounds = summary["rounds"]
    with matplotlib.rc_context(RC):
        fig = figure()
        ax = fig.add_subplot()
        counts = rounds["histogram"]
        ax.bar(range(len(counts)), counts, color="#4a5568", width=0.9)
        for value, label, style in (
            (rounds["mean"], _("mean"), "-"),
            (rounds["median"], _("median"), "--"),
            (rounds["p90"], "p90", ":"),
        ):
            ax.axvline(value, color="#c53030", linestyle=style, label=f"{label} {value:.3g}")
        ax.set_xlabel(_("rounds"))
        ax.set_ylabel(_("battles"))
        ax.set_xlim(-0.5, max(len(counts), 2) - 0.5)
        _integer_ticks(ax)
        ax.legend(fontsize=8)
        ax.set_title(_f("{scenario}: battle length", summary["scenario"]), fontsize=10)
        fig.tight_layout()
        return png(fig)


def survival_plot(summary: dict[str, Any]) -> bytes:
    """P(still standing at the end of round r) for each combatant (heroes solid)."""
    import matplotlib

    with matplotlib.rc_context(RC):
        fig = figure(SURVIVAL_FIGSIZE)
        ax = fig.add_subplot()
        for c in summary["combatants"]:
            curve = c["survival"]
            style = "-" if c["side"] == "heroes" else "--"
            ax.step(
                range(len(curve)),
                curve,
                where="post",
                linestyle=style,
                label=f"{c['name']} ({word(c['side'])})",
            )
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlim(0, max(len(summary["combatants"][0]["survival"]) - 1, 1))
        ax.set_xlabel(_("round"))
        ax.set_ylabel(_("P(not knocked out yet)"))
        _integer_ticks(ax)
        # Legend beside the plot, not over the curves; fixed margins keep the bytes stable.
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
        ax.set_title(_f("{scenario}: survival by round", summary["scenario"]), fontsize=10)
        fig.subplots_adjust(left=0.08, right=0.70, bottom=0.13, top=0.9)
        return png(fig)


# -- markdown ---------------------------------------------------------------------


def _md_pct(p: dict[str, Any]) -> str:
    lo, hi = p["ci95"]
    return f"{100 * p['rate']:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})"


def _md_table(rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
    out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows[1:]]
    return out


def file_slugs(summaries: Sequence[dict[str, Any]]) -> list[str]:
    """Each scenario's file name stem, distinct: its name, and for a name seen before the
    name with the first free ``-2``, ``-3``… — free of every other scenario's stem too (a
    scenario named ``x-2`` and a second ``x`` took the same plots)."""
    bases = [s["scenario"].replace("/", "-").replace(" ", "_") for s in summaries]
    taken: set[str] = set()
    out = []
    for k, base in enumerate(bases):
        slug, n = base, 1
        # Another scenario's own name is kept for it, unless it was taken already.
        while slug in taken or (n > 1 and slug in bases[k + 1 :]):
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        out.append(slug)
    return out


def render_markdown(result: PlaytestResult, slugs: Sequence[str]) -> str:
    doc = result.document()
    summaries = doc["scenarios"]
    agents = doc["agents"]
    lines = [
        _("# Playtest report"),
        "",
        _f(
            "{n} battles per scenario, seed {seed}; heroes played by `{heroes}`, enemies by "
            "`{enemies}`. Rates are shown with their 95% Wilson score intervals. Definitions "
            "and the difficulty thresholds: `docs/playtest.md`. The same numbers are in "
            "`summary.json`.",
            doc["battles"],
            doc["seed"],
            agents["heroes"],
            agents["enemies"],
        ),
        "",
        _("## Comparison"),
        "",
    ]
    rows = [["", *[s["scenario"] for s in summaries]]]
    rows += [
        [
            _f("draw: {what}", _(label).strip()) if label.startswith(" ") else _(label),
            *[fn(s).strip() for s in summaries],
        ]
        for label, fn in METRICS
    ]
    lines += _md_table(rows)
    for s, slug in zip(summaries, slugs, strict=True):
        lines += [
            "",
            f"## {s['scenario']} — {s['title']}",
            "",
            _f("Difficulty: **{difficulty}**.", _(s["difficulty"])),
            "",
        ]
        crow = [
            [
                _("combatant"),
                _("side"),
                _("P(knocked out)"),
                _("P(dies)"),
                _("mean dealt"),
                _("mean taken"),
                _("mean rounds survived"),
                _("share of side's damage"),
            ]
        ]
        for c in s["combatants"]:
            crow.append(
                [
                    c["name"],
                    word(c["side"]),
                    _md_pct(c["p_knocked_out"]),
                    _md_pct(c["p_dies"]),
                    f"{c['mean_damage_dealt']:.2f}",
                    f"{c['mean_damage_taken']:.2f}",
                    f"{c['mean_rounds_survived']:.2f}",
                    f"{100 * c['damage_share']:.0f}%",
                ]
            )
        lines += _md_table(crow)
        lines += [
            "",
            f"![outcomes]({slug}-outcomes.png)",
            "",
            f"![rounds]({slug}-rounds.png)",
            "",
            f"![survival]({slug}-survival.png)",
        ]
    return "\n".join(lines) + "\n"


def write_report(result: PlaytestResult, folder: str | os.PathLike[str]) -> list[Path]:
    """Write summary.json, report.md and three PNGs per scenario; return the paths."""
    out = prepare_dir(folder)
    summaries = result.document()["scenarios"]
    slugs = file_slugs(summaries)
    files: dict[str, bytes] = {"summary.json": result.to_json().encode("utf-8")}
    for s, slug in zip(summaries, slugs, strict=True):
        files[f"{slug}-outcomes.png"] = outcome_plot(s)
        files[f"{slug}-rounds.png"] = rounds_plot(s)
        files[f"{slug}-survival.png"] = survival_plot(s)
    files["report.md"] = render_markdown(result, slugs).encode("utf-8")
    return write_files(out, files)


def write_files(folder: str | os.PathLike[str], files: dict[str, bytes | str]) -> list[Path]:
    """Write each file of a report atomically (``balance``, ``campaign`` and ``evaluate``
    share it)."""
    out = Path(folder)
    written = []
    try:
        for name, data in files.items():
            atomic_write(out / name, data)
            written.append(out / name)
    except OSError as exc:
        raise EscaramuzaError(
            _f("--report {path}: cannot write ({reason})", folder, exc.strerror or exc)
        ) from None
    return written
