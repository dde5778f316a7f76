"""A model's metadata: ``escaramuza.json`` inside the zip (:class:`PolicyMeta`: ruleset,
env id, side, static limits, algorithm), written by ``escaramuza train``, read back, inferred
for a bare SB3 zip, and checked against the codecs it implies (:func:`check_sizes`)."""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from escaramuza.agents.policy.safe_load import MAX_META_BYTES, _read_entry, parse_entry
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.files import write_file
from escaramuza.rules.core.i18n import _f

if TYPE_CHECKING:
    from escaramuza.envs.common import EnvLimits
    from escaramuza.rules.core.scenario import Scenario

#: Name of the metadata entry ``escaramuza train`` adds to every model zip it writes.
META_NAME = "escaramuza.json"
META_FORMAT = "escaramuza.policy/1"


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

    @property
    def limits(self) -> EnvLimits:
        """The env limits the model was trained under (its observation's and actions' sizes)."""
        from escaramuza.envs.common import EnvLimits

        return EnvLimits(self.max_combatants, self.max_zones, self.max_items)

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
    write_file(path, buffer.getvalue())


def policy_label(path: str | os.PathLike[str]) -> str:
    """How a message names a model file (``policy PATH``), in the current language."""
    return _f("policy {path}", path)


def read_meta(path: str | os.PathLike[str]) -> PolicyMeta | None:
    """The metadata of a model zip, or None for a bare SB3 zip."""
    label = policy_label(path)
    try:
        with zipfile.ZipFile(path) as archive:
            if META_NAME not in archive.namelist():
                return None
            raw = _read_entry(archive, META_NAME, MAX_META_BYTES, label)
    except (OSError, zipfile.BadZipFile) as exc:
        raise EscaramuzaError(_f("{label}: not a saved model ({reason})", label, exc)) from None
    data = parse_entry(raw, label, META_NAME)
    try:
        return PolicyMeta(
            ruleset=str(data["ruleset"]),
            env_id=str(data["env_id"]),
            algo=str(data["algo"]),
            side=str(data["side"]),
            max_combatants=_limit(label, "max_combatants", data["max_combatants"]),
            max_zones=_limit(label, "max_zones", data["max_zones"]),
            max_items=_limit(label, "max_items", data["max_items"]),
            scenarios=tuple(str(s) for s in data.get("scenarios", ())),
        )
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise EscaramuzaError(
            _f("{label}: {name} is not valid metadata ({reason})", label, META_NAME, reason)
        ) from None


def _limit(label: str, field: str, value: object) -> int:
    """One of the metadata's limits, refused unless an env takes it: the limits size the
    codecs and the policy's spaces, so a crafted file's huge ``max_combatants`` would
    allocate them huge before its weights are even read. A whole number from 1 to the
    env's largest (:data:`~escaramuza.envs.common.MOST_LIMITS`), as ``escaramuza train``
    writes it."""
    from escaramuza.envs.common import MOST_LIMITS

    most: int = getattr(MOST_LIMITS, field)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise EscaramuzaError(
            _f(
                "{label}: {name}: {field} must be a whole number from 1 to {most}, not {value}",
                label,
                META_NAME,
                field,
                most,
                json.dumps(value),
            )
        )
    return value


def _infer_meta(n: int, algo: str) -> PolicyMeta:
    """Metadata of a bare zip: the ruleset whose default-limit action space has ``n`` slots."""
    from escaramuza.envs.codec import ActionCodec
    from escaramuza.envs.common import STANDARD_LIMITS
    from escaramuza.rules import RULESETS, get_ruleset

    for ruleset_id in RULESETS:
        ruleset = get_ruleset(ruleset_id)
        if ActionCodec(ruleset, *STANDARD_LIMITS).n == n:
            return PolicyMeta(ruleset_id, ruleset.env_id, algo, "enemies", *STANDARD_LIMITS)
    raise EscaramuzaError(_f("policy: no ruleset has {n} actions under the default limits", n))


def check_fits(label: str, meta: PolicyMeta, scenario: Scenario) -> None:
    """Refuse a scenario the policy cannot play: another ruleset's (its observation and
    actions mean nothing there), or one beyond the limits it was trained with (its
    observation has no place for a seventeenth combatant, or an eleventh under ``--limits
    fit``). The message is ``LABEL: FIELD: REASON``: ``label`` names the file (``policy
    PATH``), FIELD the metadata's field that refuses the scenario."""
    from escaramuza.envs.common import EnvLimitError, check_limits

    if scenario.ruleset.id != meta.ruleset:
        raise EscaramuzaError(
            _f(
                "{label}: ruleset: trained on {ruleset}, but scenario {scenario} is {other}",
                label,
                repr(meta.ruleset),
                repr(scenario.name),
                repr(scenario.ruleset.id),
            )
        )
    try:
        check_limits(scenario, meta.max_combatants, meta.max_zones, meta.max_items)
    except EnvLimitError as exc:
        have = getattr(meta, exc.limit)
        raise EscaramuzaError(
            _f(
                "{label}: {limit}: trained with {limit}={have} and plays only scenarios "
                "within it; scenario {scenario} needs {needed}",
                label,
                exc.limit,
                have,
                repr(scenario.name),
                exc.needed,
            )
        ) from None


def check_sizes(label: str, meta: PolicyMeta, obs_shape: tuple[int, ...], n_actions: int) -> None:
    """Refuse a model whose spaces differ from the codecs' (trained before a ruleset
    changed its features or verbs, or with other limits): it would fail deep inside
    torch. ``label`` starts the message (``policy PATH``)."""
    from escaramuza.envs.common import codecs
    from escaramuza.rules import get_ruleset

    ruleset = get_ruleset(meta.ruleset)
    codec, encoder = codecs(ruleset, meta.limits)
    if obs_shape != (encoder.size,) or n_actions != codec.n:
        raise EscaramuzaError(
            _f(
                "{label}: the model expects observations of shape {shape} and {n} actions, "
                "but {ruleset} with its saved limits makes {size} and {codec_n}; retrain it "
                "with this version of escaramuza",
                label,
                obs_shape,
                n_actions,
                repr(meta.ruleset),
                (encoder.size,),
                codec.n,
            )
        )
