"""architecture.md, "Ruleset": the hooks each ruleset declares on its class, and RULESETS
as the one registry."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from escaramuza.rules import RULESETS, get_bookkeeping, get_ruleset
from escaramuza.rules.core.rest import Recovery, no_rest, recovery


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_bookkeeping_hook_names_the_rulesets_own_checks(ruleset_id: str) -> None:
    module = get_bookkeeping(ruleset_id)
    assert module.__name__ == f"escaramuza.rules.{ruleset_id}.bookkeeping"
    assert all(isinstance(cls, type) for cls in module.STATE_TYPES)
    assert callable(module.check_state)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_recovery_hook_names_the_rulesets_own_rests(ruleset_id: str) -> None:
    name = get_ruleset(ruleset_id).recovery
    assert name == f"escaramuza.rules.{ruleset_id}.recovery"
    spec = recovery(ruleset_id)
    assert isinstance(spec, Recovery) and spec is importlib.import_module(name).RECOVERY
    # Every ruleset offers a rest that gives nothing back; its keys are resources it has.
    assert spec.rests["none"] is no_rest
    assert set(spec.resources) <= set(get_ruleset(ruleset_id).resources)


PROBE = """
import json, sys
from escaramuza.rules import RULESETS, get_ruleset
for ruleset_id in RULESETS:
    get_ruleset(ruleset_id)
print(json.dumps(sorted(m for m in sys.modules if m.endswith(".bookkeeping"))))
"""


def test_loading_the_rulesets_imports_no_bookkeeping() -> None:
    """The hooks are module names: a ruleset is loaded without its state checks (pydantic
    schemas built on first use), which only state files need."""
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []
