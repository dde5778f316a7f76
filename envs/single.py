"""The generic single-agent Gymnasium env over any ruleset of ``RULESETS``."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any, Literal, SupportsFloat, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from escaramuza.agents import Agent, make_agent
from escaramuza.agents.runner import check_agents
from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import (
    DEFAULT_MAX_COMBATANTS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_ZONES,
    action_index,
    battle_seeds,
    check_draw_reward,
    check_flag,
    check_illegal_penalty,
    check_open,
    load_env_scenario,
    reset_seed,
    resolve_ruleset,
)
from escaramuza.envs.multiagent import legal_listing
from escaramuza.envs.observation import OBS_BOUND, ObservationEncoder
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError, IllegalActionError
from escaramuza.rules.core.events import ActionTaken, Damaged, Event
from escaramuza.rules.core.model import Action, Side
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import Scenario
from escaramuza.rules.core.state import BattleState

if TYPE_CHECKING:
    # numpy's arrays have the buffer protocol; its stubs declare it from Python 3.12 only
    from typing_extensions import Buffer

#: Opponent decisions taken inside one ``step()`` beyond which the battle is a ruleset bug.
MAX_OPPONENT_DECISIONS = 100_000
#: The shaping term is ``SHAPING_WEIGHT * tanh(x)``: its episode total stays below this.
SHAPING_WEIGHT = 0.5


class EscaramuzaEnv(gym.Env[np.ndarray, np.int64]):
    """One side of an escaramuza battle, for any ruleset, as a single-agent env.

    ## Description

    A skirmish of a tabletop RPG combat system (Destiny Dice, Donjon, Cairn,
    Sistema 2d10) on a zone map. The learner controls EVERY combatant of its
    ``side``; all other decisions (the other side's turns, reactions and
    choices the learner does not own) are taken inside :meth:`step` by the
    ``opponent`` agent, so each step returns the learner's next decision.
    The env only translates: the rules live in ``escaramuza.rules``, the masks
    come only from ``ruleset.legal_actions``. The spaces depend only on the
    ruleset and the limits (``max_combatants``, ``max_zones``, ``max_items``),
    never on the scenario, so one policy plays every scenario of its ruleset.

    ## Action Space

    ``Discrete(N)``; one block per verb of ``ruleset.verbs`` (in that order) of
    ``T × I × Z × O`` slots: ``T = max_combatants`` if the verb takes a target,
    ``I = max_items`` if it takes an item, ``Z = max_zones`` if it takes a zone,
    ``O = len(options)``, each 1 otherwise. Inside a block the index is
    ``((target * I + item) * Z + zone) * O + option`` with ``target`` the
    combatant slot (``Combatant.index``, scenario order), ``item`` the position in
    the ACTING combatant's ``items``, ``zone`` the position in
    ``battlefield.zone_ids`` and ``option`` the position in the verb's
    options. The actor is never encoded: it is the pending decision's actor.
    ``codec.describe_layout()`` lists the blocks, :meth:`decode` gives an index's
    engine action and :meth:`legal_actions` the index → action table.
    ``action_masks()`` (and ``info["action_mask"]``) sets exactly the slots of
    ``ruleset.legal_actions``; when the battle is already over (the opponent ended
    it before the learner's first decision) only slot 0 is set, and stepping it
    reports the end again. With ``illegal_action="raise"`` an unmasked action
    raises :class:`~escaramuza.rules.core.errors.IllegalActionError` naming the
    legal ones; with ``"noop"`` (the registered ids) it changes nothing, returns
    the same observation, ``info["illegal_action"] = True`` and a reward of
    ``-illegal_penalty``.

    ## Observation Space

    ``Box(-10, 10, (max_combatants * per_slot + n_globals,), float32)`` from the
    learner's point of view (see ``escaramuza.envs.observation``). Per slot in
    ``Combatant.index`` order (an empty slot is zeros): present, ally, enemy,
    acting, status one-hot (active, down, defeated, dead, fled), for each of
    ``ruleset.resources`` value / maximum and value / scale, one flag per
    ``ruleset.conditions`` (a variant in ``ruleset.condition_aliases`` sets its
    condition's flag: Sistema 2d10's ``aturdido_16`` sets ``aturdido``),
    hop distance from the acting combatant / (max_zones − 1), band /
    (bands − 1), zone one-hot over ``max_zones``, then ``ruleset.n_features``
    ruleset features (``ruleset.features``: characteristic dice, armour, ammo…).
    Globals: round / round_limit, learner-is-heroes, pending :class:`DecisionKind`
    one-hot, pending decision name one-hot over ``ruleset.decision_names``.
    Values are clipped into [−10, 10].

    ## Rewards

    +1 when the learner's side wins, −1 when it loses, ``draw_reward`` (default
    0) when the battle ends with no winner (draws, "nobody wins" timeouts, both
    sides withdrawing). With ``reward_shaping=True`` each step also gets
    ``0.5 · (tanh(x_after) − tanh(x_before))`` where ``x`` is the running sum,
    over ``Damaged`` events, of damage DEALT by the learner's combatants
    (``source`` on the learner's side, target on the other side) minus damage
    TAKEN by the learner's combatants (from any source), each amount divided by
    the target's maximum of that resource and by the size of the target's side
    (so dropping a whole side from full is about 1). The shaping telescopes:
    an episode's total shaping is ``0.5 · tanh(x_final)``, strictly inside
    (−0.5, 0.5), below the terminal reward; damage done inside :meth:`reset` is
    not shaped.

    ## Starting State

    The scenario's combatants as written, initiative rolled by the ruleset;
    opponent decisions before the learner's first one are played inside
    :meth:`reset`. ``reset(seed=s)`` seeds the env's ``np_random``, from which two
    independent seeds are drawn: the battle's dice and the opponent's own choices,
    so a different opponent never changes the dice. Same seed and actions ⇒ the
    same observations, rewards and events; the env pickles mid-battle and goes on
    identically.

    ## Episode End

    ``terminated`` when the battle ends for any reason except the round limit
    (a side defeated, fled, surrendered…); ``truncated`` when the ruleset ends it
    with reason ``"timeout"`` at the scenario's ``round_limit`` (the terminal
    reward still follows the winner, e.g. the heroes of a ``survive``
    scenario). ``info["outcome"]`` holds the :class:`Outcome` then.
    ``info["events"]`` is the list of :class:`~escaramuza.rules.core.events.Event`
    objects of the step (an ``ActionTaken`` before each decision's events; call
    ``e.to_dict()`` or ``e.text`` for dicts or narrated lines); after
    :meth:`reset` it holds the opening (initiative…) and the opponent's
    decisions before the learner's first one.

    ## Arguments

    ``ruleset`` (an id of ``escaramuza.rules.RULESETS``), ``scenario`` (shipped
    name, path or loaded ``Scenario``; default ``ruleset.default_scenario``),
    ``side`` (``"enemies"`` default, or ``"heroes"``), ``opponent``
    (``"heuristic"`` default, ``"random"`` or any object with
    ``act(state, rng)``), ``reward_shaping`` (False), ``draw_reward`` (0.0, in
    [−1, 1]; anything else or NaN is a ``ValueError``), ``illegal_action``
    (``"raise"`` here, ``"noop"`` in the registered ids), ``illegal_penalty``
    (0.05), ``max_combatants`` (16, at most 16: a scenario's most combatants),
    ``max_zones`` (16, at most 32: a scenario's most zones), ``max_items`` (6, at most 32;
    a larger limit is a ``ValueError``: the spaces would grow with no scenario to fill them),
    ``render_mode`` (``"ansi"``: the step's narrated lines and a status line per
    combatant; ``"rgb_array"``: a 640×480 picture of the battlefield graph with
    tokens and bars of the first resource), ``narrate`` (True; False leaves the
    ``ActionTaken`` lines out of the events and the battle log: the rules' events
    are the same — the training envs use it, since no one reads those lines there).
    The default limits fit every shipped scenario; a scenario above one is refused
    with an :class:`~escaramuza.envs.common.EnvLimitError` naming the limit and the
    value it needs.

    ## Version History

    * v0: initial version. The PettingZoo forms and the batched envs were added
      beside it without changing its dynamics, observations or actions.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        ruleset: str,
        scenario: str | Scenario | None = None,
        side: Literal["enemies", "heroes"] | Side = "enemies",
        opponent: str | Agent = "heuristic",
        *,
        reward_shaping: bool = False,
        draw_reward: float = 0.0,
        illegal_action: Literal["raise", "noop"] = "raise",
        illegal_penalty: float = 0.05,
        max_combatants: int = DEFAULT_MAX_COMBATANTS,
        max_zones: int = DEFAULT_MAX_ZONES,
        max_items: int = DEFAULT_MAX_ITEMS,
        render_mode: str | None = None,
        narrate: bool = True,
    ) -> None:
        if illegal_action not in ("raise", "noop"):
            raise ValueError(f"illegal_action must be 'raise' or 'noop', not {illegal_action!r}")
        self.draw_reward = check_draw_reward(draw_reward)
        self.illegal_penalty = check_illegal_penalty(illegal_penalty)
        reward_shaping = check_flag("reward_shaping", reward_shaping)
        narrate = check_flag("narrate", narrate)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        self.ruleset = resolve_ruleset(ruleset)
        self.scenario = load_env_scenario(
            self.ruleset, scenario, max_combatants, max_zones, max_items
        )
        self.side = Side(side)
        self.opponent: Agent = make_agent(opponent)
        # An opponent that cannot play the scenario (a policy of another ruleset, or of
        # smaller limits) is refused here, not at its first decision inside a step.
        check_agents([self.opponent], self.scenario)
        self.reward_shaping = reward_shaping
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.narrate = narrate
        self.codec = ActionCodec(self.ruleset, max_combatants, max_zones, max_items)
        self.encoder = ObservationEncoder(self.ruleset, max_combatants, max_zones)
        self.action_space = spaces.Discrete(self.codec.n)
        self.observation_space = spaces.Box(
            -OBS_BOUND, OBS_BOUND, shape=(self.encoder.size,), dtype=np.float32
        )
        self._state: BattleState | None = None
        self._roller: RandomRoller | None = None
        self._rng = random.Random(0)
        self._legal: dict[int, Action] = {}
        self._mask = np.zeros(self.codec.n, dtype=bool)
        # The pending decision's observation, kept like the mask: an illegal no-op
        # changes nothing, so it answers with this again instead of re-encoding.
        self._obs = np.zeros(self.encoder.size, dtype=np.float32)
        self._events: list[Event] = []
        self._shaping_x = 0.0
        self._side_sizes: dict[Side, int] = {
            s: sum(1 for c in self.scenario.combatants if c.side is s) for s in Side
        }
        #: Whether :meth:`close` was called: ``reset`` and ``step`` are then refused.
        self.closed = False

    # -- Gymnasium API ---------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        check_open(self.closed, self.ruleset.env_id)
        super().reset(seed=reset_seed(seed))
        dice_seed, agent_seed = battle_seeds(self.np_random)
        self._roller = RandomRoller(dice_seed)
        self._rng = random.Random(agent_seed)
        self._state = state = new_battle(self.scenario, self._roller)
        self._shaping_x = 0.0
        events: list[Event] = list(state.log)
        self._advance(events)
        self._events = events
        return self._observe(), self._info(events, illegal=False)

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        check_open(self.closed, self.ruleset.env_id)
        state = self._state
        if state is None or self._roller is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if state.outcome is not None:
            # Only reachable when the opponent ended the battle before the learner's
            # first decision (reset) or when stepping past the end: report the end again.
            self._events = []
            return self._end_transition([])
        index = action_index(action)
        chosen = self._legal.get(index)
        if chosen is None:
            return self._illegal(index)
        events = self._apply(chosen)
        self._advance(events)
        self._events = events
        return self._end_transition(events)

    def close(self) -> None:
        """Nothing to release (no window, no process), but later ``reset`` and ``step``
        are refused (``gymnasium.error.ClosedEnvironmentError``), as the batched env's;
        closing again does nothing."""
        self.closed = True

    def action_masks(self) -> np.ndarray:
        """Legal slots of the learner's pending decision (MaskablePPO reads this)."""
        return self._mask.copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode=…")
            return None
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before render()")
        from escaramuza.envs import render

        if self.render_mode == "ansi":
            return render.ansi(self._state, self._events)
        return render.rgb_array(self._state, self.side)

    # -- helpers -------------------------------------------------------------------
    @property
    def state(self) -> BattleState:
        """The engine state of the current battle (for agents, explanations and tests)."""
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() first")
        return self._state

    def legal_actions(self) -> dict[int, Action]:
        """Flat index → engine action for the learner's pending decision."""
        return dict(self._legal)

    def decode(self, index: int) -> Action | None:
        return self.codec.decode(self.state, int(index))

    def _apply(self, action: Action) -> list[Event]:
        state = self._state
        assert state is not None and self._roller is not None
        if not self.narrate:
            return apply_action(state, action, self._roller, validate=False)
        # The same ActionTaken line the battle runner logs, so env and CLI logs match.
        chosen = ActionTaken(state.ruleset.describe(state, action), action.actor, str(action))
        state.log.append(chosen)
        return [chosen, *apply_action(state, action, self._roller, validate=False)]

    def _advance(self, events: list[Event]) -> None:
        """Let the opponent take every decision that is not the learner's."""
        state = self._state
        assert state is not None
        taken = 0
        while state.outcome is None:
            pending = state.pending
            if pending is None:
                raise EscaramuzaError(
                    f"{state.scenario.name}: no pending decision in an unfinished battle"
                )
            if pending.side is self.side:
                break
            events.extend(self._apply(self.opponent.act(state, self._rng)))
            taken += 1
            if taken > MAX_OPPONENT_DECISIONS:
                raise EscaramuzaError(
                    f"{state.scenario.name}: the opponent took {taken} decisions in a row"
                )
        self._refresh_mask()

    def _refresh_mask(self) -> None:
        state = self._state
        assert state is not None
        mask = np.zeros(self.codec.n, dtype=bool)
        if state.outcome is None:
            self._legal = self.codec.legal_map(state, state.ruleset.legal_actions(state))
            # Item by item through a memoryview: for the handful of legal slots this is
            # cheaper than a fancy-index assignment (which converts the list first).
            cells: memoryview[bool] = memoryview(cast("Buffer", mask))
            for index in self._legal:
                cells[index] = True
        else:
            self._legal = {}
            # A maskable sampler must never see an empty mask; action 0 then just
            # reports the end again (see step()).
            mask[0] = True
        self._mask = mask

    def _observe(self) -> np.ndarray:
        assert self._state is not None
        self._obs = self.encoder.encode(self._state, self.side)
        # A copy to the caller, so nothing it does to its array reaches the kept one.
        return self._obs.copy()

    def _info(self, events: list[Event], illegal: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "events": list(events),
            "action_mask": self._mask.copy(),
            "illegal_action": illegal,
        }
        if self._state is not None and self._state.outcome is not None:
            info["outcome"] = self._state.outcome
        return info

    def _illegal(self, index: int) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        state = self.state
        if self.illegal_action == "raise":
            meant = self.codec.decode(state, index) if 0 <= index < self.codec.n else None
            raise IllegalActionError(
                f"action {index} ({meant if meant is not None else 'an empty slot'}) is not "
                f"legal for {state.pending.actor if state.pending else 'nobody'}; the "
                f"{len(self._legal)} legal actions are: {legal_listing(self._legal)}"
            )
        self._events = []
        # Nothing changed, so the observation is the decision's kept one
        # (re-encoding it was most of an unmasked learner's no-op step).
        return self._obs.copy(), -self.illegal_penalty, False, False, self._info([], True)

    def _end_transition(
        self, events: list[Event]
    ) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        state = self.state
        reward = self._shaping(events) if self.reward_shaping else 0.0
        terminated = truncated = False
        outcome = state.outcome
        if outcome is not None:
            if outcome.winner is self.side:
                reward += 1.0
            elif outcome.winner is not None:
                reward -= 1.0
            else:
                reward += self.draw_reward
            truncated = outcome.reason == "timeout"
            terminated = not truncated
        return self._observe(), float(reward), terminated, truncated, self._info(events, False)

    def _shaping(self, events: list[Event]) -> float:
        state = self.state
        before = self._shaping_x
        x = before
        for event in events:
            if not isinstance(event, Damaged) or event.amount <= 0:
                continue
            target = state.by_id.get(event.target)
            if target is None:
                continue
            top = target.maxima.get(event.resource) or self.ruleset.resources.get(
                event.resource, 1.0
            )
            share = event.amount / float(top or 1.0) / self._side_sizes[target.side]
            if target.side is self.side:
                x -= share
            else:
                source = state.by_id.get(event.source)
                if source is not None and source.side is self.side:
                    x += share
        self._shaping_x = x
        return SHAPING_WEIGHT * (math.tanh(x) - math.tanh(before))
