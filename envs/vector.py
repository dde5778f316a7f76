"""The batched env: many battles of one scenario stepped on the ruleset's kernel.

:class:`KernelVectorEnv` is a ``gymnasium.vector.VectorEnv`` whose ``num_envs`` lanes
are each exactly one :class:`~escaramuza.envs.single.EscaramuzaEnv` (the same
observation and action spaces, seeds, opponent, rewards and ends, battle for battle:
tests/envs/test_env_vector.py), played in compiled code (``escaramuza.envs.stepping``):
a call to :meth:`KernelVectorEnv.step` takes every lane's action, plays the opponent's
decisions and writes the observations and masks without returning to Python per lane.

:func:`vector_env` is the entry point: the kernel env where the kernel takes the
scenario and options, else — saying why — Gymnasium's ``SyncVectorEnv`` or
``AsyncVectorEnv`` over the Python env (docs/environments.md, "Batched envs").
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from escaramuza.agents.fast import find_kernel, machine_threads
from escaramuza.envs.codec import ActionCodec
from escaramuza.envs.common import (
    DEFAULT_MAX_COMBATANTS,
    DEFAULT_MAX_ITEMS,
    DEFAULT_MAX_ZONES,
    battle_seeds,
    check_draw_reward,
    check_flag,
    check_illegal_penalty,
    check_open,
    lane_actions,
    load_env_scenario,
    reset_seed,
    resolve_ruleset,
)
from escaramuza.envs.lane_seeds import (
    STATE_WORDS,
    draw_seeds,
    load_state,
    seed_words,
    store_state,
)
from escaramuza.envs.lane_threads import LaneThreads
from escaramuza.envs.observation import OBS_BOUND, ObservationEncoder
from escaramuza.envs.stepping import (
    AUTO,
    BOTH_SIDES,
    L_FINAL_CS,
    L_FINAL_G,
    L_N_LEGAL,
    L_REWARD,
    L_SLOTS,
    L_STATUS,
    L_SUSPENDED_G,
    L_TERMINATED,
    L_TRUNCATED,
    LANE,
    OVERFLOW,
    SUSPENDED,
    Stepping,
    compile_stepping,
    illegal_lanes,
)
from escaramuza.envs.tables import encoder_tables
from escaramuza.rules.core import mt
from escaramuza.rules.core.compiled import MAX_PASSES, CompiledKernel, Exported, agent_code
from escaramuza.rules.core.errors import IllegalActionError
from escaramuza.rules.core.kernel import KernelBattle, KernelRefusal
from escaramuza.rules.core.loops import A_KEY, DAMAGE_LOG_ROWS
from escaramuza.rules.core.model import Side
from escaramuza.rules.core.scenario import Scenario

#: Words of an agents' generator key: the env's seeds are below 2**62 (two words).
KEY_WORDS = 2
#: The fewest lanes a thread steps by default: below that, starting a thread costs more
#: than the lanes it would take (about 4 µs a lane).
LANES_PER_THREAD = 32
#: How much later than the other threads the calling thread is aimed to finish a step
#: (seconds): waiting on a thread that has finished costs nothing, being woken by one
#: tens of microseconds.
LAST_MARGIN = 30e-6

_COMPILED: dict[str, Stepping] = {}


def check_count(name: str, value: Any) -> int:
    """``value`` if it is a whole number of at least 1, else a ValueError naming ``name``:
    not ``int()`` of it, which read 1.5 as one and "3" as three."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    return int(value)


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` if it is a whole number of lanes (at least 1), else a ValueError (and
    not Gymnasium's ``SyncVectorEnv`` of no envs, which fails on an IndexError)."""
    return check_count("num_envs", num_envs)


class KernelEnvRefusal(KernelRefusal):
    """What the batched env does not implement (the Python env does): a message."""


def stepping(kernel: CompiledKernel) -> Stepping:
    """The ruleset's compiled step, built once per process (numba caches it on disk)."""
    ruleset_id = kernel.ruleset_id
    done = _COMPILED.get(ruleset_id)
    if done is None:
        loops = kernel.loops
        view = importlib.import_module(f"escaramuza.rules.{ruleset_id}.kernel_view")
        done = _COMPILED[ruleset_id] = compile_stepping(kernel.owner, loops.rules, view)
    return done


class KernelVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` battles of one scenario, each an ``EscaramuzaEnv``, on the kernel.

    The arguments are ``EscaramuzaEnv``'s (``ruleset``, ``scenario``, ``side``,
    ``opponent`` — a name the kernel plays: ``heuristic``, ``random`` or
    ``heuristic:<temperament>`` —, ``draw_reward``, ``illegal_action``,
    ``illegal_penalty``, the limits) and ``num_envs``. Autoreset is Gymnasium's
    next-step mode by default: the step after a lane's battle ends starts its next
    battle (the lane's action is ignored, its reward is 0); ``autoreset_mode=
    AutoresetMode.SAME_STEP`` starts it in the same step (the final observation and
    info in ``infos["final_obs"]`` and ``infos["final_info"]``, as Gymnasium's vector
    envs put them), as stable-baselines3 wants (``escaramuza.envs.sb3``).
    ``action_masks()`` gives the ``(num_envs, n)`` legal slots, ``legal_slots()`` the
    same as lists. What it does not implement raises
    :class:`KernelEnvRefusal` (a render mode, an opponent object, ``autoreset_mode``
    DISABLED or a scenario the kernel refuses): :func:`vector_env` then falls back.
    ``reward_shaping`` it computes as the Python env does.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    #: Every decision is the caller's, each seen by its side (``escaramuza.envs.aec_vector``).
    both_sides: bool = False
    kernel: CompiledKernel
    encoder: ObservationEncoder
    codec: ActionCodec
    side: Side
    illegal_action: str
    illegal_penalty: float
    reward_shaping: bool
    autoreset_mode: AutoresetMode
    _compiled: Stepping
    _exported: Exported
    _enc: tuple[np.ndarray, ...]
    _agents: np.ndarray
    _autoreset: np.ndarray
    _started: bool

    def __init__(
        self,
        ruleset: str,
        num_envs: int,
        scenario: str | Scenario | None = None,
        side: Literal["enemies", "heroes"] | Side = "enemies",
        opponent: Any = "heuristic",
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
        autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP,
        threads: int | None = None,
    ) -> None:
        num_envs = check_num_envs(num_envs)
        if threads is not None:
            threads = check_count("threads", threads)
        if illegal_action not in ("raise", "noop"):
            raise ValueError(f"illegal_action must be 'raise' or 'noop', not {illegal_action!r}")
        self.draw_reward = check_draw_reward(draw_reward)
        self.illegal_penalty = check_illegal_penalty(illegal_penalty)
        reward_shaping = check_flag("reward_shaping", reward_shaping)
        check_flag("narrate", narrate)  # the kernel does not narrate; still a bool
        self.ruleset = resolve_ruleset(ruleset)
        self.scenario = load_env_scenario(
            self.ruleset, scenario, max_combatants, max_zones, max_items
        )
        if render_mode is not None:
            raise KernelEnvRefusal(f"render_mode {render_mode!r} (the batched env does not render)")
        if not isinstance(opponent, str):
            raise KernelEnvRefusal(f"opponent {opponent!r} (the kernel plays named agents)")
        kernel = find_kernel(self.ruleset.id)
        if not isinstance(kernel, CompiledKernel):
            raise KernelEnvRefusal(f"{self.ruleset.id}: no compiled kernel")
        why = kernel.refusal(self.scenario, [opponent, opponent])
        if why is not None:
            raise KernelEnvRefusal(why)
        self.reward_shaping = reward_shaping
        self.kernel = kernel
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        if self.autoreset_mode is AutoresetMode.DISABLED:
            raise KernelEnvRefusal("autoreset_mode DISABLED")
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.side = Side(side)
        self.opponent = opponent
        self.illegal_action = illegal_action
        self.num_envs = int(num_envs)
        #: Threads stepping the lanes, each a contiguous slice of them (default: one per
        #: core this process may run on, with at least LANES_PER_THREAD lanes each).
        self.threads = min(
            threads if threads is not None else machine_threads(),
            max(1, self.num_envs // (LANES_PER_THREAD if threads is None else 1)),
        )
        self._pool: LaneThreads | None = None
        self.codec = ActionCodec(self.ruleset, max_combatants, max_zones, max_items)
        self.encoder = ObservationEncoder(self.ruleset, max_combatants, max_zones)
        self.single_action_space = spaces.Discrete(self.codec.n)
        self.single_observation_space = spaces.Box(
            -OBS_BOUND, OBS_BOUND, shape=(self.encoder.size,), dtype=np.float32
        )
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.codec.n))
        self.observation_space = spaces.Box(
            -OBS_BOUND,
            OBS_BOUND,
            shape=(self.num_envs, self.encoder.size),
            dtype=np.float32,
        )
        self._compiled = stepping(kernel)
        self._exported = kernel.exported(self.scenario)
        self._enc = encoder_tables(
            self.encoder,
            self.codec,
            self.scenario,
            self.kernel,
            BOTH_SIDES if self.both_sides else (0 if self.side is Side.HEROES else 1),
            self.reward_shaping,
        )
        self._agents = np.full(2, agent_code(opponent), dtype=np.int64)
        self._build_lanes()
        # Each lane's generator, made from fresh entropy at its first draw unless a seeded
        # reset makes it first (reset(seed=…) replaces them all). Its state lives in a row
        # of ``_states`` while ``_in_states`` says so (the compiled draws advance it
        # there), else in the generator object (``battle_generator`` hands it out).
        self._rngs: list[np.random.Generator | None] = [None] * self.num_envs
        self._states = np.zeros((self.num_envs, STATE_WORDS), dtype=np.uint64)
        self._in_states = np.zeros(self.num_envs, dtype=np.bool_)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False
        # Each lane's battle's seeds, the dice's and the agents' (``battle_seeds``).
        self._seeds = np.zeros((self.num_envs, 2), dtype=np.uint64)

    # -- the tables and lanes --------------------------------------------------------------
    def _build_lanes(self) -> None:
        n = self.num_envs
        exported = self._exported
        # A lane keeps its battle's state between steps (the arrays the ruleset's reset
        # copies); the damage log and the other scratch arrays stay in the thread's bundle.
        kept = list(self.kernel.KEPT)
        self._D = tuple(np.repeat(exported.start[i][None], n, axis=0) for i in kept)
        width = self.kernel.ACTION_WIDTH
        size, actions = self.encoder.size, self.codec.n
        self._mask = np.zeros((n, actions), dtype=np.bool_)
        # The arrays the last compiled call wrote, new ones each call, returned as they
        # are: the threads encode each lane's observation straight into its row (a lane
        # keeps none of its own: observations() encodes them again from the lanes'
        # states) and copy its mask there.
        self._obs_out = np.zeros((n, size), dtype=np.float32)
        self._mask_out = self._mask.copy()
        arrays = {
            "DICE": mt.new_state(n),
            "ARNG": np.zeros((n, A_KEY + KEY_WORDS), dtype=np.uint32),
            "LA": np.zeros((n, exported.actions, width), dtype=np.int64),
            "MASK": self._mask,
            "ROWS": np.full((n, actions), -1, dtype=np.int64),
            "N_LEGAL": np.zeros(n, dtype=np.int64),
            "REWARD": np.zeros(n, dtype=np.float64),
            "TERMINATED": np.zeros(n, dtype=np.bool_),
            "TRUNCATED": np.zeros(n, dtype=np.bool_),
            "STATUS": np.zeros(n, dtype=np.int64),
            "FINAL_CS": np.zeros((n, *exported.start[0].shape), dtype=np.int64),
            "FINAL_G": np.zeros((n, *exported.start[1].shape), dtype=np.int64),
            "SLOTS": np.zeros((n, max(exported.actions, 1)), dtype=np.int64),
            "SHAPING": np.zeros(n, dtype=np.float64),
            "ACTING": np.zeros(n, dtype=np.int64),
            "SUSPENDED_G": np.zeros((n, *exported.start[1].shape), dtype=np.int64),
        }
        # In the step's order (stepping.LANE), whatever the order above.
        self._lanes = tuple(arrays[name] for name in LANE)
        # Each thread plays its own slice of the lanes in its own scratch: a bundle to
        # play in, the (batch, scratch) pairs, and the step's scratch arrays.
        self._threads = []
        for _ in range(self.threads):
            d = self.kernel.scratch(exported)
            pairs = tuple((self._D[k], d[i]) for k, i in enumerate(kept))
            scratch = (
                mt.new_state(),
                np.zeros(A_KEY + KEY_WORDS, dtype=np.uint32),
                np.zeros(len(self.encoder.resource_keys) + self.ruleset.n_features + 1),
                np.zeros((exported.actions, width), dtype=np.int64),
                (
                    mt.new_state(mt.LANES),
                    np.zeros((mt.LANES, KEY_WORDS), dtype=np.uint32),
                    np.zeros(mt.LANES, dtype=np.int64),
                    np.zeros(mt.LANES, dtype=np.int64),
                ),
            )
            self._threads.append((pairs, d, scratch))
        #: Each thread's share of the lanes (it plays a contiguous slice of them): equal at
        #: first, then following how long each thread took (:meth:`_balance`).
        self._shares = [1.0 / self.threads] * self.threads
        self._bounds: list[int] = []
        self._slice_lanes()
        #: Every lane: a step's lanes, the calls the threads' shares follow. Writable as
        #: every mask the step is given: numba compiles the step once per array type, and
        #: a read-only array is another type (another 5 s of first compile).
        self._every = np.ones(n, dtype=np.bool_)
        #: The lanes that have begun a battle (their arrays hold one: observations()
        #: encodes only these).
        self._begun = np.zeros(n, dtype=np.bool_)
        self._dice_keys = np.zeros((n, KEY_WORDS), dtype=np.uint32)
        self._dice_len = np.zeros(n, dtype=np.int64)
        self._agent_keys = np.zeros((n, KEY_WORDS), dtype=np.uint32)
        self._agent_len = np.zeros(n, dtype=np.int64)
        self._key_words = (self._dice_keys, self._dice_len, self._agent_keys, self._agent_len)

    def _slice_lanes(self) -> None:
        """Each thread's slice of the lanes from the shares (at least one lane each)."""
        n, threads = self.num_envs, self.threads
        bounds, total = [0], 0.0
        for t in range(threads - 1):
            total += self._shares[t]
            bounds.append(min(max(round(total * n), t + 1), n - threads + t + 1))
        bounds.append(n)
        self._bounds = bounds

    def _balance(self, seconds: list[float]) -> None:
        """Move lanes towards the threads that finished first: ``seconds[t]``, from the
        call to thread ``t``'s end (its start's delay included). The calling thread is
        aimed to end :data:`LAST_MARGIN` after the others, so that it finds them done
        rather than sleeps until one wakes it. A lane's battle is the same whichever
        thread plays it."""
        bounds = self._bounds
        rates = [
            (bounds[t + 1] - bounds[t]) / max(sec - (LAST_MARGIN if t == 0 else 0.0), 1e-6)
            for t, sec in enumerate(seconds)
        ]
        total = sum(rates)
        self._shares = [0.8 * s + 0.2 * r / total for s, r in zip(self._shares, rates, strict=True)]
        self._slice_lanes()

    def _draw_seeds(
        self, lanes: np.ndarray, generators: dict[int, np.random.Generator] | None = None
    ) -> None:
        """New battles' seeds for ``lanes``, from each lane's generator as the Python
        env draws them (``battle_seeds``); their key words for the compiled step. The
        lanes' own generators are drawn in compiled code (``envs.lane_seeds``)."""
        if generators is None:
            # The lanes' own generators are PCG64s (gymnasium's seeding makes them).
            for b in np.flatnonzero(lanes & ~self._in_states).tolist():
                load_state(self._states[b], self.battle_generator(b))
                self._in_states[b] = True
            draw_seeds(lanes, self._states, self._seeds, self._key_words)
            return
        rows = np.flatnonzero(lanes)
        if not len(rows):
            return
        self._seeds[rows] = [battle_seeds(generators[b]) for b in rows.tolist()]
        seed_words(lanes, self._seeds, self._key_words)

    @property
    def dice_seeds(self) -> list[int]:
        """Each lane's dice seed of its battle (``EscaramuzaEnv``'s ``battle_seeds``)."""
        seeds: list[int] = self._seeds[:, 0].tolist()
        return seeds

    def battle_generator(self, lane: int) -> np.random.Generator:
        """The generator lane ``lane``'s next battle draws its seeds from: the lane's
        own, as ``EscaramuzaEnv.reset`` draws from its ``np_random``."""
        rng = self._rngs[lane]
        if rng is None:
            rng = self._rngs[lane] = seeding.np_random(None)[0]
        elif self._in_states[lane]:
            # Its state is the compiled draws' row: handed back to the object, which
            # owns it again until the lane's next draw.
            store_state(self._states[lane], rng)
            self._in_states[lane] = False
        return rng

    def restart(
        self, lanes: np.ndarray, generators: dict[int, np.random.Generator] | None = None
    ) -> None:
        """Start the next battle now in ``lanes`` (their observations and masks are the
        new battles'), as a wrapper that ends an episode itself needs; each battle's
        seeds from ``generators[lane]`` if given, else :meth:`battle_generator`."""
        check_open(self.closed, self.ruleset.env_id)
        lanes = self._lane_mask(lanes)
        self._started = True
        self._draw_seeds(lanes, generators)
        self._run(lanes, lanes, np.zeros(self.num_envs, dtype=np.int64))
        self._autoreset[lanes] = False

    def _lane_mask(self, lanes: Any) -> np.ndarray:
        """``lanes`` as the compiled step reads it, one flag a lane, else a ValueError: the
        step reads and writes the lanes' rows by position without bounds checks, so a
        longer mask would write past them, and a mask of lane numbers (``[0, 2]``) would
        pick the lanes where it is not zero, not those it names."""
        mask = np.asarray(lanes)
        if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
            raise ValueError(
                f"lanes must be a bool array of shape ({self.num_envs},), one flag a lane, "
                f"not {mask.dtype} of shape {mask.shape}"
            )
        # A fresh C-ordered, writable copy: a read-only or strided mask is another array
        # type to numba, and would compile the step a second time.
        return np.array(mask, dtype=np.bool_, order="C")

    def _run(
        self,
        todo: np.ndarray,
        begin: np.ndarray,
        actions: np.ndarray,
        enc: tuple[np.ndarray, ...] | None = None,
        agents: np.ndarray | None = None,
        base: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """The compiled step over the lanes ``todo``, suspended lanes resolved and stepped
        again (``enc``, ``agents``: other tables and agent codes than the env's), into new
        ``_obs_out`` and ``_mask_out`` arrays: the other lanes' rows are ``base``'s (the
        observations and masks they hold), or zeros without it."""
        status = self._lanes[L_STATUS]
        enc = self._enc if enc is None else enc
        agents = self._agents if agents is None else agents
        if base is not None:
            self._obs_out, self._mask_out = base[0].copy(), base[1].copy()
        elif todo.all():
            # Every row is written (a suspended lane's when it is stepped again).
            self._obs_out = np.empty_like(self._obs_out)
            self._mask_out = np.empty_like(self._mask)
        else:
            self._obs_out = np.zeros_like(self._obs_out)
            self._mask_out = np.zeros_like(self._mask)
        self._begun |= todo & begin
        for _ in range(MAX_PASSES):
            if not self._step_threads(todo, begin, actions, enc, agents):
                return
            if (status[todo] == OVERFLOW).any():
                raise KernelRefusal(
                    f"{self.scenario.name}: more than {DAMAGE_LOG_ROWS} damages between two "
                    "of the learner's decisions (the shaping reads them all)"
                )
            todo = todo & (status == SUSPENDED)
            if not todo.any():
                return
            self.kernel.resolve(self._exported, self._lanes[L_SUSPENDED_G], todo)
            self._exported = self.kernel.exported(self.scenario)
        raise KernelRefusal(f"{self.scenario.name}: a battle kept suspending")

    def _step_threads(
        self,
        todo: np.ndarray,
        begin: np.ndarray,
        actions: np.ndarray,
        enc: tuple[np.ndarray, ...],
        agents: np.ndarray,
    ) -> int:
        """One compiled call over the lanes ``todo``, each thread on its slice of them in
        its own scratch (the step releases the GIL; a lane's battle is the same whichever
        thread plays it); how many lanes suspended or overflowed."""
        exported = self._exported
        out = (self._obs_out, self._mask_out)
        began = time.perf_counter()
        took = [0.0] * self.threads

        def call(t: int) -> int:
            pairs, d, scratch = self._threads[t]
            waiting: int = self._compiled.step_lanes(
                exported.static,
                exported.start,
                pairs,
                d,
                enc,
                self._lanes,
                todo,
                begin,
                actions,
                self._dice_keys,
                self._dice_len,
                self._agent_keys,
                self._agent_len,
                agents,
                self.draw_reward,
                self.illegal_penalty,
                scratch,
                out,
                self._bounds[t],
                self._bounds[t + 1],
            )
            took[t] = time.perf_counter() - began
            return waiting

        if self._pool is None:
            self._pool = LaneThreads(self.threads, "escaramuza-lanes")
        waiting = self._pool.run(call)
        if todo is self._every and self.threads > 1:
            self._balance(took)
        return waiting

    # -- Gymnasium API -----------------------------------------------------------------------
    def _seed_lanes(self, seed: int | Sequence[int | None] | None) -> None:
        """``reset``'s seeds: int ``s`` seeds lane ``i`` with ``s + i``, a list one per
        lane, None keeps the generators."""
        if seed is None:
            return
        # NumPy's integers are seeds too (Gymnasium's seeding takes Python ints only).
        seeds: list[int | None]
        if isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, (Sequence, np.ndarray)) and not isinstance(seed, (str, bytes)):
            seeds = [reset_seed(s) for s in seed]
        else:
            raise ValueError(
                f"reset: seed must be an int, a list of one seed (int or None) per lane, or "
                f"None, not {seed!r}"
            )
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset: {len(seeds)} seeds for {self.num_envs} lanes")
        # Every seed checked (Gymnasium's seeding refuses a negative one) before any
        # lane's generator is replaced.
        generators = [None if s is None else seeding.np_random(s)[0] for s in seeds]
        for b, rng in enumerate(generators):
            if rng is not None:
                self._rngs[b] = rng
                self._in_states[b] = False

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Every lane starts a battle; ``seed`` int ``s`` seeds lane ``i`` with ``s + i``
        (as ``SyncVectorEnv``), a list one seed per lane, None keeps the generators."""
        check_open(self.closed, self.ruleset.env_id)
        self._seed_lanes(seed)
        lanes = np.ones(self.num_envs, dtype=np.bool_)
        self._draw_seeds(lanes)
        self._run(lanes, lanes, np.zeros(self.num_envs, dtype=np.int64))
        self._autoreset[:] = False
        self._started = True
        return self._obs_out, self._infos(np.zeros(self.num_envs, dtype=np.bool_))

    def autoplay(self, agent: str, seed: int | Sequence[int | None] | None = None) -> np.ndarray:
        """The battles ``reset(seed=seed)`` would start, each played to its end with the
        learner's side played by the kernel agent ``agent`` as well (``heuristic``,
        ``heuristic:T``, ``random``, ``first-legal``): a baseline on the very battles a
        learner meets after the same reset. Returns :meth:`last_winners`. The lanes are
        left finished: ``reset`` before stepping again."""
        check_open(self.closed, self.ruleset.env_id)
        try:
            code = agent_code(agent)
        except KernelRefusal as exc:
            raise KernelEnvRefusal(str(exc)) from None
        agents = self._agents.copy()
        agents[0 if self.side is Side.HEROES else 1] = code
        lay = self._enc[0].copy()
        lay[AUTO] = 1
        self._seed_lanes(seed)
        lanes = np.ones(self.num_envs, dtype=np.bool_)
        self._draw_seeds(lanes)
        self._started = False
        zeros = np.zeros(self.num_envs, dtype=np.int64)
        self._run(lanes, lanes, zeros, (lay, *self._enc[1:]), agents)
        return self.last_winners()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        check_open(self.closed, self.ruleset.env_id)
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        acts = lane_actions(actions, self.num_envs)
        begin = self._autoreset.copy()
        # What the Python env would refuse, found before any lane moves.
        illegal = self._illegal(acts, ~begin)
        if illegal.any() and self.illegal_action == "raise":
            b = int(np.flatnonzero(illegal)[0])
            slots = np.flatnonzero(self._mask[b]).tolist()
            raise IllegalActionError(
                f"lane {b}: action {int(acts[b])} is not legal; the {len(slots)} legal "
                f"slots are: {', '.join(map(str, slots))}"
            )
        self._draw_seeds(begin)
        self._run(self._every, begin, acts)
        terminated = self._lanes[L_TERMINATED].copy()
        truncated = self._lanes[L_TRUNCATED].copy()
        rewards = self._lanes[L_REWARD].copy()
        infos = self._infos(illegal)
        done = terminated | truncated
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            if done.any():
                # Gymnasium's same-step mode: the final observation and info in the
                # infos (each ended lane's, its flag set; zeros elsewhere), the next
                # battle's first observation returned.
                infos["final_obs"] = self._obs_out
                infos["_final_obs"] = done.copy()
                infos["final_info"] = {
                    "action_mask": self._mask_out & done[:, None],
                    "_action_mask": done.copy(),
                    "illegal_action": illegal & done,
                    "_illegal_action": done.copy(),
                }
                infos["_final_info"] = done.copy()
                self._draw_seeds(done)
                self._run(done, done, acts, base=(self._obs_out, self._mask_out))
                infos["action_mask"] = self._mask_out
        else:
            self._autoreset = done
        return self._obs_out, rewards, terminated, truncated, infos

    def _illegal(self, acts: np.ndarray, deciding: np.ndarray) -> np.ndarray:
        """Which of the lanes ``deciding`` (with a decision pending) ``acts`` names an
        illegal slot in."""
        illegal = np.empty(self.num_envs, dtype=np.bool_)
        illegal_lanes(acts, deciding, self._lanes[L_N_LEGAL], self._mask, illegal)
        return illegal

    def step_only(
        self, lanes: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The learner's ``actions`` in ``lanes`` only, for a wrapper that starts battles
        itself (:meth:`restart`): no autoreset, an illegal action a no-op. ``(rewards,
        terminated, truncated, illegal)`` of every lane (meaningful in ``lanes``); the
        observations and masks are :meth:`observations`, :meth:`action_masks`."""
        check_open(self.closed, self.ruleset.env_id)
        lanes = self._lane_mask(lanes)
        acts = lane_actions(actions, self.num_envs)
        illegal = self._illegal(acts, lanes)
        self._run(lanes, np.zeros(self.num_envs, dtype=np.bool_), acts)
        return (
            self._lanes[L_REWARD].copy(),
            self._lanes[L_TERMINATED].copy(),
            self._lanes[L_TRUNCATED].copy(),
            illegal,
        )

    def last_winners(self) -> np.ndarray:
        """Each lane's last finished battle's winner: 0 heroes, 1 enemies, 2 nobody."""
        winners: np.ndarray = self._lanes[L_FINAL_G][:, int(self.kernel.G["OUTCOME"])].copy()
        return winners

    def observations(self) -> np.ndarray:
        """Every lane's current observation, ``(num_envs, size)``, a new array: encoded
        again from the lanes' battles (a lane keeps no copy of the observation its last
        step returned, which its caller may have changed); zeros for a lane that has begun
        no battle."""
        obs = np.zeros_like(self._obs_out)
        pairs, d, scratch = self._threads[0]
        self._compiled.encode_lanes(
            self._exported.static, pairs, d, self._enc, self._lanes, self._begun, scratch[2], obs
        )
        return obs

    def action_masks(self) -> np.ndarray:
        """The legal slots of every lane's pending decision, ``(num_envs, n)``."""
        return self._mask.copy()

    def legal_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """Every lane's legal slots as a list: ``(slots, counts)``, lane ``b``'s slots
        ``slots[b, :counts[b]]`` in the ruleset's order of its legal actions (a sampler
        without the ``(num_envs, n)`` mask). Over: no slot (count 0). Read-only views."""
        slots, counts = self._lanes[L_SLOTS].view(), self._lanes[L_N_LEGAL].view()
        slots.flags.writeable = counts.flags.writeable = False
        return slots, counts

    def _infos(self, illegal: np.ndarray) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=np.bool_)
        return {
            # The step's own new array (every call makes one): what a caller does to it
            # reaches neither the lanes' masks nor action_masks().
            "action_mask": self._mask_out,
            "_action_mask": every,
            "illegal_action": illegal.copy(),
            "_illegal_action": every.copy(),
        }

    def last_battle(self, lane: int) -> KernelBattle:
        """Lane ``lane``'s last finished battle, as the kernel reads battles back."""
        battles: list[KernelBattle] = self.kernel._read_back(
            self._exported,
            [int(self._seeds[lane, 0])],
            self._lanes[L_FINAL_CS][lane : lane + 1],
            self._lanes[L_FINAL_G][lane : lane + 1],
        )
        return battles[0]

    def close_extras(self, **kwargs: Any) -> None:
        """The lanes are arrays of this process; only the worker threads are shut down."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


Vectorization = Literal["auto", "kernel", "sync", "async"]


class _Masks:
    """``action_masks()`` for Gymnasium's vector envs over the Python env, as the
    kernel's has it: every lane's legal slots, ``(num_envs, n)``; and ``reset`` taking a
    NumPy integer seed as the kernel's does (Gymnasium's asks it for a ``len``)."""

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return super().reset(seed=reset_seed(seed), options=options)  # type: ignore[misc]

    def action_masks(self) -> np.ndarray:
        # ``call`` is the vector env's this mixes into (below).
        return np.stack(self.call("action_masks"))  # type: ignore[attr-defined]


class MaskedSyncVectorEnv(_Masks, gym.vector.SyncVectorEnv):
    """Gymnasium's ``SyncVectorEnv`` with :meth:`action_masks`."""


class MaskedAsyncVectorEnv(_Masks, gym.vector.AsyncVectorEnv):
    """Gymnasium's ``AsyncVectorEnv`` with :meth:`action_masks`."""


def vector_env(
    env_id: str, num_envs: int, vectorization_mode: Vectorization = "auto", **kwargs: Any
) -> VectorEnv[Any, Any, Any]:
    """``num_envs`` copies of the registered env ``env_id`` (with ``gymnasium.make``'s
    keyword arguments) as one ``VectorEnv``: the kernel's (``"kernel"``: or a
    :class:`KernelEnvRefusal`), Gymnasium's ``SyncVectorEnv``/``AsyncVectorEnv`` over
    the Python env (``"sync"``/``"async"``), or the kernel's where it takes the scenario
    and options and else ``SyncVectorEnv`` (``"auto"``). ``autoreset_mode`` is either
    env's; ``threads``, the kernel's only (checked, and unused by the others). The
    result's ``kernel_refusal`` is why the kernel did not play it (None when it did)."""
    import escaramuza.envs  # noqa: F401  (registers the ids)

    if vectorization_mode not in ("auto", "kernel", "sync", "async"):
        raise ValueError(
            f"vectorization_mode must be auto, kernel, sync or async, not {vectorization_mode!r}"
        )
    num_envs = check_num_envs(num_envs)
    spec = gym.spec(env_id)
    options = {**spec.kwargs, **kwargs}
    why: str | None = None
    if vectorization_mode in ("auto", "kernel"):
        try:
            venv: Any = KernelVectorEnv(num_envs=num_envs, **options)
            venv.kernel_refusal = None
            return venv  # type: ignore[no-any-return]
        except KernelRefusal as exc:
            if vectorization_mode == "kernel":
                raise KernelEnvRefusal(f"{env_id}: the batched env does not take {exc}") from None
            why = str(exc)
    # The batched env's own keywords are not the Python env's: the autoreset mode is
    # Gymnasium's vector env's, the threads have nothing to step.
    mode = AutoresetMode(kwargs.pop("autoreset_mode", AutoresetMode.NEXT_STEP))
    if kwargs.pop("threads", None) is not None:
        check_count("threads", options["threads"])
    fns = [lambda: gym.make(env_id, **kwargs) for _ in range(num_envs)]
    python: Any = (
        MaskedAsyncVectorEnv(fns, autoreset_mode=mode)
        if vectorization_mode == "async"
        else MaskedSyncVectorEnv(fns, autoreset_mode=mode)
    )
    python.kernel_refusal = why or f"vectorization_mode {vectorization_mode!r}"
    if why is not None:
        gym.logger.warn(f"{env_id}: the batched env does not take {why}; stepping the Python env")
    return python  # type: ignore[no-any-return]
