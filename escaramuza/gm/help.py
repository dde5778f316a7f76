"""The ``gm`` session's help texts: each command's synopsis, one line of what it does, then
any details. ``help`` lists the first lines and ``help COMMAND`` shows one text whole."""

from __future__ import annotations

from escaramuza.rules.core.i18n import N_

#: Each command's help: its synopsis and one line of what it does, then any details.
#: ``help`` lists the first lines and ``help COMMAND`` shows one text whole.
HELP: dict[str, str] = {
    "actions": N_(
        "actions — the numbered legal actions of the pending decision (use with apply N)."
    ),
    "apply": N_(
        "apply N | apply ACTION-WORDS [dice D D …] — carry out a legal action."
        "\n\nN is the number in front of the action in the last list shown — the ranking of "
        "`suggest` (rank N) or `actions` — while the battle has not changed since; else "
        "its number in `actions`. Words pick the one action whose text holds them all "
        "(apply atacar rex arco). `dice 6 14 4 10` gives the dice in the order the rules "
        "roll them (or d20=14 to name the die); they must all be used. Without dice the "
        "tool rolls (roll auto) or asks for each die (roll manual)."
    ),
    "auto": N_(
        "auto [AGENT] | auto off — let an agent take every decision of the enemies."
        "\n\nWith the autopilot on, each decision of the enemy side — turns, reactions, "
        "the ruleset's choices — is taken by AGENT (default mcts: the planner at the "
        "session's budget, --budget-ms or --iterations; mcts:300ms or mcts:200it bring "
        "their own; a temperament such as brute, heuristic, random or policy:NAME play "
        "their own choice) and narrated with its reason and the enemies' win chance "
        "(interval at 95%, rollouts), until the heroes decide. It plays after each "
        "apply, and at once when an enemy decides now; on a heroes' decision it waits. "
        "The dice follow roll auto|manual. undo takes back your last command and "
        "everything the autopilot played after it. Ctrl-C pauses it; auto goes on."
    ),
    "cond": N_(
        "cond add ID NAME [VALUE] | cond remove ID NAME — add or remove a condition."
        "\n\nNAME is one of the ruleset's conditions (or a variant of one, such as Sistema "
        "2d10's incapacitado_pierna_derecha); VALUE is its number (Envenenado 2), which "
        "Sistema 2d10's aturdido (-10 to -1), sangrado and derribado (1 to 10) and "
        "moribundo (turns) need. An added condition lasts until removed; removing one is "
        "how a GM heals it."
    ),
    "help": N_("help [COMMAND] — the commands, or one command in detail."),
    "initiative": N_(
        "initiative [dice D D …] — redo the start (initiative) with the table's dice."
        "\n\nOnly before the first action is applied; the dice go in the order the ruleset "
        "rolls them (each combatant that rolls, in scenario order). Without dice the tool rolls "
        "(roll auto) or asks for each die (roll manual). Edits made so far are kept."
    ),
    "load": N_("load FILE — continue from a state file (or start a scenario afresh); undo-able."),
    "log": N_("log [N] — the last N events (default 15) of this session."),
    "map": N_("map — the zones (cover, exits), who stands in each, and the links."),
    "move": N_("move ID ZONE — put a combatant in a zone (no rules applied: the GM says so)."),
    "plan": N_(
        "plan [SAMPLES] — the enemies' plan for the round, and their win chance if followed."
        "\n\nThe round is played forward SAMPLES times (default 12) on sampled dice, the "
        "enemies by the planner (the session's --iterations, else 200 rollouts a "
        "decision), the heroes in character; each enemy's planned turn is its most "
        "frequent one, shown with how often it was chosen and why. The win chance comes "
        "from 200 playouts to the end with the plan followed while legal (docs/gm.md)."
    ),
    "quit": N_(
        "quit — end the session (the autosave file keeps the battle)."
        "\n\nIf the last autosave failed (a full disk), the battle is in no file: the first "
        "quit says so and stays, for a save FILE elsewhere; quit again leaves anyway."
    ),
    "roll": N_(
        "roll [auto|manual] — who rolls the dice: the tool (auto) or the table (manual)."
        "\n\nauto: the tool rolls, seeded by the session seed and the step number.\n"
        "manual: every die is asked for at a prompt (an empty answer cancels the action).\n"
        "`apply N dice 6 14 …` gives the dice of one action whatever the mode."
    ),
    "save": N_("save FILE — write the battle to a state file (JSON; see docs/gm.md)."),
    "set": N_(
        "set ID RESOURCE VALUE — set a resource (pv 5); +N / -N change it by N."
        "\n\nThe value must be a whole number from 0 to the combatant's maximum. A status "
        "does not change by itself: use `status ID down` when a combatant drops."
    ),
    "show": N_("show — the round, whose decision is pending, and every combatant."),
    "status": N_("status ID STATUS — mark a combatant active, down, defeated, dead or fled."),
    "suggest": N_(
        "suggest [MS] [max MAX] — rank the pending combatant's actions."
        "\n\nSearches MS ms (default: the session's --budget-ms, 800, or its --iterations "
        "rollouts; MS and MAX are 10–60000: a search must end, so "
        "`suggest nan` or `1e99` is refused); while the best is too close to call it goes"
        " on up to MAX ms (default: the session's --max-ms, 3000), and stops as soon as "
        "it is clear there. Rows are ranked by the win chance (interval at 95%, rollouts), "
        "with the exact odds, the risk to the actor before its next turn, a reason and "
        "the in-character pick (*); actions too close to call are grouped, * first."
    ),
    "undo": N_(
        "undo [N] — take back the last change (edit, action or load), or the last N."
        "\n\nAfter the autopilot played, one undo takes back your last command and every "
        "decision the autopilot took after it: after an apply, the battle is back at "
        "your last heroes' decision."
    ),
}
