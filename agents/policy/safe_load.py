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

Loading never unpickles. stable-baselines3's own ``load``
unpickles the ``:serialized:`` entries of the zip's ``data`` file, so a crafted
zip would run any code it likes. Instead the policy network is rebuilt here from
an allow-list: its class (read from the pickle's opcodes, never executed), its
``policy_kwargs`` from the plain JSON, its spaces from the env codec of the saved
ruleset and limits, and its weights from ``policy.pth`` with
``torch.load(weights_only=True)``. Every pickle in ``data`` is also scanned (again
without running it) and a file naming anything but the data classes SB3 stores is
refused: a policy file never needs more, so that is tampering or pickled code.
``trust=True`` (the CLI's ``--trust-policy``) loads a file with SB3's ``load`` as
before, for a model the user made or fully trusts (docs/training.md, "Trust").

torch and stable-baselines3 are imported only when a policy is loaded, so
``escaramuza.agents`` stays light for the CLI and the playtest workers.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import pickle
import pickletools
import random
import re
import zipfile
from base64 import b64decode
from binascii import Error as Base64Error
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from escaramuza.rules.core.errors import EscaramuzaError, UnknownNameError
from escaramuza.rules.core.files import atomic_write
from escaramuza.rules.core.i18n import N_, _
from escaramuza.rules.core.model import Action
from escaramuza.rules.core.state import BattleState

#: Name of the metadata entry ``escaramuza train`` adds to every model zip it writes.
META_NAME = "escaramuza.json"
META_FORMAT = "escaramuza.policy/1"
PREFIX = "policy:"

#: Help of the ``--trust-policy`` flag of play, playtest, suggest and evaluate (an English
#: msgid, translated when the option is added).
TRUST_POLICY_HELP = N_(
    "load policy:PATH files with stable-baselines3's own loader, which unpickles them and "
    "so can run code from the file: only for a model you made or fully trust (without "
    "it, a file that cannot be read without unpickling is refused; docs/training.md)"
)


def add_trust_option(parser: Any) -> None:
    """Add ``--trust-policy`` to a subcommand that takes ``policy:PATH`` agents, its help
    in the current language."""
    parser.add_argument("--trust-policy", action="store_true", help=_(TRUST_POLICY_HELP))


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
    # Built in memory (models are small: under 1 MB) and written with the
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
            raw = _read_entry(archive, META_NAME, MAX_META_BYTES, f"policy {path}")
    except (OSError, zipfile.BadZipFile) as exc:
        raise EscaramuzaError(f"policy {path}: not a saved model ({exc})") from None
    try:
        data = json.loads(raw)
        return PolicyMeta(
            ruleset=str(data["ruleset"]),
            env_id=str(data["env_id"]),
            algo=str(data["algo"]),
            side=str(data["side"]),
            max_combatants=int(data["max_combatants"]),
            max_zones=int(data["max_zones"]),
            max_items=int(data["max_items"]),
            scenarios=tuple(str(s) for s in data.get("scenarios", ())),
        )
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise EscaramuzaError(
            f"policy {path}: {META_NAME} is not valid metadata ({type(exc).__name__}: {exc})"
        ) from None


def _infer_meta(n: int, algo: str) -> PolicyMeta:
    """Metadata of a bare zip: the ruleset whose default-limit action space has ``n`` slots."""
    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.common import (
        DEFAULT_MAX_COMBATANTS,
        DEFAULT_MAX_ITEMS,
        DEFAULT_MAX_ZONES,
    )
    from escaramuza.rules import RULESETS, get_ruleset

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


class UntrustedPolicyError(EscaramuzaError):
    """A model zip that cannot be loaded without running code from it."""


#: The end of every refusal: what the flag does and why it is not the default.
TRUST_HINT = (
    "Pass --trust-policy to load it with stable-baselines3 anyway, only for a file you "
    "made or fully trust: that unpickles it, which can run any code"
)

#: Policy classes a model may name, by (module, qualified name) as its pickle spells
#: them, and the algorithm each belongs to. ``escaramuza train`` saves OnceMaskedPolicy
#: (training/masking.py); the shipped policies predate it and name sb3-contrib's.
POLICY_CLASSES: dict[tuple[str, str], str] = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "maskable-ppo",
    ("escaramuza.training.masking", "OnceMaskedPolicy"): "maskable-ppo",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "ppo",
}

#: Activation functions ``policy_kwargs`` may name (SB3 stores a class as its str()).
ACTIVATIONS = frozenset({"ReLU", "Tanh", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid"})
_ACTIVATION = re.compile(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>")
_FLATTEN = "<class 'stable_baselines3.common.torch_layers.FlattenExtractor'>"

#: Globals the pickles of an SB3 model's ``data`` legitimately name: numpy arrays and
#: random generators, gymnasium's spaces, the deques of episode statistics, the
#: schedules, rollout buffers, policy classes and the classes ``policy_kwargs`` may
#: hold. Anything else (``os.system``, ``builtins.exec``, cloudpickle's function
#: builders…) refuses the file.
_DATA_GLOBALS = frozenset(
    {
        *(
            (np_mod, name)
            for np_mod in ("numpy.core.multiarray", "numpy._core.multiarray")
            for name in ("_reconstruct", "scalar")
        ),
        *((np_mod, "_frombuffer") for np_mod in ("numpy.core.numeric", "numpy._core.numeric")),
        ("numpy", "dtype"),
        ("numpy", "ndarray"),
        ("numpy.random._pickle", "__generator_ctor"),
        ("numpy.random._pickle", "__bit_generator_ctor"),
        ("numpy.random._pcg64", "PCG64"),
        ("numpy.random._pcg64", "PCG64DXSM"),
        ("numpy.random._mt19937", "MT19937"),
        ("numpy.random._philox", "Philox"),
        ("numpy.random._sfc64", "SFC64"),
        ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
        ("numpy.random.bit_generator", "SeedSequence"),
        ("collections", "deque"),
        ("gymnasium.spaces.box", "Box"),
        ("gymnasium.spaces.discrete", "Discrete"),
        ("stable_baselines3.common.utils", "FloatSchedule"),
        ("stable_baselines3.common.utils", "ConstantSchedule"),
        ("stable_baselines3.common.buffers", "RolloutBuffer"),
        ("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer"),
        ("stable_baselines3.common.torch_layers", "FlattenExtractor"),
        ("torch.optim.adam", "Adam"),
        *(("torch.nn.modules.activation", name) for name in ACTIVATIONS),
        *POLICY_CLASSES,
    }
)

#: Largest ``data`` and ``policy.pth`` entries read (the shipped ones are ~50 kB and
#: ~700 kB): a zip bomb stops here instead of filling the memory.
MAX_DATA_BYTES = 16 * 1024 * 1024
MAX_META_BYTES = 64 * 1024
MAX_WEIGHTS_BYTES = 256 * 1024 * 1024

_STRING_OPS = frozenset(
    {
        "SHORT_BINUNICODE",
        "BINUNICODE",
        "BINUNICODE8",
        "UNICODE",
        "STRING",
        "SHORT_BINSTRING",
        "BINSTRING",
    }
)


def pickle_globals(blob: bytes) -> set[tuple[str, str]]:
    """Every global (module, name) a pickle would look up, read from its opcodes alone.

    ``pickletools.genops`` only parses; nothing is imported or called. A symbolic stack
    follows strings through the memo so ``STACK_GLOBAL`` resolves; a global built from
    anything but two literal strings comes back as ``("?", "?")`` (refused).
    """
    mark = object()
    stack: list[Any] = []
    memo: dict[int, Any] = {}
    found: set[tuple[str, str]] = set()
    for op, arg, _pos in pickletools.genops(blob):
        name = op.name
        if name in _STRING_OPS:
            stack.append(arg)
        elif name in ("GLOBAL", "INST"):
            module, _, attr = str(arg).partition(" ")
            found.add((module, attr))
            if name == "INST":
                del stack[_last_mark(stack, mark) :]
            stack.append(None)
        elif name == "STACK_GLOBAL":
            attr, module = (stack.pop() if stack else None), (stack.pop() if stack else None)
            ok = isinstance(module, str) and isinstance(attr, str)
            found.add((module, attr) if ok else ("?", "?"))  # type: ignore[arg-type]
            stack.append(None)
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1] if stack else None
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[int(arg)] = stack[-1] if stack else None
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo.get(int(arg)))
        elif name == "MARK":
            stack.append(mark)
        elif name == "POP" and stack and stack[-1] is mark:
            stack.pop()
        else:
            before = op.stack_before
            if pickletools.markobject in before:
                del stack[_last_mark(stack, mark) :]
                extra = len(before) - 2  # the items below the mark (e.g. APPENDS' list)
            else:
                extra = len(before)
            del stack[len(stack) - min(extra, len(stack)) :]
            stack.extend([None] * len(op.stack_after))
    return found


def _last_mark(stack: list[Any], mark: object) -> int:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is mark:
            return i
    return 0


def _read_entry(archive: zipfile.ZipFile, name: str, limit: int, label: str) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise EscaramuzaError(
            f"{label}: its {name!r} entry is {info.file_size} bytes, more than the "
            f"{limit} a policy file may hold"
        )
    with archive.open(info) as entry:
        data = entry.read(limit + 1)
    if len(data) > limit:
        raise EscaramuzaError(
            f"{label}: its {name!r} entry is larger than the {limit} bytes a policy file may hold"
        )
    return data


def _serialized(doc: dict[str, Any], key: str) -> bytes | None:
    """The pickle bytes of a ``:serialized:`` entry of ``data`` (never unpickled), or None."""
    value = doc.get(key)
    if not isinstance(value, dict) or ":serialized:" not in value:
        return None
    blob = value[":serialized:"]
    try:
        return b64decode(str(blob).encode(), validate=True)
    except (Base64Error, ValueError):
        return b""


def _scan_data(doc: dict[str, Any], label: str) -> None:
    """Refuse a ``data`` whose pickles name anything beyond the data SB3 stores."""
    for key in doc:
        blob = _serialized(doc, key)
        if blob is None:
            continue
        try:
            names = pickle_globals(blob)
        except Exception:  # genops raises several kinds for a broken pickle
            names = {("?", "not a readable pickle")}
        bad = sorted(f"{m}.{n}" for m, n in names if (m, n) not in _DATA_GLOBALS)
        if bad:
            raise UntrustedPolicyError(
                f"{label}: entry {key!r} of its 'data' file is a pickle naming "
                f"{', '.join(bad)}, which no policy file needs (a tampered file or pickled "
                f"code); refused without running it. {TRUST_HINT}"
            )


def _policy_class(doc: dict[str, Any], label: str) -> tuple[Any, str]:
    """The allow-listed policy class ``data`` names, and its algorithm (never unpickled)."""
    blob = _serialized(doc, "policy_class")
    names = set()
    if blob:
        try:
            names = pickle_globals(blob)
        except Exception:  # a broken pickle is refused below
            names = set()
    known = [n for n in names if n in POLICY_CLASSES]
    if len(names) != 1 or not known:
        what = ", ".join(sorted(f"{m}.{n}" for m, n in names)) or "no class"
        allowed = ", ".join(f"{m}.{n}" for m, n in POLICY_CLASSES)
        raise UntrustedPolicyError(
            f"{label}: its policy_class is {what}, not one of the known policy "
            f"classes ({allowed}). {TRUST_HINT}"
        )
    module, name = known[0]
    return getattr(importlib.import_module(module), name), POLICY_CLASSES[known[0]]


def _policy_kwargs(doc: dict[str, Any], label: str) -> dict[str, Any]:
    """``policy_kwargs`` from the plain JSON; a serialized one (it held a class) is read
    from the readable copy SB3 writes beside the pickle, each class by allow-listed name."""
    import torch

    raw = doc.get("policy_kwargs") or {}
    if not isinstance(raw, dict):
        raise EscaramuzaError(f"{label}: policy_kwargs is not a mapping")
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key in (":type:", ":serialized:", "device", "optimizer_class", "optimizer_kwargs"):
            continue  # the optimizer only trains; device is ours (SB3's load drops it too)
        if key == "net_arch":
            # SB3 < 1.8 wrapped it in a list: [dict(pi=…, vf=…)] (its load converts it).
            if isinstance(value, list) and value and isinstance(value[0], dict):
                value = value[0]
            if not _is_net_arch(value):
                raise EscaramuzaError(
                    f"{label}: policy_kwargs net_arch {value!r} is not a list of layer sizes"
                )
            kwargs[key] = value
        elif key == "activation_fn":
            match = _ACTIVATION.fullmatch(str(value))
            if match is None or match.group(1) not in ACTIVATIONS:
                raise UntrustedPolicyError(
                    f"{label}: policy_kwargs activation_fn {value!r} is not one of "
                    f"torch's {', '.join(sorted(ACTIVATIONS))}. {TRUST_HINT}"
                )
            kwargs[key] = getattr(torch.nn, match.group(1))
        elif key in ("ortho_init", "share_features_extractor", "normalize_images"):
            if not isinstance(value, bool):
                raise EscaramuzaError(f"{label}: policy_kwargs {key} is not true/false")
            kwargs[key] = value
        elif key == "features_extractor_class" and value == _FLATTEN:
            continue  # SB3's default
        elif key == "features_extractor_kwargs" and value in ({}, None):
            continue
        else:
            raise UntrustedPolicyError(
                f"{label}: policy_kwargs {key}={value!r} is not a setting escaramuza "
                f"can rebuild without unpickling. {TRUST_HINT}"
            )
    return kwargs


def _is_net_arch(value: Any) -> bool:
    def sizes(v: Any) -> bool:
        return isinstance(v, list) and all(
            isinstance(i, int) and not isinstance(i, bool) and 0 < i <= 65536 for i in v
        )

    if isinstance(value, dict):
        return set(value) <= {"pi", "vf"} and all(sizes(v) for v in value.values())
    return sizes(value)


def _declared_sizes(doc: dict[str, Any]) -> tuple[tuple[int, ...] | None, int | None]:
    """The observation shape and action count ``data`` states in plain JSON (SB3 writes
    a space's attributes beside its pickle), or None where it does not."""
    shape: tuple[int, ...] | None = None
    n: int | None = None
    obs, act = doc.get("observation_space"), doc.get("action_space")
    if isinstance(obs, dict) and isinstance(obs.get("_shape"), list):
        try:
            shape = tuple(int(i) for i in obs["_shape"])
        except (TypeError, ValueError):
            shape = None
    if isinstance(act, dict) and "n" in act:
        try:
            n = int(str(act["n"]))
        except ValueError:
            n = None
    return shape, n


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


def check_sizes(label: str, meta: PolicyMeta, obs_shape: tuple[int, ...], n_actions: int) -> None:
    """Refuse a model whose spaces differ from the codecs' (trained before a ruleset
    changed its features or verbs, or with other limits): it would fail deep inside
    torch. ``label`` starts the message (``policy PATH``)."""
    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.observation import ObservationEncoder
    from escaramuza.rules import get_ruleset

    ruleset = get_ruleset(meta.ruleset)
    codec = ActionCodec(ruleset, meta.max_combatants, meta.max_zones, meta.max_items)
    encoder = ObservationEncoder(ruleset, meta.max_combatants, meta.max_zones)
    if obs_shape != (encoder.size,) or n_actions != codec.n:
        raise EscaramuzaError(
            f"{label}: the model expects observations of shape {obs_shape} "
            f"and {n_actions} actions, but {meta.ruleset!r} with its saved limits "
            f"makes ({encoder.size},) and {codec.n}; retrain it with this "
            "version of escaramuza"
        )


def _read_model(file: Path, label: str) -> tuple[dict[str, Any], bytes]:
    """The JSON of a model zip's ``data`` entry and the bytes of its ``policy.pth``."""
    try:
        with zipfile.ZipFile(file) as archive:
            names = set(archive.namelist())
            missing = [n for n in ("data", "policy.pth") if n not in names]
            if missing:
                raise EscaramuzaError(
                    f"{label}: not a stable-baselines3 model (no {' or '.join(missing)} "
                    "entry in the zip)"
                )
            data = _read_entry(archive, "data", MAX_DATA_BYTES, label)
            weights = _read_entry(archive, "policy.pth", MAX_WEIGHTS_BYTES, label)
    except (OSError, zipfile.BadZipFile, RuntimeError) as exc:
        raise EscaramuzaError(f"{label}: not a saved model ({exc})") from None
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise EscaramuzaError(f"{label}: its 'data' entry is not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise EscaramuzaError(f"{label}: its 'data' entry is not a JSON object")
    return doc, weights


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

    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.observation import OBS_BOUND, ObservationEncoder
    from escaramuza.rules import get_ruleset

    doc, weights = _read_model(file, label)
    _scan_data(doc, label)
    policy_class, algo = _policy_class(doc, label)
    if meta is not None and meta.algo != algo:
        raise EscaramuzaError(
            f"{label}: escaramuza.json says {meta.algo!r} but its policy class "
            f"{policy_class.__name__} is {algo!r}'s"
        )
    if doc.get("use_sde"):
        raise EscaramuzaError(f"{label}: gSDE exploration (use_sde) is not supported")
    kwargs = _policy_kwargs(doc, label)
    shape, n = _declared_sizes(doc)
    if meta is None:
        if n is None:
            raise EscaramuzaError(
                f"{label}: no action_space size in its 'data' entry and no escaramuza.json"
            )
        meta = _infer_meta(n, algo)
    ruleset = get_ruleset(meta.ruleset)
    codec = ActionCodec(ruleset, meta.max_combatants, meta.max_zones, meta.max_items)
    encoder = ObservationEncoder(ruleset, meta.max_combatants, meta.max_zones)
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
        raise UntrustedPolicyError(
            f"{label}: its weights (policy.pth) hold more than tensors ({_first_line(exc)}); "
            "refused "
            f"without running them. {TRUST_HINT}"
        ) from None
    except Exception as exc:  # torch raises many kinds for a broken file
        raise EscaramuzaError(
            f"{label}: its weights (policy.pth) are not a torch file ({exc})"
        ) from None
    try:
        policy = policy_class(observation_space, action_space, lambda _progress: rate, **kwargs)
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, TypeError, ValueError, KeyError, AttributeError) as exc:
        raise EscaramuzaError(
            f"{label}: its weights (policy.pth) do not load into a "
            f"{policy_class.__name__} with {kwargs or 'default settings'} ({_first_line(exc)})"
        ) from None
    policy.set_training_mode(False)
    return LoadedPolicy(policy, algo, (encoder.size,), codec.n), meta


#: Serialized entries of a checkpoint that training rebuilds itself on ``--resume``: the
#: last observations and episode starts (the env is reset: SB3's ``force_reset``), the
#: episode statistics (a fresh window), the rollout buffer class (the algorithm's
#: default) and the learning-rate schedule (rebuilt from ``learning_rate``).
RESUME_REBUILT: dict[str, Any] = {
    "_last_obs": None,
    "_last_episode_starts": None,
    "_last_original_obs": None,
    "ep_info_buffer": None,
    "ep_success_buffer": None,
    "rollout_buffer_class": None,
    "action_noise": None,
    "lr_schedule": None,
}

_CONSTANT = re.compile(r"ConstantSchedule\(val=([-+0-9.eE]+)\)")


def checkpoint_objects(file: Path, label: str, given: dict[str, Any]) -> dict[str, Any]:
    """SB3 ``custom_objects`` that replace every pickled entry of a checkpoint's ``data``.

    With them ``MaskablePPO.load`` / ``PPO.load`` unpickle nothing (``json_to_data``
    takes a custom object instead of decoding the entry); ``given`` holds what the
    caller knows (the env's spaces). The policy class is read from its opcodes and must
    be allow-listed; constant clip ranges are read from the readable copy SB3 writes
    beside the pickle; any other pickled entry is refused (:class:`UntrustedPolicyError`).
    """
    doc, _weights = _read_model(file, label)
    _scan_data(doc, label)
    objects = {**RESUME_REBUILT, **given}
    objects["policy_class"], _algo = _policy_class(doc, label)
    for key in ("clip_range", "clip_range_vf"):
        value = doc.get(key)
        if isinstance(value, dict) and ":serialized:" in value:
            match = _CONSTANT.fullmatch(str(value.get("value_schedule", "")))
            if match is not None:
                objects[key] = float(match.group(1))
    for key in doc:
        if _serialized(doc, key) is not None and key not in objects:
            raise UntrustedPolicyError(
                f"{label}: entry {key!r} of its 'data' file is pickled and escaramuza "
                f"cannot rebuild it without unpickling. {TRUST_HINT}"
            )
    return objects


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
            raise EscaramuzaError(f"{label}: unknown algorithm {algo!r}")
        try:
            model = classes[algo].load(file, device="cpu")
        except Exception as exc:  # SB3 raises many kinds for a wrong class
            errors.append(f"{algo}: {exc}")
            continue
        shape = tuple(getattr(model.observation_space, "shape", None) or ())
        n = int(getattr(model.action_space, "n", -1))
        return LoadedPolicy(model.policy, algo, shape, n), meta or _infer_meta(n, algo)
    raise EscaramuzaError(f"{label}: cannot load ({'; '.join(errors)})")


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
    if file.is_file():
        return file
    shipped = SHIPPED_DIR / f"{path}.zip"
    if shipped.is_file():
        return shipped
    known = ", ".join(shipped_policies()) or "none"
    raise UnknownNameError(f"policy {path}: no such model file (shipped policies: {known})")


def load_model(
    path: str | os.PathLike[str], trust: bool = False
) -> tuple[LoadedPolicy, PolicyMeta]:
    """The policy network and its metadata (cached; CPU; clear errors for a bad file).

    Without ``trust`` nothing in the file is unpickled (module docstring); a file that
    needs more is refused with :class:`UntrustedPolicyError`.
    """
    file = resolve_policy(path)
    key = (str(file.resolve()), file.stat().st_mtime, trust)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    meta = read_meta(file)
    label = f"policy {path}"
    loaded = _load_trusted(file, label, meta) if trust else _load_safely(file, label, meta)
    _CACHE[key] = loaded
    return loaded


def masked_probabilities(
    policy: Any, maskable: bool, obs: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """A stable-baselines3 ``policy``'s probability of every slot, for one observation
    (``obs`` of the observation's shape, ``mask`` ``(n,)``) or a batch (``(B, size)``,
    ``(B, n)``): illegal slots 0, the rest renormalised (uniform over the legal slots
    where the model gives them all ~0, as PPO without masks can)."""
    import torch

    single = mask.ndim == 1
    masks = mask[None] if single else mask
    with torch.no_grad():
        obs_t, _ = policy.obs_to_tensor(obs)
        if maskable:
            dist = policy.get_distribution(obs_t, action_masks=masks)
        else:
            dist = policy.get_distribution(obs_t)
        probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
    probs = np.where(masks, probs, 0.0)
    total = probs.sum(axis=1, keepdims=True)
    flat = ~np.isfinite(total[:, 0]) | (total[:, 0] <= 0)
    probs = probs / np.where(flat[:, None], 1.0, total)
    if flat.any():
        probs[flat] = masks[flat] / masks[flat].sum(axis=1, keepdims=True)
    out: np.ndarray = probs[0] if single else probs
    return out


def greedy_slot(
    probs: np.ndarray, mask: np.ndarray | None, indices: Sequence[int] | None = None
) -> int:
    """The most probable legal slot (of ``indices``, else of ``mask``); ties go to the
    lowest slot."""
    if indices is not None:
        legal = list(indices)
    else:
        assert mask is not None
        legal = np.flatnonzero(mask).tolist()
    return int(max(legal, key=lambda i: (probs[i], -i)))


class PolicyAgent:
    """Plays the pending decision with a trained model, for whichever side decides.

    The observation is built from the deciding side's point of view, exactly as
    the env builds the learner's; a model trained on the enemies can play the
    heroes, but it never saw that point of view unless trained with ``--side both``.
    """

    def __init__(
        self, path: str | os.PathLike[str], deterministic: bool = True, trust: bool = False
    ) -> None:
        from escaramuza.envs.codec import ActionCodec
        from escaramuza.envs.observation import ObservationEncoder
        from escaramuza.rules import get_ruleset

        self.path = str(path)
        self.name = f"{PREFIX}{path}"
        self.deterministic = deterministic
        self.model, self.meta = load_model(path, trust=trust)
        self.ruleset = get_ruleset(self.meta.ruleset)
        m = self.meta
        self.codec = ActionCodec(self.ruleset, m.max_combatants, m.max_zones, m.max_items)
        self.encoder = ObservationEncoder(self.ruleset, m.max_combatants, m.max_zones)
        check_sizes(
            f"policy {self.path}", self.meta, self.model.observation_shape, self.model.n_actions
        )
        self._checked: set[str] = set()

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
            check_limits(
                scenario, self.meta.max_combatants, self.meta.max_zones, self.meta.max_items
            )
        except ValueError as exc:
            raise EscaramuzaError(f"policy {self.path}: {exc}") from None
        self._checked.add(scenario.name)

    def distribution(self, state: BattleState) -> tuple[dict[int, Action], np.ndarray]:
        """The legal index → action table and the policy's probability of every slot
        (illegal slots 0, the rest renormalised)."""
        self._check(state)
        pending = state.pending
        if pending is None:
            raise EscaramuzaError("policy: the battle has no pending decision")
        legal = self.codec.legal_map(state, state.ruleset.legal_actions(state))
        mask = np.zeros(self.codec.n, dtype=bool)
        mask[list(legal)] = True
        obs = self.encoder.encode(state, pending.side)
        return legal, masked_probabilities(self.model.policy, self.model.maskable, obs, mask)

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
            return legal[greedy_slot(probs, None, indices)]
        u = rng.random()
        acc = 0.0
        for i in indices:
            acc += probs[i]
            if u < acc:
                return legal[i]
        return legal[indices[-1]]


def parse_policy_spec(spec: str, trust: bool = False) -> PolicyAgent:
    """``policy:PATH`` (greedy) or ``policy:PATH:sample`` (samples from the policy).

    PATH is a model zip or a shipped policy's name (``policy:destiny_dice/emboscada``);
    ``trust`` is ``--trust-policy`` (see :func:`load_model`).
    """
    rest = spec[len(PREFIX) :]
    deterministic = True
    if rest.endswith(":sample"):
        rest, deterministic = rest[: -len(":sample")], False
    if not rest:
        raise UnknownNameError("policy: give the model file, e.g. policy:runs/x/final.zip")
    return PolicyAgent(rest, deterministic=deterministic, trust=trust)
