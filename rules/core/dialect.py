"""The kernels' one dialect: where each array sits in the two bundles, and the codes every
kernel writes in them (docs/fast-path.md, "One dialect").

A ruleset's kernel keeps a battle in two tuples of integer arrays:

* the **static bundle** ``s``, built once per scenario: ``s[STAT]`` the per-combatant
  sheet ``stat[c, ST.*]``, ``s[WEAPON]`` the weapons ``weapon[c, w, W.*]``, ``s[DIST]``
  the hops between two zones ``dist[z, z']``, ``s[OPTS]`` the scenario's options
  ``opts[OPT.*]``, then the ruleset's rule tables, each built from the engine's own
  objects;
* the **dynamic bundle** ``d``, a battle's state: ``d[STATE]`` the per-combatant state
  ``cs[c, CS.*]``, ``d[GLOBALS]`` the battle globals ``g[G.*]``, ``d[LOG]`` the damage
  log (``rules.core.loops.DAMAGE``), then the ruleset's own arrays and scratch.

Every layout declares the columns the shared code reads (:data:`REQUIRED`), and every
kernel writes the same codes in them: a side is :data:`HEROES` or :data:`ENEMIES`, an
outcome one of :data:`WINNERS`' codes (or :data:`RUNNING`), a status its place in
:class:`~escaramuza.rules.core.model.Status`, a reason its place in the ruleset's
``REASONS``, which start with :data:`REASONS`.
"""

from __future__ import annotations

from escaramuza.rules.core.kernel import BOUND
from escaramuza.rules.core.model import Status
from escaramuza.rules.core.scenario import KNOWN_TEMPERAMENTS

#: Places in the static bundle.
STAT, WEAPON, DIST, OPTS = 0, 1, 2, 3
#: Places in the dynamic bundle.
STATE, GLOBALS, LOG = 0, 1, 2

#: Sides (``ST.SIDE``) and outcomes (``G.OUTCOME``): the codes of
#: ``rules.core.kernel.WINNERS``; :data:`RUNNING` while the battle goes on.
HEROES, ENEMIES, DRAW = 0, 1, 2
RUNNING = -1

#: ``CS.STATUS``: a status's place in ``Status``.
STATUSES: tuple[Status, ...] = tuple(Status)
ACTIVE, DOWN, DEFEATED, DEAD, FLED = (
    STATUSES.index(s)
    for s in (Status.ACTIVE, Status.DOWN, Status.DEFEATED, Status.DEAD, Status.FLED)
)

#: ``ST.TEMPERAMENT``: a scenario temperament's place in ``KNOWN_TEMPERAMENTS``
#: (``rules.core.loops.TEMPERAMENTS``), the codes the compiled temperaments branch on.
TACTICIAN, BRUTE, CAUTIOUS, COWARD, PROTECTOR = (
    KNOWN_TEMPERAMENTS.index(t) for t in ("tactician", "brute", "cautious", "coward", "protector")
)

#: ``G.REASON``: why a battle ended, the reasons ``Ruleset.check_end`` and
#: ``Ruleset.begin_round`` give; a ruleset with others appends them.
REASONS: tuple[str, ...] = ("defeated", "mutual", "timeout")
R_DEFEATED, R_MUTUAL, R_TIMEOUT = 0, 1, 2

#: ``rules.core.loops.run``'s ``learner`` when every decision is the caller's (both
#: sides learning).
EVERY_SIDE = 2

#: ``G.KIND``: no decision pending, a turn; a ruleset's other kinds are 2, 3…
KIND_NONE = 0
KIND_TURN = 1

#: ``CS.KO_ROUND`` of a combatant never knocked out.
NEVER = -1

#: The columns every kernel's layouts start with, by array, in this order and with these
#: ranges and meanings — a layout declares them first, as ``STATUS, ZONE, … = HEAD["CS"]``
#: — read by the loops, the shared mechanics (``rules.core.mechanics``), the read-back
#: (``rules.core.compiled``) and the batched env.
HEAD: dict[str, dict[str, tuple[int | str, int | str, str]]] = {
    "ST": {
        "SIDE": (0, 1, "its side: 0 the heroes, 1 the enemies"),
        "TEMPERAMENT": (
            0,
            len(KNOWN_TEMPERAMENTS) - 1,
            "its scenario temperament (loops.TEMPERAMENTS)",
        ),
    },
    "CS": {
        "STATUS": (0, len(STATUSES) - 1, "its status (dialect.STATUSES; 0 active)"),
        "ZONE": (0, "zones", "the zone it stands in (its index in zone_ids)"),
        "KO_ROUND": (-1, BOUND, "the round it was first knocked out (-1 never, 0 from the start)"),
        "DIED": (0, 1, "it died"),
        "DEALT": (0, BOUND, "damage it dealt"),
        "DEALT_TO_FOES": (0, BOUND, "damage it dealt to the other side"),
        "TAKEN": (0, BOUND, "damage it took"),
    },
    "G": {
        "OUTCOME": (-1, 2, "RUNNING, then the winner (0 the heroes, 1 the enemies, 2 nobody)"),
        "REASON": (0, 15, "why it ended (the ruleset's REASONS)"),
        "ROUND": (0, BOUND, "the round"),
        "WIPE": (0, 1, "every hero was knocked out at once (record_from_events)"),
        "ACTOR": (0, "combatants", "the pending decision's combatant"),
        "KIND": (0, 15, "the pending decision's kind (KIND_NONE once over, KIND_TURN…)"),
        "SUSPEND": (0, BOUND, "why the battle stopped for Python (rules.core.loops)"),
        "DECISIONS": (0, BOUND, "decisions taken"),
        "DAMAGES": (0, BOUND, "damages logged since the log was cleared (rules.core.loops.DAMAGE)"),
    },
    "OPT": {
        "ROUND_LIMIT": (1, BOUND, "the last round (the scenario's round_limit)"),
        "SURVIVE": (0, 1, "victory survive: a hero standing at the limit wins"),
    },
}
#: The names of :data:`HEAD`, by array.
REQUIRED: dict[str, tuple[str, ...]] = {array: tuple(head) for array, head in HEAD.items()}
