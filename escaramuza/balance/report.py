"""What ``escaramuza balance`` shows: the table of the variants tried, the ``--out`` YAML
with its comment, and the plot of ``--report``."""

from __future__ import annotations

import shlex
from typing import Any

from escaramuza.balance.dimensions import LEVELS
from escaramuza.playtest.text import table
from escaramuza.rules.core.i18n import N_, _, _f

#: The measures and verdicts in words (the JSON keeps the names ``--target`` takes).
_MEASURE_WORDS = {
    "heroes-win": N_("heroes win"),
    "enemies-win": N_("enemies win"),
    "wipe": N_("party wipe"),
    "knockout": N_("heroes knocked out"),
}
_VERDICT_WORDS = {
    "above": N_("above"),
    "below": N_("below"),
    "on": N_("on target"),
    "undecided": N_("undecided"),
}


def agent_options(heroes: str, enemies: str) -> list[str]:
    """The options naming both sides' agents, as a command line writes them."""
    return [f"--heroes {shlex.quote(heroes)}", f"--enemies {shlex.quote(enemies)}"]


def _measure(name: str) -> str:
    found = _MEASURE_WORDS.get(name)
    return name if found is None else _(found)


def _verdict(t: dict[str, Any]) -> str:
    said = _(_VERDICT_WORDS[t["verdict"]])
    if t["verdict"] == "undecided":
        return _f("{verdict} ({side})", said, _(_VERDICT_WORDS[t["side"]]))
    return said


def _target(label: str) -> str:
    """The target in words: a level (``hard`` → ``difícil``); a measure's band as typed."""
    for level in LEVELS:
        if label == level.lower():
            return _(level).lower()
    return label


def _cell(est: dict[str, Any]) -> str:
    lo, hi = est["cs"]
    return f"{100 * est['rate']:5.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]"


def render_text(doc: dict[str, Any]) -> str:
    names = [k for k in doc["tried"][0]["estimates"] if k != "difficulty"]
    header = [
        "#",
        *[v["spec"].split("=")[0] for v in doc["vary"]],
        _("verdict"),
        *[_measure(k) for k in names],
    ]
    if doc["tried"][0]["estimates"].get("difficulty"):
        header.append(_("difficulty"))
    header.append(_("battles"))
    rows = [header]
    for i, t in enumerate(doc["tried"], 1):
        row = [
            str(i),
            *t["values"].values(),
            _verdict(t),
            *[_cell(t["estimates"][k]) for k in names],
        ]
        if "difficulty" in t["estimates"]:
            row.append(_(t["estimates"]["difficulty"]))
        row.append(str(t["battles"]))
        rows.append(row)
    chosen = doc["chosen"]
    lines = [
        _f(
            "balance {scenario} to {target}, seed {seed}: every variant tried, rates with "
            "{confidence} confidence sequences (valid at every look).",
            doc["scenario"],
            _target(doc["target"]),
            doc["seed"],
            format(100 * (1 - doc["alpha"]), "g") + "%",
        ),
        "",
        *table(rows),
        "",
        _f(
            "chosen: {values} ({verdict}, {n} battles)",
            ", ".join(f"{k}={v}" for k, v in chosen["values"].items()),
            _verdict(chosen),
            chosen["battles"],
        ),
    ]
    return "\n".join(lines) + "\n"


def out_text(doc: dict[str, Any], command: str) -> str:
    chosen = doc["chosen"]
    rates = ", ".join(
        f"{_measure(k)} {v['rate']:.3f}"
        for k, v in chosen["estimates"].items()
        if k != "difficulty"
    )
    # A YAML comment for the person who opens the file: in the run's language.
    head = "".join(
        f"# {line}\n"
        for line in (
            _f("Found by `{command}`:", command),
            _f(
                "target {target}, {values} ({verdict}) after {variants} variant(s); its {n} "
                "battles with seed {seed} gave {rates}.",
                _target(doc["target"]),
                ", ".join(f"{k}={v}" for k, v in chosen["values"].items()),
                _verdict(chosen),
                len(doc["tried"]),
                chosen["battles"],
                doc["seed"],
                rates,
            ),
            _f(
                "`{command}` reproduces them.",
                " ".join(
                    [
                        f"escaramuza playtest FILE -n {chosen['battles']} --seed {doc['seed']}",
                        *agent_options(doc["agents"]["heroes"], doc["agents"]["enemies"]),
                        f"--engine {doc['engine']}",
                    ]
                ),
            ),
        )
    )
    return head + doc["yaml"]


def plot(doc: dict[str, Any]) -> bytes:
    """The target measure (point and confidence sequence) against the varied quantity."""
    import matplotlib

    from escaramuza.playtest.report import RC, figure, png

    names = [k for k in doc["tried"][0]["estimates"] if k != "difficulty"]
    with matplotlib.rc_context(RC):
        fig = figure()
        ax = fig.add_subplot()
        axis = max((i for i, v in enumerate(doc["vary"]) if v["ordered"]), default=0)
        for name in names:
            pts = sorted((t["plot_x"][axis], t["estimates"][name]) for t in doc["tried"])
            xs = [p[0] for p in pts]
            ax.errorbar(
                xs,
                [p[1]["rate"] for p in pts],
                marker="o",
                capsize=3,
                label=_measure(name),
                linestyle="none",
                yerr=[
                    [p[1]["rate"] - p[1]["cs"][0] for p in pts],
                    [p[1]["cs"][1] - p[1]["rate"] for p in pts],
                ],
            )
        ax.set_xlabel(doc["vary"][axis]["spec"])
        ax.set_ylabel(_("rate (confidence sequence)"))
        ax.set_ylim(0, 1.05)
        ax.set_title(_f("{scenario}: toward {target}", doc["scenario"], _target(doc["target"])))
        ax.legend()
        fig.tight_layout()
        return png(fig)
