"""Loading a model: :func:`load_model` rebuilds the policy network from what
:mod:`~escaramuza.agents.policy.safe_load` reads (its weights by
``torch.load(weights_only=True)``) or, with ``trust``, uses stable-baselines3's own
``load``; the loaded models are cached. Also where the shipped policies are."""

from __future__ import annotations

import io
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from escaramuza.agents.policy.meta import (
    PolicyMeta,
    _infer_meta,
    check_sizes,
    policy_label,
    read_meta,
)
from escaramuza.agents.policy.safe_load import (
    _declared_sizes,
    _policy_class,
    _policy_kwargs,
    _read_model,
    _scan_data,
    untrusted,
)
from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError
from escaramuza.rules.core.i18n import _, _f


@dataclass(frozen=True, slots=True)
class LoadedPolicy:
    """The part of a saved model that plays: its policy network and what it expects."""

    policy: Any
    algo: str
    observation_shape: tuple[int, ...]
    n_actions: int

    @property
    def maskable(self) -> bool:
        """MaskablePPO's policy takes the mask itself; PPO's is masked after the fact."""
        return self.algo == "maskable-ppo"


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message (torch's run to dozens of lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _load_safely(
    file: Path, label: str, meta: PolicyMeta | None
) -> tuple[LoadedPolicy, PolicyMeta]:
    """Rebuild the policy network from JSON, allow-lists and ``weights_only`` tensors."""
    import torch
    from gymnasium import spaces

    from escaramuza.envs.common import codecs
    from escaramuza.envs.observation import OBS_BOUND
    from escaramuza.rules import get_ruleset

    doc, weights = _read_model(file, label)
    _scan_data(doc, label)
    policy_class, algo = _policy_class(doc, label)
    if meta is not None and meta.algo != algo:
        raise EscaramuzaError(
            _f(
                "{label}: escaramuza.json says {algo} but its policy class {cls} is {other}'s",
                label,
                repr(meta.algo),
                policy_class.__name__,
                repr(algo),
            )
        )
    if doc.get("use_sde"):
        raise EscaramuzaError(_f("{label}: gSDE exploration (use_sde) is not supported", label))
    kwargs = _policy_kwargs(doc, label)
    shape, n = _declared_sizes(doc)
    if meta is None:
        if n is None:
            raise EscaramuzaError(
                _f(
                    "{label}: no action_space size in its 'data' entry and no escaramuza.json",
                    label,
                )
            )
        meta = _infer_meta(n, algo)
    ruleset = get_ruleset(meta.ruleset)
    codec, encoder = codecs(ruleset, meta.limits)
    # Checked before building anything, so a file claiming a huge space allocates nothing.
    check_sizes(
        label,
        meta,
        shape if shape is not None else (encoder.size,),
        n if n is not None else codec.n,
    )
    # The spaces the env gives a learner (envs/single.py); the policy reads only their
    # shape and size, which the file's weights must match exactly (strict load below).
    observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, shape=(encoder.size,), dtype=np.float32)
    action_space = spaces.Discrete(codec.n)
    rate = doc.get("learning_rate")
    rate = float(rate) if isinstance(rate, (int, float)) else 0.0
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        # weights_only refused a global: the file holds more than tensors.
        raise untrusted(
            _f(
                "{label}: its weights (policy.pth) hold more than tensors ({reason}); "
                "refused without running them.",
                label,
                _first_line(exc),
            )
        ) from None
    except Exception as exc:  # torch raises many kinds for a broken file
        raise EscaramuzaError(
            _f("{label}: its weights (policy.pth) are not a torch file ({reason})", label, exc)
        ) from None
    try:
        policy = policy_class(observation_space, action_space, lambda _progress: rate, **kwargs)
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, TypeError, ValueError, KeyError, AttributeError) as exc:
        raise EscaramuzaError(
            _f(
                "{label}: its weights (policy.pth) do not load into a {cls} with {settings} "
                "({reason})",
                label,
                policy_class.__name__,
                kwargs or _("default settings"),
                _first_line(exc),
            )
        ) from None
    policy.set_training_mode(False)
    return LoadedPolicy(policy, algo, (encoder.size,), codec.n), meta


def _load_trusted(
    file: Path, label: str, meta: PolicyMeta | None
) -> tuple[LoadedPolicy, PolicyMeta]:
    """stable-baselines3's own ``load`` (unpickles ``data``): ``--trust-policy`` only."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    classes: dict[str, Any] = {"maskable-ppo": MaskablePPO, "ppo": PPO}
    order = [meta.algo] if meta is not None else ["maskable-ppo", "ppo"]
    errors = []
    for algo in order:
        if algo not in classes:
            raise EscaramuzaError(_f("{label}: unknown algorithm {algo}", label, repr(algo)))
        try:
            model = classes[algo].load(file, device="cpu")
        except Exception as exc:  # SB3 raises many kinds for a wrong class
            errors.append(f"{algo}: {exc}")
            continue
        shape = tuple(getattr(model.observation_space, "shape", None) or ())
        n = int(getattr(model.action_space, "n", -1))
        return LoadedPolicy(model.policy, algo, shape, n), meta or _infer_meta(n, algo)
    raise EscaramuzaError(_f("{label}: cannot load ({reason})", label, "; ".join(errors)))


#: Loaded models by (resolved path, mtime, trusted): playtests build a fresh agent per
#: battle. Trust is part of the key so a refused file is never served from a trusted load.
_CACHE: dict[tuple[str, float, bool], tuple[LoadedPolicy, PolicyMeta]] = {}


#: Policies shipped with the package: ``agents/policies/<ruleset>/<scenario>.zip``.
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "policies"


def shipped_policies() -> list[str]:
    """Names of the shipped policies (``destiny_dice/emboscada``…), sorted."""
    return sorted(f"{p.parent.name}/{p.stem}" for p in SHIPPED_DIR.glob("*/*.zip") if p.is_file())


def resolve_policy(path: str | os.PathLike[str]) -> Path:
    """A model file: a path, or the name of a shipped policy (``destiny_dice/emboscada``)."""
    file = Path(path)
    # os.path's answer is False for a name no file can have (too long for the system);
    # pathlib's is_file() and exists() raise OSError on it.
    if os.path.isfile(file):
        return file
    shipped = SHIPPED_DIR / f"{path}.zip"
    if os.path.isfile(shipped):
        return shipped
    if os.path.exists(file):  # a folder, device or pipe: not missing, but no model file either
        raise EscaramuzaError(_f("policy {path}: not a model file (not a regular file)", path))
    known = ", ".join(shipped_policies()) or _("none")
    raise UnknownNameError(
        _f("policy {path}: no such model file (shipped policies: {known})", path, known)
    )


def load_model(
    path: str | os.PathLike[str], trust: bool = False
) -> tuple[LoadedPolicy, PolicyMeta]:
    """The policy network and its metadata (cached; CPU; clear errors for a bad file).

    Without ``trust`` nothing in the file is unpickled (package docstring); a file that
    needs more is refused with :class:`UntrustedPolicyError`.
    """
    file = resolve_policy(path)
    key = (str(file.resolve()), file.stat().st_mtime, trust)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    meta = read_meta(file)
    label = policy_label(path)
    loaded = _load_trusted(file, label, meta) if trust else _load_safely(file, label, meta)
    _CACHE[key] = loaded
    return loaded
