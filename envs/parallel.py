"""The PettingZoo ParallelEnv: every combatant an agent, one step per group of decisions.

Agents are the scenario's combatants (``possible_agents`` = their ids, scenario
order). A step takes every decision the engine is waiting for at once — the
group ``Ruleset.simultaneous`` lists:

* **Cairn**: a side's whole round of declarations. CA-02: "Todas las acciones se
  declaran antes de resolverse" and "El resultado de las acciones de cada lado
  ocurre simultáneamente", so every combatant of the side able to act chooses in
  the same step, without seeing the others' choices, and the step resolves them
  together (movement, then the keep-highest damage pools, CA-06). The next step
  is the other side's declarations.
* **Destiny Dice, Donjon, Sistema 2d10** (turn-based): the one pending decision —
  a turn, a reaction, a choice. Only that combatant's action is taken; every other
  agent's ``action_mask`` is all zeros and its action is ignored (PettingZoo's
  convention for turn-based games, as ``turn_based_aec_to_parallel``).

Observations are ``Dict(observation=Box, action_mask=Box(int8))`` with the AEC
env's layout, from the agent's side's point of view; an acting agent sees itself
as the acting combatant (its flag, the distances from it), so each of a Cairn
side's declarers sees the battle from where it stands. ``infos[agent]["acting"]``
says whether the agent decides in the next step.

Rewards: each agent gets its side's — +1 to the winners, −1 to the losers at the
end, ``draw_reward`` (default 0) to everybody when nobody wins — so a side's
agents share one team reward. A combatant out of the fight stays an agent, with
an all-zero mask, until the battle ends (and gets its side's final reward then).
All agents are terminated when the battle ends, truncated at the round limit
(reason ``"timeout"``); ``agents`` is then empty.

``step(actions)`` reads the acting agents' actions and ignores the others' (PettingZoo's
convention); a key that is not an agent of the env is a ``ValueError`` naming it.

Illegal actions (an acting agent's action outside its mask, or no action for
it): with ``illegal_action="noop"`` (default, so unmasked samplers such as
PettingZoo's ``parallel_seed_test`` never crash) the step applies none of the
group's actions — the battle does not move, the same agents are asked again —
and each agent that gave one gets ``-illegal_penalty`` and
``info["illegal_action"] = True``; with ``"raise"`` it raises
:class:`~escaramuza.rules.core.errors.IllegalActionError`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import (
    DEFAULT_MAX_COMBATANTS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_ZONES,
    action_index,
    battle_seeds,
    check_draw_reward,
    check_illegal_penalty,
    load_env_scenario,
    reset_seed,
    resolve_ruleset,
)
from escaramuza.envs.multiagent import AgentSpaces, check_render_mode, legal_listing
from escaramuza.envs.observation import ObservationEncoder
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError, IllegalActionError
from escaramuza.rules.core.events import ActionTaken, Event
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState


def parallel_env(**kwargs: Any) -> ParallelEscaramuzaEnv:
    """The parallel env, e.g. ``parallel_env(ruleset="cairn", scenario=…)``."""
    return ParallelEscaramuzaEnv(**kwargs)


class ParallelEscaramuzaEnv(AgentSpaces, ParallelEnv[str, dict[str, np.ndarray], int]):
    """Every combatant of an escaramuza battle as a PettingZoo parallel agent (see the
    module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "escaramuza_parallel_v0",
        "render_fps": 2,
    }

    def __init__(
        self,
        ruleset: str = "destiny_dice",
        scenario: str | Scenario | None = None,
        *,
        draw_reward: float = 0.0,
        illegal_action: Literal["noop", "raise"] = "noop",
        illegal_penalty: float = 0.05,
        max_combatants: int = DEFAULT_MAX_COMBATANTS,
        max_zones: int = DEFAULT_MAX_ZONES,
        max_items: int = DEFAULT_MAX_ITEMS,
        render_mode: str | None = None,
    ) -> None:
        if illegal_action not in ("raise", "noop"):
            raise ValueError(f"illegal_action must be 'noop' or 'raise', not {illegal_action!r}")
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.draw_reward = check_draw_reward(draw_reward)
        self.illegal_action = illegal_action
        self.illegal_penalty = check_illegal_penalty(illegal_penalty)
        self.ruleset = resolve_ruleset(ruleset)
        self.scenario = load_env_scenario(
            self.ruleset, scenario, max_combatants, max_zones, max_items
        )
        self.render_mode = render_mode
        self.codec = ActionCodec(self.ruleset, max_combatants, max_zones, max_items)
        self.encoder = ObservationEncoder(self.ruleset, max_combatants, max_zones)
        #: Agent (combatant id) → its side, fixed by the scenario.
        self.sides: dict[str, Side] = {c.id: c.side for c in self.scenario.combatants}
        self.possible_agents = list(self.sides)
        self.agents = list(self.possible_agents)
        # One space object per agent, returned every time (PettingZoo seeds them).
        self.init_spaces(self.possible_agents, self.encoder, self.codec)
        self._np_random: np.random.Generator | None = None
        self._state: BattleState | None = None
        self._roller: RandomRoller | None = None
        #: The acting agents, in the order the engine takes them → flat index → action.
        self._group: dict[str, dict[int, Action]] = {}
        self._events: list[Event] = []

    @property
    def acting(self) -> list[str]:
        """The agents whose actions the next step takes, in the engine's order."""
        return list(self._group)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        self.check_open()
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(reset_seed(seed))
        dice_seed, _ = battle_seeds(self._np_random)
        self._roller = RandomRoller(dice_seed)
        self._state = new_battle(self.scenario, self._roller)
        self._events = list(self._state.log)
        self.agents = list(self.possible_agents)
        self._refresh_group()
        return self._observations(), self._infos(set())

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        self.check_open()
        state = self.battle
        assert self._roller is not None
        if state.outcome is not None:
            raise EscaramuzaError("the battle is over; call reset()")
        # A key that is no agent at all (a typo, another scenario's id) is refused: read
        # as no action, it would silently stand for its own agent's missing one.
        unknown = next((key for key in actions if key not in self.sides), None)
        if unknown is not None:
            raise ValueError(
                f"actions: {unknown!r} is not an agent of this env (its agents: "
                f"{', '.join(self.possible_agents)})"
            )
        live = list(self.agents)
        rewards = dict.fromkeys(live, 0.0)
        chosen, illegal = self._choose(actions)
        if illegal:
            for agent in illegal:
                rewards[agent] = -self.illegal_penalty
            self._events = []
        else:
            self._apply_group(chosen)
            self._refresh_group()
        outcome = state.outcome
        over = outcome is not None
        timeout = outcome is not None and outcome.reason == "timeout"
        if outcome is not None:
            for agent in live:
                if outcome.winner is None:
                    # The same price of a draw for both sides, as in the AEC env.
                    rewards[agent] += self.draw_reward
                else:
                    rewards[agent] += 1.0 if self.sides[agent] is outcome.winner else -1.0
        observations = self._observations()
        infos = self._infos(illegal)
        terminations = dict.fromkeys(live, over and not timeout)
        truncations = dict.fromkeys(live, timeout)
        if over:
            self.agents = []
        if self.render_mode is not None:
            self.render()
        return observations, rewards, terminations, truncations, infos

    # -- helpers ------------------------------------------------------------------
    def _choose(self, actions: dict[str, Any]) -> tuple[list[Action], set[str]]:
        """The group's engine actions in order, or the agents whose action is illegal."""
        chosen: list[Action] = []
        illegal: set[str] = set()
        for agent, legal in self._group.items():
            given = actions.get(agent)
            action = None if given is None else legal.get(action_index(given))
            if action is None:
                illegal.add(agent)
                if self.illegal_action == "raise":
                    raise IllegalActionError(
                        f"action {given} is not legal for {agent} (acting: "
                        f"{', '.join(self._group)}); its {len(legal)} legal actions are: "
                        f"{legal_listing(legal)}"
                    )
            else:
                chosen.append(action)
        return chosen, illegal

    def _apply_group(self, chosen: list[Action]) -> None:
        state = self.battle
        assert self._roller is not None
        events: list[Event] = []
        for action in chosen:
            pending = state.pending
            if pending is None or pending.actor != action.actor:
                # simultaneous() promised the engine would ask these actors in this order.
                raise EscaramuzaError(
                    f"{self.ruleset.id}: simultaneous() listed {action.actor!r} next, but the "
                    f"engine asks {pending.actor if pending else 'nobody'!r}"
                )
            taken = ActionTaken(state.ruleset.describe(state, action), action.actor, str(action))
            state.log.append(taken)
            events.append(taken)
            events.extend(apply_action(state, action, self._roller, validate=False))
        self._events = events

    def _refresh_group(self) -> None:
        state = self.battle
        self._group = {
            actor: self.codec.legal_map(state, actions)
            for actor, actions in state.ruleset.simultaneous(state).items()
        }

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        state = self.battle
        # The agents not acting see the battle as the AEC env shows it (the pending
        # actor acting): one encoding per side, copied to each.
        by_side: dict[Side, np.ndarray] = {}
        out: dict[str, dict[str, np.ndarray]] = {}
        for agent in self.agents:
            side = self.sides[agent]
            mask = np.zeros(self.codec.n, dtype=np.int8)
            legal = self._group.get(agent)
            if legal is not None:
                mask[list(legal)] = 1
                obs = self.encoder.encode(state, side, actor=agent)
            else:
                if side not in by_side:
                    by_side[side] = self.encoder.encode(state, side)
                obs = by_side[side].copy()
            out[agent] = {"observation": obs, "action_mask": mask}
        return out

    def _infos(self, illegal: set[str]) -> dict[str, dict[str, Any]]:
        outcome = self.battle.outcome
        infos: dict[str, dict[str, Any]] = {}
        for agent in self.agents:
            info: dict[str, Any] = {
                "acting": agent in self._group,
                "illegal_action": agent in illegal,
            }
            if outcome is not None:
                info["outcome"] = outcome
            infos[agent] = info
        return infos

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        from escaramuza.envs import render

        if self.render_mode == "ansi":
            return render.ansi(self.battle, self._events)
        pending = self.battle.pending
        return render.rgb_array(self.battle, pending.side if pending else Side.HEROES)
