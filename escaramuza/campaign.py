"""``escaramuza campaign DAY``: play an adventuring day many times — fights and rests.

A day (:mod:`escaramuza.day`) is a party and an ordered list of encounters. Day ``d``
of a run with seed ``S`` plays encounter ``k`` with the battle seed
``SeedSequence(S, spawn_key=(d, k))`` and rolls the rest after it with
``SeedSequence(S, spawn_key=(d, k, 1))``: whatever process plays a day, it plays the
same one, so the numbers are the same for any worker count and either backend (days are
run in chunks by playtest's :class:`~escaramuza.playtest.runner.Runner`, sorted by index).

What carries from fight to fight (resources, lasting conditions, scars, the dead) and
each ruleset's rest are in :mod:`escaramuza.rules.core.rest`. A hero who cannot fight
(down, dead) does not walk into the next encounter; the party goes on while someone
can. The day ends at the first encounter the heroes do not win, or before an encounter
when nobody is left able to fight. Statistics and JSON schema: docs/playtest.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from escaramuza.agents import make_agent
from escaramuza.agents.policy import add_trust_option
from escaramuza.agents.runner import play_battle
from escaramuza.day import Day, day_stem, file_lookup, parse_day, resolve_day
from escaramuza.playtest.cli import add_run_options, report_folder, run_config
from escaramuza.playtest.records import BattleRecord, record_battle
from escaramuza.playtest.runner import PlaytestConfig, Progress, Runner, chunk_ranges
from escaramuza.playtest.stats import proportion, round6
from escaramuza.playtest.text import pct, table
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError, ScenarioError
from escaramuza.rules.core.files import parse_yaml, read_text_file
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.model import Combatant, Side, Status
from escaramuza.rules.core.rest import carry, recovery, rest
from escaramuza.rules.core.scenario import MAX_SCENARIO_BYTES

SCHEMA = "escaramuza.campaign/1"
DEFAULT_N = 1000
#: Where a day that was won all the way ends.
FINISHED = "finished"


# -- what travels to a worker ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayRef:
    """A day as a worker can load it anywhere: its text and its encounters' texts."""

    name: str
    source: str
    text: str
    scenarios: tuple[tuple[str, str, str, str], ...]  # (ref, name, source, text)

    @staticmethod
    def resolve(name_or_path: str) -> DayRef:
        path = resolve_day(name_or_path)
        text = read_text_file(Path(path), ScenarioError, _("a day file"), MAX_SCENARIO_BYTES)
        seen: dict[str, tuple[str, str, str]] = {}
        lookup = file_lookup(path)

        def remember(ref: str) -> tuple[str, str, str]:
            seen[ref] = lookup(ref)
            return seen[ref]

        day = parse_day(parse_yaml(text, path, ScenarioError), path, remember, day_stem(path))
        return DayRef(day.name, path, text, tuple((k, *v) for k, v in seen.items()))

    def load(self) -> Day:
        day = _DAYS.get(self)
        if day is None:
            texts = {ref: (name, source, text) for ref, name, source, text in self.scenarios}
            data = parse_yaml(self.text, self.source, ScenarioError)
            day = _DAYS[self] = parse_day(data, self.source, texts.__getitem__, self.name)
        return day


_DAYS: dict[DayRef, Day] = {}


@dataclass(frozen=True, slots=True)
class HeroState:
    """One hero as they enter a fight (or end the day): status and carried resources."""

    status: str
    resources: tuple[int, ...]  # the ruleset's carried resources, in Recovery.resources order
    conditions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DayRecord:
    index: int
    seed: int
    battles: tuple[BattleRecord, ...]  # the fights played, in order
    entering: tuple[tuple[HeroState, ...], ...]  # per fight played, per day hero
    final: tuple[HeroState, ...]
    ended: str  # FINISHED, or the name of the encounter where the day stopped
    ended_at: int  # index of that encounter; len(encounters) when finished


@dataclass(frozen=True, slots=True)
class DayJob:
    ref: DayRef
    heroes: str
    enemies: str
    seed: int
    start: int
    stop: int
    trust_policy: bool = False


def _seed(seed: int, *key: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1)[0])


def _snapshot(day: Day, c: Combatant) -> HeroState:
    keys = recovery(day.ruleset.id).resources
    return HeroState(
        c.status.value, tuple(c.resources[k] for k in keys), tuple(sorted(c.conditions))
    )


def _fighters(day: Day, k: int, party: dict[str, Combatant]) -> list[Combatant]:
    """Encounter ``k``'s combatants: each hero as the last fight and rest left them,
    placed where this encounter puts them; heroes who cannot fight stay out."""
    out = []
    for c in day.encounters[k].scenario.combatants:
        fresh = c.clone()
        if c.side is Side.HEROES and c.id in party:
            carry(day.ruleset.id, fresh, party[c.id])
            if fresh.status is not Status.ACTIVE:
                continue
        fresh.index = len(out)
        out.append(fresh)
    return out


def play_day(
    day: Day, heroes: str, enemies: str, seed: int, index: int, trust_policy: bool = False
) -> DayRecord:
    """Play day ``index`` of a run with ``seed``: every fight until one is not won."""
    party: dict[str, Combatant] = {
        c.id: c.clone() for c in day.encounters[0].scenario.combatants if c.side is Side.HEROES
    }
    battles: list[BattleRecord] = []
    entering: list[tuple[HeroState, ...]] = []
    ended, ended_at = FINISHED, len(day.encounters)
    for k, encounter in enumerate(day.encounters):
        fighters = _fighters(day, k, party)
        if not any(c.side is Side.HEROES for c in fighters):
            ended, ended_at = encounter.name, k  # nobody left able to fight
            break
        entering.append(tuple(_snapshot(day, party[h]) for h in day.heroes))
        scenario = dataclasses.replace(encounter.scenario, combatants=tuple(fighters))
        agents = {
            Side.HEROES: make_agent(heroes, trust_policy=trust_policy),
            Side.ENEMIES: make_agent(enemies, trust_policy=trust_policy),
        }
        battle_seed = _seed(seed, index, k)
        state = play_battle(scenario, agents, seed=battle_seed, narrate=False)
        battles.append(record_battle(k, battle_seed, state))
        for c in state.combatants:
            if c.side is Side.HEROES:
                party[c.id] = c
        _keep_scars(state.log, party)
        if state.outcome is None or state.outcome.winner is not Side.HEROES:
            ended, ended_at = encounter.name, k
            break
        if k + 1 < len(day.encounters):
            roller = RandomRoller(_seed(seed, index, k, 1))
            rest(day.ruleset.id, encounter.rest, [party[h] for h in day.heroes], roller)
    final = tuple(_snapshot(day, party[h]) for h in day.heroes)
    return DayRecord(
        index, _seed(seed, index), tuple(battles), tuple(entering), final, ended, ended_at
    )


def _keep_scars(log: Sequence[Any], party: dict[str, Combatant]) -> None:
    # CA-13: a Cicatrices entry stays with the PC for the rest of the day.
    for event in log:
        if type(event).__name__ == "ScarSuffered" and event.target in party:
            c = party[event.target]
            c.data["scars"] = (*c.data.get("scars", ()), event.entry)


def run_days(job: DayJob) -> list[DayRecord]:
    """Play one chunk of days (in whatever process or Ray node runs it)."""
    day = job.ref.load()
    return [
        play_day(day, job.heroes, job.enemies, job.seed, i, job.trust_policy)
        for i in range(job.start, job.stop)
    ]


# -- statistics ----------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return round6(sum(values) / len(values)) if values else None


def summarize_days(day: Day, records: Sequence[DayRecord]) -> dict[str, Any]:
    """The JSON-ready statistics of a day (schema in docs/playtest.md)."""
    n = len(records)
    if n == 0:
        raise EscaramuzaError(f"{day.name}: no days to summarize")
    keys = recovery(day.ruleset.id).resources
    encounters = []
    for k, enc in enumerate(day.encounters):
        played = [r for r in records if len(r.battles) > k]
        won = [r for r in played if r.battles[k].winner == Side.HEROES.value]
        heroes = []
        for h, hero_id in enumerate(day.heroes):
            states = [r.entering[k][h] for r in played]
            heroes.append(
                {
                    "id": hero_id,
                    "name": day.hero_names[h],
                    "able": round6(
                        sum(s.status == Status.ACTIVE.value for s in states) / len(states)
                    )
                    if states
                    else None,
                    "dead": round6(sum(s.status == Status.DEAD.value for s in states) / len(states))
                    if states
                    else None,
                    "resources": {
                        key: _mean([s.resources[j] for s in states]) for j, key in enumerate(keys)
                    },
                }
            )
        encounters.append(
            {
                "encounter": enc.name,
                "rest_after": enc.rest if k + 1 < len(day.encounters) else None,
                "reached": proportion(len(played), n),
                "won": proportion(len(won), n),
                "won_if_reached": proportion(len(won), len(played)) if played else None,
                "party_wipe_if_reached": (
                    proportion(sum(r.battles[k].wipe for r in played), len(played))
                    if played
                    else None
                ),
                "mean_rounds": _mean([r.battles[k].rounds for r in played]),
                "entering": heroes,
                "ended_here": proportion(sum(r.ended_at == k for r in records), n),
            }
        )
    finished = sum(r.ended == FINISHED for r in records)
    end = [
        {
            "hero": day.hero_names[h],
            "dead": proportion(sum(r.final[h].status == Status.DEAD.value for r in records), n),
            "resources": {
                key: _mean([r.final[h].resources[j] for r in records]) for j, key in enumerate(keys)
            },
        }
        for h in range(len(day.heroes))
    ]
    ends = [FINISHED if r.ended == FINISHED else r.ended for r in records]
    usual = max(dict.fromkeys(ends), key=ends.count)  # ties: the earliest in the day
    return {
        "day": day.name,
        "title": day.title,
        "ruleset": day.ruleset.id,
        "days": n,
        "heroes": list(day.hero_names),
        "carried_resources": list(keys),
        "finished": proportion(finished, n),
        "usually_ends": usual,
        "encounters": encounters,
        "end_of_day": end,
    }


# -- the whole run -----------------------------------------------------------------------


def campaign(
    name: str, config: PlaytestConfig, show_progress: bool = False, runner: Runner | None = None
) -> tuple[dict[str, Any], list[DayRecord]]:
    """Play ``config.n`` days of ``name``; return the JSON document and the records."""
    config.validate()
    ref = DayRef.resolve(name)
    day = ref.load()
    own = runner is None
    active = runner if runner is not None else Runner(config)
    bar = Progress(config.n, day.name, show_progress)
    try:
        active.start()
        size = config.chunk_size or max(1, math.ceil(config.n / (4 * config.processes)))
        if not active.parallel:
            size = config.chunk_size or max(1, math.ceil(config.n / 100))
        jobs = [
            DayJob(ref, config.heroes, config.enemies, config.seed, a, b, config.trust_policy)
            for a, b in chunk_ranges(0, config.n, size)
        ]
        records: list[DayRecord] = active.run(jobs, bar.update, run_days)
    finally:
        bar.close()
        if own:
            active.close()
    records.sort(key=lambda r: r.index)
    if [r.index for r in records] != list(range(config.n)):
        raise EscaramuzaError(f"{day.name}: days missing from the results")
    document = {
        "agents": {"enemies": config.enemies, "heroes": config.heroes},
        "schema": SCHEMA,
        "seed": config.seed,
        **summarize_days(day, records),
    }
    return document, records


def render_text(doc: dict[str, Any]) -> str:
    # Encounter names, resources and rests are the day file's and the seeds' words.
    usual = doc["usually_ends"]
    lines = [
        _f(
            "{title} ({ruleset}): {days} days, seed {seed}; heroes: {heroes}, enemies: "
            "{enemies}. Rates with 95% Wilson intervals.",
            doc["title"],
            doc["ruleset"],
            doc["days"],
            doc["seed"],
            doc["agents"]["heroes"],
            doc["agents"]["enemies"],
        ),
        "",
        _f(
            "party finishes the day: {rate}; the day usually ends: {where}",
            pct(doc["finished"]),
            _("finished (the day is won)") if usual == FINISHED else usual,
        ),
        "",
    ]
    rows = [
        [
            _("encounter"),
            _("reached"),
            _("won"),
            _("won if reached"),
            _("wipe if reached"),
            _("rounds"),
            _("day ends here"),
            _("rest after"),
        ]
    ]
    for e in doc["encounters"]:
        rows.append(
            [
                e["encounter"],
                pct(e["reached"]),
                pct(e["won"]),
                pct(e["won_if_reached"]) if e["won_if_reached"] else "—",
                pct(e["party_wipe_if_reached"]) if e["party_wipe_if_reached"] else "—",
                f"{e['mean_rounds']:.2f}" if e["mean_rounds"] is not None else "—",
                pct(e["ended_here"]),
                e["rest_after"] or "—",
            ]
        )
    lines.extend(table(rows, [False, True, True, True, True, True, True, False]))
    keys = doc["carried_resources"]
    lines += ["", _("attrition: each hero entering each fight (mean over the days that reach it)")]
    rows = [[_("encounter"), _("hero"), _("able to fight"), _("dead"), *keys]]
    for e in doc["encounters"]:
        for h in e["entering"]:
            if h["able"] is None:
                continue
            rows.append(
                [
                    e["encounter"],
                    h["name"],
                    f"{100 * h['able']:.1f}%",
                    f"{100 * h['dead']:.1f}%",
                    *[f"{h['resources'][k]:.2f}" for k in keys],
                ]
            )
    lines.extend(table(rows, [False, False, True, True, *[True] * len(keys)]))
    return "\n".join(lines) + "\n"


def _progress_plot(doc: dict[str, Any]) -> bytes:
    import matplotlib

    from escaramuza.playtest.report import RC, figure, png

    names = [e["encounter"] for e in doc["encounters"]]
    with matplotlib.rc_context(RC):
        fig = figure()
        ax = fig.add_subplot()
        for key, label in (("reached", N_("reached")), ("won", N_("won"))):
            rows = [e[key] for e in doc["encounters"]]
            ax.errorbar(
                range(len(rows)),
                [p["rate"] for p in rows],
                marker="o",
                capsize=3,
                yerr=[
                    [p["rate"] - p["ci95"][0] for p in rows],
                    [p["ci95"][1] - p["rate"] for p in rows],
                ],
                label=_(label),
            )
        ax.set_xticks(range(len(names)), names, rotation=15, ha="right")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(_("share of days (95% Wilson)"))
        ax.set_title(_f("{title}: how far the party gets", doc["title"]))
        ax.legend()
        fig.tight_layout()
        return png(fig)


def _attrition_plot(doc: dict[str, Any]) -> bytes:
    import matplotlib

    from escaramuza.playtest.report import RC, figure, png

    names = [e["encounter"] for e in doc["encounters"]]
    key = doc["carried_resources"][0]
    with matplotlib.rc_context(RC):
        fig = figure()
        ax = fig.add_subplot()
        for h, hero in enumerate(doc["heroes"]):
            ys = [e["entering"][h]["resources"][key] for e in doc["encounters"]]
            ax.plot(
                range(len(names)),
                [math.nan if y is None else y for y in ys],
                marker="o",
                label=hero,
            )
        ax.set_xticks(range(len(names)), names, rotation=15, ha="right")
        ax.set_ylabel(_f("mean {resource} entering the fight", key))
        ax.set_title(_f("{title}: attrition", doc["title"]))
        ax.legend()
        fig.tight_layout()
        return png(fig)


def write_report(doc: dict[str, Any], folder: Path) -> list[Path]:
    """``summary.json``, ``report.md`` and two PNGs: how far the party gets, and each
    hero's first carried resource (PV, Heridas, PI) entering each fight."""
    from escaramuza.playtest.report import write_files

    progress, attrition = _("how far the party gets"), _("attrition")
    md = (
        f"# {doc['title']}\n\n```\n{render_text(doc)}```\n\n"
        f"![{progress}](day-progress.png)\n\n![{attrition}](day-attrition.png)\n"
    )
    return write_files(
        folder,
        {
            "summary.json": json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n",
            "day-progress.png": _progress_plot(doc),
            "day-attrition.png": _attrition_plot(doc),
            "report.md": md,
        },
    )


# -- command line ------------------------------------------------------------------------


#: The command's help line (an English msgid, translated where the parser is built).
HELP = N_("play an adventuring day (encounters and rests) many times")


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "campaign",
        help=_(HELP),
        description=_(
            "Play N adventuring days of DAY (a *.day.yaml file or a shipped day): the "
            "day's heroes fight its encounters in order, resting between them by their "
            "ruleset's rules, with resources, conditions, scars and the dead carried "
            "from fight to fight. Reports the chance the party finishes the day, per "
            "encounter the chance it is reached and won, attrition and where the day "
            "usually ends. See docs/playtest.md."
        ),
    )
    parser.add_argument("day", metavar="DAY", help=_("day file (*.day.yaml) or shipped day"))
    parser.add_argument("-n", type=int, default=DEFAULT_N, help=_f("days (default {n})", DEFAULT_N))
    add_run_options(parser)
    parser.add_argument(
        "--report", metavar="DIR", help=_("write summary.json, report.md and PNG plots to DIR")
    )
    add_trust_option(parser)
    return parser


def cmd_campaign(args: argparse.Namespace, out: TextIO) -> int:
    config = run_config(args, args.n)
    config.validate()
    report_dir = report_folder(args)
    began = time.perf_counter()
    doc, _records = campaign(args.day, config, show_progress=not args.no_progress)
    if report_dir is not None:
        write_report(doc, report_dir)
    if args.json:
        out.write(json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    else:
        out.write(render_text(doc))
        out.write(f"({time.perf_counter() - began:.1f} s)\n")
    return 0
