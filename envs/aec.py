"""The PettingZoo AEC env: both sides of a battle as agents ``heroes`` and ``enemies``.

For self-play and multi-agent work. The agent to act is the side of the
pending decision (a side may act several times in a row: its combatants'
turns, its reactions). Observations are ``Dict(observation=Box,
action_mask=Box(int8))`` from the observing side's point of view with the
same layout as the single-agent env; the mask is all zeros for the side not
acting. Rewards: +1 to the winner, −1 to the loser at the end, 0 otherwise; a
battle with no winner gives both sides ``draw_reward`` (default 0, as in the
single-agent env: zero-sum unless a draw is priced).
All agents are terminated when the battle ends, truncated at the round limit
(reason ``"timeout"``).

PettingZoo's ``aec_to_parallel`` refuses it with :class:`NotParallelizableError`
pointing to ``escaramuza.envs.parallel_env`` (every combatant an agent) and to
``turn_based_aec_to_parallel`` (which works: one side acts per step).

``raw_env`` raises :class:`IllegalActionError` for an unmasked action;
``env()`` wraps it PettingZoo's usual way (an illegal move ends the game
with −1 for the mover, bounds asserted, order enforced).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import (
    DEFAULT_MAX_COMBATANTS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_ZONES,
    action_index,
    battle_seeds,
    check_draw_reward,
    load_env_scenario,
    reset_seed,
    resolve_ruleset,
)
from escaramuza.envs.multiagent import AgentSpaces, check_render_mode, legal_listing
from escaramuza.envs.observation import ObservationEncoder
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import IllegalActionError
from escaramuza.rules.core.events import ActionTaken, Event
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

AGENTS: tuple[str, ...] = (Side.HEROES.value, Side.ENEMIES.value)

#: What PettingZoo's ``aec_to_parallel`` is told instead of its generic assertion.
NOT_PARALLELIZABLE = (
    "the escaramuza AEC env cannot go through aec_to_parallel: its agents are the two "
    "sides and a side often decides several times in a row (each of its combatants' turns, "
    "its reactions), while aec_to_parallel needs every agent to act once per cycle. Use "
    "escaramuza.envs.parallel_env(ruleset=..., scenario=...), the ParallelEnv with every "
    "combatant as an agent (Cairn's declarations in one step), or "
    "pettingzoo.utils.conversions.turn_based_aec_to_parallel(env) for the two sides "
    "taking turns"
)


#: The env's PettingZoo type: agent ids, observations (the masked dict), actions.
_AEC: TypeAlias = AECEnv[str, dict[str, np.ndarray], int]


class NotParallelizableError(TypeError):
    """``aec_to_parallel`` on the AEC env (see :data:`NOT_PARALLELIZABLE`)."""


class _Metadata(dict[str, Any]):
    """The AEC env's metadata. PettingZoo's ``aec_to_parallel`` reads
    ``metadata.get("is_parallelizable")`` first and asserts it, with a message that
    names neither the reason nor an alternative; this answers that one read with
    :class:`NotParallelizableError` saying both. Indexing gives ``False`` as usual."""

    def get(self, key: str, default: Any = None) -> Any:
        if key == "is_parallelizable":
            raise NotParallelizableError(NOT_PARALLELIZABLE)
        return super().get(key, default)


def env(**kwargs: Any) -> _AEC:
    """The wrapped AEC env, e.g. ``env(ruleset="destiny_dice", scenario=…)``."""
    base: _AEC = raw_env(**kwargs)
    wrapped: _AEC = wrappers.TerminateIllegalWrapper(base, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AgentSpaces, _AEC):  # PettingZoo's naming convention
    """Both sides of an escaramuza battle as PettingZoo agents (see the module docstring)."""

    metadata: dict[str, Any] = _Metadata(
        {
            "render_modes": ["ansi", "rgb_array"],
            "name": "escaramuza_v0",
            "is_parallelizable": False,
            "render_fps": 2,
        }
    )

    def __init__(
        self,
        ruleset: str = "destiny_dice",
        scenario: str | Scenario | None = None,
        *,
        draw_reward: float = 0.0,
        max_combatants: int = DEFAULT_MAX_COMBATANTS,
        max_zones: int = DEFAULT_MAX_ZONES,
        max_items: int = DEFAULT_MAX_ITEMS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # PettingZoo's is unannotated
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.draw_reward = check_draw_reward(draw_reward)
        self.ruleset = resolve_ruleset(ruleset)
        self.scenario = load_env_scenario(
            self.ruleset, scenario, max_combatants, max_zones, max_items
        )
        self.render_mode = render_mode
        self.codec = ActionCodec(self.ruleset, max_combatants, max_zones, max_items)
        self.encoder = ObservationEncoder(self.ruleset, max_combatants, max_zones)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.init_spaces(list(AGENTS), self.encoder, self.codec)
        self._np_random: np.random.Generator | None = None
        self._state: BattleState | None = None
        self._roller: RandomRoller | None = None
        self._legal: dict[int, Action] = {}
        self._events: list[Event] = []
        self.agent_selection = AGENTS[0]
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.check_open()
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(reset_seed(seed))
        dice_seed, _ = battle_seeds(self._np_random)
        self._roller = RandomRoller(dice_seed)
        self._state = new_battle(self.scenario, self._roller)
        self._events = list(self._state.log)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}
        self._after_decision()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self.check_open()
        state = self.battle
        mask = np.zeros(self.codec.n, dtype=np.int8)
        if agent == self.agent_selection and state.outcome is None:
            mask[list(self._legal)] = 1
        return {"observation": self.encoder.encode(state, Side(agent)), "action_mask": mask}

    def step(self, action: Any) -> None:
        self.check_open()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.battle
        assert self._roller is not None
        index = action_index(action)
        chosen = self._legal.get(index)
        if chosen is None:
            raise IllegalActionError(
                f"action {index} is not legal for {agent} "
                f"({state.pending.actor if state.pending else 'nobody'}); legal: "
                + legal_listing(self._legal)
            )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        taken = ActionTaken(state.ruleset.describe(state, chosen), chosen.actor, str(chosen))
        state.log.append(taken)
        self._events = [taken, *apply_action(state, chosen, self._roller, validate=False)]
        self._after_decision()
        self._accumulate_rewards()
        if self.render_mode is not None:
            self.render()

    def _after_decision(self) -> None:
        state = self.battle
        outcome = state.outcome
        if outcome is None:
            assert state.pending is not None
            self.agent_selection = state.pending.side.value
            self._legal = self.codec.legal_map(state, state.ruleset.legal_actions(state))
            return
        self._legal = {}
        if outcome.winner is not None:
            self.rewards[outcome.winner.value] = 1.0
            self.rewards[outcome.winner.other.value] = -1.0
        else:
            # The same price of a draw for both sides, as each sees it in the
            # single-agent env with the same draw_reward.
            for agent in self.agents:
                self.rewards[agent] = self.draw_reward
        ended = outcome.reason == "timeout"
        self.truncations = dict.fromkeys(self.agents, ended)
        self.terminations = dict.fromkeys(self.agents, not ended)
        for a in self.agents:
            self.infos[a] = {"outcome": outcome}

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        from escaramuza.envs import render

        if self.render_mode == "ansi":
            return render.ansi(self.battle, self._events)
        # "rgb_array", the other mode __init__ takes.
        return render.rgb_array(self.battle, Side(self.agent_selection))
