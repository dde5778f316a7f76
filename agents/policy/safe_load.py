"""Reading an untrusted model zip without running anything from it: the security boundary
of ``policy:PATH`` (the package docstring says why and how).

Bounded reads of the zip's entries (a zip bomb stops at :data:`MAX_DATA_BYTES`), the
globals every pickle of ``data`` would look up, read from its opcodes alone
(:func:`pickle_globals`) and checked against the data classes SB3 stores, the policy class
and ``policy_kwargs`` by allow-list, the spaces' sizes from the plain JSON, and the
``custom_objects`` that let SB3 load a checkpoint for ``--resume`` without unpickling
(:func:`checkpoint_objects`). It imports nothing of escaramuza but its errors, so that a
reviewer reads the boundary in one file.
"""

from __future__ import annotations

import importlib
import pickletools
import re
import zipfile
from base64 import b64decode
from binascii import Error as Base64Error
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.i18n import N_, _, _f
from escaramuza.rules.core.parsers import parse_json


class UntrustedPolicyError(EscaramuzaError):
    """A model zip that cannot be loaded without running code from it."""


#: The end of every refusal: what the flag does and why it is not the default (in
#: English; :func:`untrusted` adds it in the current language).
TRUST_HINT = N_(
    "Pass --trust-policy to load it with stable-baselines3 anyway, only for a file you "
    "made or fully trust: that unpickles it, which can run any code"
)


def untrusted(message: str) -> UntrustedPolicyError:
    """The refusal ``message`` (a translated sentence) followed by :data:`TRUST_HINT`."""
    return UntrustedPolicyError(f"{message} {_(TRUST_HINT)}")


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
            top, below = (stack.pop() if stack else None), (stack.pop() if stack else None)
            # The module is pushed first, the name on top: both must be literal strings.
            if isinstance(below, str) and isinstance(top, str):
                found.add((below, top))
            else:
                found.add(("?", "?"))
            stack.append(None)
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1] if stack else None
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            # genops gives the memo opcodes their index; typeshed types every arg Any | None.
            memo[int(cast(int, arg))] = stack[-1] if stack else None
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo.get(int(cast(int, arg))))
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
            _f(
                "{label}: its {name} entry is {size} bytes, more than the {limit} a policy "
                "file may hold",
                label,
                repr(name),
                info.file_size,
                limit,
            )
        )
    with archive.open(info) as entry:
        data = entry.read(limit + 1)
    if len(data) > limit:
        raise EscaramuzaError(
            _f(
                "{label}: its {name} entry is larger than the {limit} bytes a policy file may hold",
                label,
                repr(name),
                limit,
            )
        )
    return data


def _entry_error(source: str, field: str, reason: str) -> EscaramuzaError:
    """The error factory of :func:`parse_entry`: ``policy FILE: ENTRY: FIELD: REASON``."""
    return EscaramuzaError(f"{source}: {field}: {reason}" if field else f"{source}: {reason}")


def parse_entry(raw: bytes, label: str, name: str) -> Any:
    """The JSON value of a model zip's entry ``name`` (``data``, ``escaramuza.json``), read
    by the project's bounded JSON parser as state files are: a nesting thousands deep, a
    duplicate key or a number that is not finite is one error naming the file (``label``)
    and the entry, never a ``RecursionError``."""
    source = f"{label}: {name}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _entry_error(source, "", _("not UTF-8 text")) from None
    return parse_json(text, source, _entry_error)


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
            raise untrusted(
                _f(
                    "{label}: entry {key} of its 'data' file is a pickle naming {names}, "
                    "which no policy file needs (a tampered file or pickled code); refused "
                    "without running it.",
                    label,
                    repr(key),
                    ", ".join(bad),
                )
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
        what = ", ".join(sorted(f"{m}.{n}" for m, n in names)) or _("no class")
        allowed = ", ".join(f"{m}.{n}" for m, n in POLICY_CLASSES)
        raise untrusted(
            _f(
                "{label}: its policy_class is {what}, not one of the known policy classes "
                "({allowed}).",
                label,
                what,
                allowed,
            )
        )
    module, name = known[0]
    return getattr(importlib.import_module(module), name), POLICY_CLASSES[known[0]]


def _policy_kwargs(doc: dict[str, Any], label: str) -> dict[str, Any]:
    """``policy_kwargs`` from the plain JSON; a serialized one (it held a class) is read
    from the readable copy SB3 writes beside the pickle, each class by allow-listed name."""
    import torch

    raw = doc.get("policy_kwargs") or {}
    if not isinstance(raw, dict):
        raise EscaramuzaError(_f("{label}: policy_kwargs is not a mapping", label))
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
                    _f(
                        "{label}: policy_kwargs net_arch {value} is not a list of layer sizes",
                        label,
                        repr(value),
                    )
                )
            kwargs[key] = value
        elif key == "activation_fn":
            match = _ACTIVATION.fullmatch(str(value))
            if match is None or match.group(1) not in ACTIVATIONS:
                raise untrusted(
                    _f(
                        "{label}: policy_kwargs activation_fn {value} is not one of torch's "
                        "{known}.",
                        label,
                        repr(value),
                        ", ".join(sorted(ACTIVATIONS)),
                    )
                )
            kwargs[key] = getattr(torch.nn, match.group(1))
        elif key in ("ortho_init", "share_features_extractor", "normalize_images", "fused_softmax"):
            if not isinstance(value, bool):
                raise EscaramuzaError(
                    _f("{label}: policy_kwargs {key} is not true/false", label, key)
                )
            kwargs[key] = value
        elif key == "features_extractor_class" and value == _FLATTEN:
            continue  # SB3's default
        elif key == "features_extractor_kwargs" and value in ({}, None):
            continue
        else:
            raise untrusted(
                _f(
                    "{label}: policy_kwargs {key}={value} is not a setting escaramuza can "
                    "rebuild without unpickling.",
                    label,
                    key,
                    repr(value),
                )
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


def _read_model(file: Path, label: str) -> tuple[dict[str, Any], bytes]:
    """The JSON of a model zip's ``data`` entry and the bytes of its ``policy.pth``."""
    try:
        with zipfile.ZipFile(file) as archive:
            names = set(archive.namelist())
            missing = [n for n in ("data", "policy.pth") if n not in names]
            if missing:
                raise EscaramuzaError(
                    _f(
                        "{label}: not a stable-baselines3 model (no {entries} entry in the zip)",
                        label,
                        _(" or ").join(missing),
                    )
                )
            data = _read_entry(archive, "data", MAX_DATA_BYTES, label)
            weights = _read_entry(archive, "policy.pth", MAX_WEIGHTS_BYTES, label)
    except (OSError, zipfile.BadZipFile, RuntimeError) as exc:
        raise EscaramuzaError(_f("{label}: not a saved model ({reason})", label, exc)) from None
    doc = parse_entry(data, label, "data")
    if not isinstance(doc, dict):
        raise EscaramuzaError(_f("{label}: its 'data' entry is not a JSON object", label))
    return doc, weights


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


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What a checkpoint holds, read without unpickling: the ``custom_objects`` of
    :func:`checkpoint_objects`, the algorithm its policy class belongs to, and the
    observation shape and action count its ``data`` states (None where it does not)."""

    objects: dict[str, Any]
    algo: str
    observation_shape: tuple[int, ...] | None
    n_actions: int | None


def read_checkpoint(file: Path, label: str, given: dict[str, Any]) -> Checkpoint:
    """:func:`checkpoint_objects`' objects and what else the checkpoint states."""
    doc, _weights = _read_model(file, label)
    _scan_data(doc, label)
    objects = {**RESUME_REBUILT, **given}
    objects["policy_class"], algo = _policy_class(doc, label)
    for key in ("clip_range", "clip_range_vf"):
        value = doc.get(key)
        if isinstance(value, dict) and ":serialized:" in value:
            match = _CONSTANT.fullmatch(str(value.get("value_schedule", "")))
            if match is not None:
                objects[key] = float(match.group(1))
    for key in doc:
        if _serialized(doc, key) is not None and key not in objects:
            raise untrusted(
                _f(
                    "{label}: entry {key} of its 'data' file is pickled and escaramuza cannot "
                    "rebuild it without unpickling.",
                    label,
                    repr(key),
                )
            )
    return Checkpoint(objects, algo, *_declared_sizes(doc))


def checkpoint_objects(file: Path, label: str, given: dict[str, Any]) -> dict[str, Any]:
    """SB3 ``custom_objects`` that replace every pickled entry of a checkpoint's ``data``.

    With them ``MaskablePPO.load`` / ``PPO.load`` unpickle nothing (``json_to_data``
    takes a custom object instead of decoding the entry); ``given`` holds what the
    caller knows (the env's spaces). The policy class is read from its opcodes and must
    be allow-listed; constant clip ranges are read from the readable copy SB3 writes
    beside the pickle; any other pickled entry is refused (:class:`UntrustedPolicyError`).
    """
    return read_checkpoint(file, label, given).objects
