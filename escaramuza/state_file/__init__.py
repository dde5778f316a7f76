"""Battle state files: a documented JSON format for a battle in progress.

A state file names its scenario (a shipped name or a path) and records what
changes during a battle: round, turn order, the pending decision, every
combatant's zone, status, resources, conditions and bookkeeping, and the
ruleset's own bookkeeping. The full schema is in ``docs/gm.md``.

A state file is untrusted input: it is read only if it is a regular
file of at most :data:`MAX_STATE_BYTES`, parsed with the bounded JSON parser
(nesting, integer length), its typed values are decoded only into the classes
of an explicit registry (:func:`state_types`: the core's and each ruleset's
``bookkeeping.STATE_TYPES``; nothing is ever imported by a name the file
gives), and each ruleset checks its own bookkeeping and the invariants its
engine relies on (``rules/<ruleset>/bookkeeping.py``) before the battle is
handed to anyone.

Loading validates everything and raises :class:`StateFileError` naming the
file, the field and the reason; nothing half-loaded is returned. Writing goes
to a temporary file in the same folder and is moved into place with
``os.replace``, so a crash never leaves a truncated state file.

One module per part, each importing only the ones above it:

* :mod:`~escaramuza.state_file.errors`: :class:`StateFileError`;
* :mod:`~escaramuza.state_file.values`: the bookkeeping values written as JSON and read
  back, only of the registered classes (:func:`state_types`);
* :mod:`~escaramuza.state_file.writing`: a battle state as the file's document, the file
  written atomically (:func:`save_state`);
* :mod:`~escaramuza.state_file.reading`: the file read and every field validated
  (:func:`load_state`, :func:`state_from_dict`).

The names below are re-exported so ``from escaramuza.state_file import X`` keeps working.
"""

from __future__ import annotations

from escaramuza.state_file.errors import StateFileError
from escaramuza.state_file.reading import (
    MAX_STATE_BYTES,
    ROLL_MODES,
    is_state_file,
    load_state,
    state_from_dict,
)
from escaramuza.state_file.values import decode_value, encode_value, state_types
from escaramuza.state_file.writing import (
    FORMAT,
    VERSION,
    check_save_target,
    save_state,
    scenario_reference,
    state_to_dict,
)

__all__ = [
    "FORMAT",
    "MAX_STATE_BYTES",
    "ROLL_MODES",
    "VERSION",
    "StateFileError",
    "check_save_target",
    "decode_value",
    "encode_value",
    "is_state_file",
    "load_state",
    "save_state",
    "scenario_reference",
    "state_from_dict",
    "state_to_dict",
    "state_types",
]
