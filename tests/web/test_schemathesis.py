"""schemathesis against the JSON API, in process: no 5xx and no schema violations.

Every operation of ``/openapi.json`` is called with generated valid and invalid requests
inside a session that holds a battle, and each answer goes through schemathesis' checks:
no server error, a status code, content type, headers and body that the schema declares,
invalid data rejected, and an ``Allow`` header with every method of the path on a 405.

``positive_data_acceptance`` is left out, and on purpose: a request can fit the schema
and still be refused with a 400 for what it says (an empty scenario file, an action
number past the legal ones, a combatant the battle does not have).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import schemathesis  # the dev extra
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from escaramuza.web.app import create_app
from escaramuza.web.deps import SESSION_HEADER
from escaramuza.web.limits import MAX_BUDGET_MS, MAX_ITERATIONS, MAX_PLAYTEST_BATTLES

DUEL = "destiny_dice/brann-vs-saqueador"
#: Generated search and playtest sizes are cut to these before the call: the bounds the
#: schema declares (5 s, 2,000 rollouts, 5,000 battles) hold, and the run stays short.
QUICK_MS, QUICK_ITERATIONS, QUICK_BATTLES = 50.0, 8, 3

app = create_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
store = app.state.store
SESSION = store.create()


def _ready() -> None:
    """The shared session holds a battle in progress and no running playtest."""
    with SESSION.lock:
        if SESSION.playtest is not None:
            SESSION.playtest.cancel()
        if SESSION.gm is None or SESSION.state.outcome is not None:
            SESSION.start_shipped(DUEL, 1)


def _quick(case: Any) -> None:
    """Valid sizes cut to the quick ones; a size past the schema's bound is left as it is,
    so that a request meant to be refused (schemathesis' negative data) still is."""
    body = case.body
    if not isinstance(body, dict):
        return
    for key, cap, most in (
        ("budget_ms", QUICK_MS, MAX_BUDGET_MS),
        ("max_ms", QUICK_MS, MAX_BUDGET_MS),
        ("iterations", QUICK_ITERATIONS, MAX_ITERATIONS),
        ("n", QUICK_BATTLES, MAX_PLAYTEST_BATTLES),
    ):
        value = body.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and cap < value <= most:
            body[key] = type(value)(cap)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_api_conforms_to_its_schema(case: Any) -> None:
    _ready()
    if case.path in ("/api/suggest", "/api/playtest", "/api/autopilot"):
        _quick(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case.call_and_validate(
            headers={SESSION_HEADER: SESSION.id}, excluded_checks=[positive_data_acceptance]
        )
    _ready()
