"""The suite's tiers and the shared session fixtures.

Tiers (the marks are registered in pyproject.toml, ``[tool.pytest.ini_options]``):
``-m "not slow"`` is the fast tier, which never calls a numba kernel, so it takes the same
time on a cold kernel cache; the default command runs every test.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator

import pytest

#: Marks that imply ``slow``: compiling the kernels takes tens of seconds on a cold cache
#: (as CI starts), and training loads torch and runs SB3.
IMPLY_SLOW = ("compile", "training")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(name) is not None for name in IMPLY_SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def compiled_kernels() -> None:
    """The kernels the command-line tests' commands call, compiled (or loaded) once per
    session before the first of those commands starts: the commands then load them from
    numba's on-disk cache, so what they print and how long they take do not depend on
    whether the cache was warm when the session began. The commands are the Destiny Dice
    duel's playtests and evaluations (battles) and the planner benchmark's Donjon duel
    (rollouts)."""
    from escaramuza.agents.fast import play_records
    from escaramuza.agents.suggest import suggest
    from escaramuza.rules.core.dice import RandomRoller
    from escaramuza.rules.core.ruleset import new_battle
    from escaramuza.rules.core.scenario import load_scenario

    duel = load_scenario("destiny_dice/brann-vs-saqueador")
    assert len(play_records(duel, "heuristic", "heuristic", 1, 0, 1)) == 1
    state = new_battle(load_scenario("donjon/duelo"), RandomRoller(1))
    assert suggest(state, iterations=4, budget_ms=None, engine="fast").items


class _Marked(gettext.NullTranslations):
    """A catalog that marks every message it gives: text printed outside the marks never
    went through ``_()`` / ``_f()`` and would stay English in every language."""

    def gettext(self, message: str) -> str:
        return f"«{message}»"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"«{msgid1 if n == 1 else msgid2}»"


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every language's catalog is :class:`_Marked`, current in the test and in any
    command it runs: a test asserts which text of a message is the catalog's (``«…»``),
    and so which would speak the user's language."""
    from escaramuza.rules.core import i18n

    monkeypatch.setattr(i18n, "_language_of", lambda code: i18n._Language(code, _Marked()))
    with i18n.language(i18n.DEFAULT_LANGUAGE):
        yield


@pytest.fixture(autouse=True, scope="session")
def sb3_log_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """stable-baselines3 gives a model trained without a logger of its own an empty
    ``SB3-<date>`` folder in the system's temporary folder (``SB3_LOGDIR`` when set):
    the suite's into one of pytest's, so that a run leaves none behind."""
    import os

    saved = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if saved is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = saved
