"""Rendering: the step's narrated lines (ansi) and a picture of the battlefield (rgb_array).

The picture is drawn with matplotlib's Agg backend (no display needed) and
networkx's drawing helpers: zones are the graph's nodes, links its edges, each
combatant a token beside its zone with a bar of its first observed resource
(PV in Destiny Dice) — enough to follow a battle in a notebook or a video.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from escaramuza.rules.core.events import Event
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.state import BattleState

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_SIDE_COLOURS = {Side.HEROES: "#2b6cb0", Side.ENEMIES: "#c53030"}


def ansi(state: BattleState, events: Sequence[Event]) -> str:
    """The narrated lines of the last step, then one status line per combatant."""
    lines = [e.text for e in events]
    first = next(iter(state.ruleset.resources), None)
    for c in state.combatants:
        extra = ""
        if first is not None and first in c.resources:
            extra = f" {first} {c.resources[first]}/{c.maxima.get(first, '?')}"
        conds = f" [{', '.join(sorted(c.conditions))}]" if c.conditions else ""
        lines.append(f"  {c.side.value[0].upper()} {c.id} @{c.zone} {c.status.value}{extra}{conds}")
    return "\n".join(lines)


def rgb_array(state: BattleState, side: Side, width: int = 640, height: int = 480) -> np.ndarray:
    """An ``(height, width, 3)`` uint8 picture of the battlefield and the tokens on it."""
    # Figure + FigureCanvasAgg directly, never pyplot: no global figure registry and
    # no GUI backend, so rendering works headless and inside SubprocVecEnv workers.
    import networkx as nx
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    graph = state.battlefield.graph
    pos = nx.spring_layout(graph, seed=0)
    dpi = 80
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 0.92))
    ax.set_axis_off()
    nx.draw_networkx_edges(graph, pos, ax=ax, edge_color="#999999", width=2)
    nx.draw_networkx_nodes(
        graph, pos, ax=ax, node_color="#f0e6d2", node_size=1400, edgecolors="#7a6a4f"
    )
    nx.draw_networkx_labels(graph, pos, ax=ax, font_size=7)
    _draw_tokens(ax, state, pos)
    who = "heroes" if side is Side.HEROES else "enemies"
    over = f" — {state.outcome.reason}" if state.outcome else ""
    fig.suptitle(f"{state.scenario.name}  round {state.round}  (learner: {who}){over}", fontsize=9)
    ax.margins(0.25)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def _draw_tokens(ax: Axes, state: BattleState, pos: dict[str, np.ndarray]) -> None:
    first = next(iter(state.ruleset.resources), None)
    by_zone: dict[str, list[int]] = {}
    for i, c in enumerate(state.combatants):
        by_zone.setdefault(c.zone, []).append(i)
    for zone, members in by_zone.items():
        cx, cy = pos[zone]
        for k, i in enumerate(members):
            c = state.combatants[i]
            angle = 2 * math.pi * k / max(1, len(members))
            x, y = cx + 0.1 * math.cos(angle), cy + 0.1 * math.sin(angle)
            colour = _SIDE_COLOURS[c.side] if c.active else "#a0aec0"
            ax.scatter([x], [y], s=90, c=colour, zorder=3)
            ax.annotate(
                c.id,
                (x, y),
                fontsize=6,
                ha="center",
                va="bottom",
                xytext=(0, 5),
                textcoords="offset points",
            )
            if first is not None and c.maxima.get(first):
                frac = max(0.0, min(1.0, c.resources.get(first, 0) / c.maxima[first]))
                bar_y = y - 0.035
                ax.plot(
                    [x - 0.03, x + 0.03],
                    [bar_y, bar_y],
                    color="#e2e8f0",
                    linewidth=3,
                    zorder=2,
                )
                ax.plot(
                    [x - 0.03, x - 0.03 + 0.06 * frac],
                    [bar_y, bar_y],
                    color="#38a169",
                    linewidth=3,
                    zorder=2,
                )
