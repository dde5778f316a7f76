"""A state file names the Donjon values waiting for a decision as it always has
(``escaramuza.rules.donjon.ruleset:PendingAttack``…), though decisions.py defines them:
files saved before still load, and a pending value read back is the same value."""

from __future__ import annotations

import pickle

import pytest

from escaramuza.rules.donjon import ruleset
from escaramuza.rules.donjon.decisions import PendingAttack, PendingMove, PendingSpend
from escaramuza.state_file import decode_value, encode_value, state_types

VALUES = [
    PendingAttack("brann", "saqueador", "espada corta", 0),
    PendingMove("brann", "saqueador", "alejarse", "sala", True),
    PendingSpend("brann", "saqueador", 2, ("celeridad",)),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_a_pending_value_keeps_its_state_file_name(value: object) -> None:
    name = type(value).__name__
    encoded = encode_value(value)
    assert encoded["$type"] == f"escaramuza.rules.donjon.ruleset:{name}"
    assert state_types()[encoded["$type"]] is type(value) is getattr(ruleset, name)
    assert decode_value(encoded, "data.attack", "test.json") == value
    assert pickle.loads(pickle.dumps(value)) == value
