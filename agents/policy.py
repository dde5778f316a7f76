"""``policy:PATH``: an agent that plays from a trained stable-baselines3 model.

Learned agents work on observations through the env codec (architecture.md,
"Agents"): for the pending decision the agent builds the same observation the
Gymnasium env gives a learner of the deciding side (``ObservationEncoder``), the
same mask (``ActionCodec.legal_map`` over ``ruleset.legal_actions``) and asks
the model's policy for its action distribution with illegal slots masked out.
It then plays the most probable legal action (``deterministic=True``, the
default) or samples one with the agent's ``rng`` — never a global RNG.

A model saved by ``escaramuza train`` carries ``escaramuza.json`` inside its zip
(ruleset, env id, side, static limits, algorithm), so the file alone is enough.
A bare SB3 zip without it is accepted too: the ruleset is found from its action
space size under the default limits and the algorithm by trying MaskablePPO,
then PPO.

torch and stable-baselines3 are imported only when a policy is loaded, so
``escaramuza.agents`` stays light for the CLI and the playtest workers.
"""

from __future__ import annotations

import io
import json
import os
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError
from escaramuza.rules.core.files import atomic_write
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState

#: Name of the metadata entry ``escaramuza train`` adds to every model zip it writes.
META_NAME = "escaramuza.json"
META_FORMAT = "escaramuza.policy/1"
PREFIX = "policy:"


@dataclass(frozen=True, slots=True)
class PolicyMeta:
    """What an agent needs to rebuild the env codecs a model was trained with."""

    ruleset: str
    env_id: str
    algo: str
    side: str
    max_combatants: int
    max_zones: int
    max_items: int
    scenarios: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": META_FORMAT,
                "ruleset": self.ruleset,
                "env_id": self.env_id,
                "algo": self.algo,
                "side": self.side,
                "max_combatants": self.max_combatants,
                "max_zones": self.max_zones,
                "max_items": self.max_items,
                "scenarios": list(self.scenarios),
            },
            indent=2,
        )


def write_meta(path: str | os.PathLike[str], meta: PolicyMeta) -> None:
    """Add (or replace) ``escaramuza.json`` inside a saved model zip."""
    path = Path(path)
    with zipfile.ZipFile(path) as archive:
        entries = [(i, archive.read(i)) for i in archive.infolist() if i.filename != META_NAME]
    # Built in memory (models are small, issue 9: "under 1 MB") and written with the
    # project's one atomic write, so a crash never leaves a half-written model.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
        archive.writestr(META_NAME, meta.to_json())
    atomic_write(path, buffer.getvalue())


def read_meta(path: str | os.PathLike[str]) -> PolicyMeta | None:
    """The metadata of a model zip, or None for a bare SB3 zip."""
    try:
        with zipfile.ZipFile(path) as archive:
            if META_NAME not in archive.namelist():
                return None
            data = json.loads(archive.read(META_NAME))
    except (OSError, zipfile.BadZipFile) as exc:
        raise EscaramuzaError(f"policy {path}: not a saved model ({exc})") from None
    return PolicyMeta(
        ruleset=data["ruleset"],
        env_id=data["env_id"],
        algo=data["algo"],
        side=data["side"],
        max_combatants=int(data["max_combatants"]),
        max_zones=int(data["max_zones"]),
        max_items=int(data["max_items"]),
        scenarios=tuple(data.get("scenarios", ())),
    )


def _infer_meta(model: Any, algo: str) -> PolicyMeta:
    """Metadata of a bare zip: the ruleset whose default-limit action space has its size."""
    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.common import (
        DEFAULT_MAX_COMBATANTS,
        DEFAULT_MAX_ITEMS,
        DEFAULT_MAX_ZONES,
    )
    from escaramuza.rules import RULESETS, get_ruleset

    n = int(model.action_space.n)
    for ruleset_id in RULESETS:
        ruleset = get_ruleset(ruleset_id)
        codec = ActionCodec(ruleset, DEFAULT_MAX_COMBATANTS, DEFAULT_MAX_ZONES, DEFAULT_MAX_ITEMS)
        if codec.n == n:
            return PolicyMeta(
                ruleset_id,
                ruleset.env_id,
                algo,
                "enemies",
                DEFAULT_MAX_COMBATANTS,
                DEFAULT_MAX_ZONES,
                DEFAULT_MAX_ITEMS,
            )
    raise EscaramuzaError(f"policy: no ruleset has {n} actions under the default limits")


#: Loaded models by (resolved path, mtime): playtests build a fresh agent per battle.
_CACHE: dict[tuple[str, float], tuple[Any, PolicyMeta]] = {}


#: Policies shipped with the package: ``agents/policies/<ruleset>/<scenario>.zip``.
SHIPPED_DIR = Path(__file__).resolve().parent / "policies"


def shipped_policies() -> list[str]:
    """Names of the shipped policies (``destiny_dice/emboscada``…), sorted."""
    return sorted(
        f"{p.parent.name}/{p.stem}" for p in SHIPPED_DIR.glob("*/*.zip") if p.is_file()
    )


def resolve_policy(path: str | os.PathLike[str]) -> Path:
    """A model file: a path, or the name of a shipped policy (``destiny_dice/emboscada``)."""
    file = Path(path)
    if file.is_file():
        return file
    shipped = SHIPPED_DIR / f"{path}.zip"
    if shipped.is_file():
        return shipped
    known = ", ".join(shipped_policies()) or "none"
    raise UnknownNameError(
        f"policy {path}: no such model file (shipped policies: {known})"
    )


def load_model(path: str | os.PathLike[str]) -> tuple[Any, PolicyMeta]:
    """The SB3 model and its metadata (cached; CPU; clear errors for a bad path)."""
    file = resolve_policy(path)
    key = (str(file.resolve()), file.stat().st_mtime)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    meta = read_meta(file)
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    classes: dict[str, Any] = {"maskable-ppo": MaskablePPO, "ppo": PPO}
    order = [meta.algo] if meta is not None else ["maskable-ppo", "ppo"]
    model: Any = None
    errors = []
    for algo in order:
        if algo not in classes:
            raise EscaramuzaError(f"policy {path}: unknown algorithm {algo!r}")
        try:
            model = classes[algo].load(file, device="cpu")
        except Exception as exc:  # noqa: BLE001 - SB3 raises many kinds for a wrong class
            errors.append(f"{algo}: {exc}")
            continue
        if meta is None:
            meta = _infer_meta(model, algo)
        break
    if model is None or meta is None:
        raise EscaramuzaError(f"policy {path}: cannot load ({'; '.join(errors)})")
    _CACHE[key] = (model, meta)
    return model, meta


class PolicyAgent:
    """Plays the pending decision with a trained model, for whichever side decides.

    The observation is built from the deciding side's point of view, exactly as
    the env builds the learner's; a model trained on the enemies can play the
    heroes, but it never saw that point of view unless trained with ``--side both``.
    """

    def __init__(self, path: str | os.PathLike[str], deterministic: bool = True) -> None:
        from escaramuza.envs.codec import ActionCodec
        from escaramuza.envs.observation import ObservationEncoder
        from escaramuza.rules import get_ruleset

        self.path = str(path)
        self.name = f"{PREFIX}{path}"
        self.deterministic = deterministic
        self.model, self.meta = load_model(path)
        self.ruleset = get_ruleset(self.meta.ruleset)
        m = self.meta
        self.codec = ActionCodec(self.ruleset, m.max_combatants, m.max_zones, m.max_items)
        self.encoder = ObservationEncoder(self.ruleset, m.max_combatants, m.max_zones)
        self._check_sizes()
        # MaskablePPO's policy takes the mask itself; PPO's is masked after the fact.
        self._maskable = type(self.model).__name__ == "MaskablePPO"
        self._checked: set[str] = set()

    def _check_sizes(self) -> None:
        # A model whose spaces differ from the codecs' (trained before a ruleset changed
        # its features or verbs, or with other limits) would fail deep inside torch.
        obs_shape = tuple(getattr(self.model.observation_space, "shape", None) or ())
        n_actions = int(getattr(self.model.action_space, "n", -1))
        if obs_shape != (self.encoder.size,) or n_actions != self.codec.n:
            raise EscaramuzaError(
                f"policy {self.path}: the model expects observations of shape {obs_shape} "
                f"and {n_actions} actions, but {self.meta.ruleset!r} with its saved limits "
                f"makes ({self.encoder.size},) and {self.codec.n}; retrain it with this "
                "version of escaramuza"
            )

    def _check(self, state: BattleState) -> None:
        scenario = state.scenario
        if scenario.name in self._checked:
            return
        if state.ruleset.id != self.meta.ruleset:
            raise EscaramuzaError(
                f"policy {self.path} was trained on {self.meta.ruleset!r}; scenario "
                f"{scenario.name!r} is {state.ruleset.id!r}"
            )
        from escaramuza.envs.common import check_limits

        try:
            check_limits(scenario, self.meta.max_combatants, self.meta.max_zones,
                         self.meta.max_items)
        except ValueError as exc:
            raise EscaramuzaError(f"policy {self.path}: {exc}") from None
        self._checked.add(scenario.name)

    def distribution(self, state: BattleState) -> tuple[dict[int, Action], np.ndarray]:
        """The legal index → action table and the policy's probability of every slot
        (illegal slots 0, the rest renormalised)."""
        import torch

        self._check(state)
        pending = state.pending
        if pending is None:
            raise EscaramuzaError("policy: the battle has no pending decision")
        legal = self.codec.legal_map(state, state.ruleset.legal_actions(state))
        mask = np.zeros(self.codec.n, dtype=bool)
        mask[list(legal)] = True
        obs = self.encoder.encode(state, pending.side)
        policy = self.model.policy
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            if self._maskable:
                dist = policy.get_distribution(obs_t, action_masks=mask)
            else:
                dist = policy.get_distribution(obs_t)
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        if not np.isfinite(total) or total <= 0:
            # Every legal slot got ~0 (PPO without masks): fall back to uniform over legal.
            probs = mask / mask.sum()
        else:
            probs = probs / total
        return legal, probs

    def action_probabilities(self, state: BattleState) -> list[tuple[Action, float]]:
        """Each legal action with the policy's probability (for ``suggest``), in the
        ruleset's legal order."""
        legal, probs = self.distribution(state)
        by_action = {a: float(probs[i]) for i, a in legal.items()}
        return [(a, by_action.get(a, 0.0)) for a in state.ruleset.legal_actions(state)]

    def act(self, state: BattleState, rng: random.Random) -> Action:
        legal, probs = self.distribution(state)
        indices = sorted(legal)
        if self.deterministic:
            # argmax; ties go to the lowest slot (np.argmax's first maximum).
            best = max(indices, key=lambda i: (probs[i], -i))
            return legal[best]
        u = rng.random()
        acc = 0.0
        for i in indices:
            acc += probs[i]
            if u < acc:
                return legal[i]
        return legal[indices[-1]]


def parse_policy_spec(spec: str) -> PolicyAgent:
    """``policy:PATH`` (greedy) or ``policy:PATH:sample`` (samples from the policy).

    PATH is a model zip or a shipped policy's name (``policy:destiny_dice/emboscada``).
    """
    rest = spec[len(PREFIX):]
    deterministic = True
    if rest.endswith(":sample"):
        rest, deterministic = rest[: -len(":sample")], False
    if not rest:
        raise UnknownNameError("policy: give the model file, e.g. policy:runs/x/final.zip")
    return PolicyAgent(rest, deterministic=deterministic)
