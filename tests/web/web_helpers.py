"""Shared pieces of the web tests: a client with its own app, and a small scenario."""

from __future__ import annotations

import io
import time
import warnings
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's notice about httpx (still supported)
    from fastapi.testclient import TestClient

from escaramuza.gm import run_session
from escaramuza.rules.core.state import BattleState
from escaramuza.web.app import create_app

#: A two-combatant Destiny Dice scenario (the README's example).
DUEL_YAML = """\
name: brann-vs-saqueador-subido
title: Brann contra el Saqueador (subido)
ruleset: destiny_dice
round_limit: 20
battlefield:
  zones:
    - {id: pasillo, name: Pasillo}
    - {id: sala, name: Sala de guardia, cover: 1}
  links:
    - [pasillo, sala]
combatants:
  - id: brann
    name: Brann
    side: heroes
    zone: pasillo
    temperament: brute
    cuerpo: d8
    mente: d6
    alma: d6
    pv: 16
    weapons:
      - {name: espada corta, tier: media}
  - id: saqueador
    side: enemies
    zone: pasillo
    cuerpo: d6
    mente: d4
    alma: d4
    defensa: d6
    armour: 1
    pv: 10
"""


def client(raise_server_exceptions: bool = True, **kwargs: object) -> TestClient:
    """A client of a fresh app (its own sessions)."""
    app = create_app(**kwargs)  # type: ignore[arg-type]
    return TestClient(app, raise_server_exceptions=raise_server_exceptions)


def visitor(app: Any, address: str) -> TestClient:
    """Another client of ``app``: its own cookies, from its own address."""
    return TestClient(app, client=(address, 50000))


def terminal_battle(name: str, seed: int) -> BattleState:
    """The battle `escaramuza gm NAME --seed SEED` starts (the page must start the same)."""
    session = run_session(name, io.StringIO("quit\n"), io.StringIO(), autosave=False, seed=seed)
    return session.state


def finished_playtest(c: TestClient) -> dict[str, Any]:
    """The session's playtest once it is no longer running (at most about 30 s)."""
    job: dict[str, Any] = c.get("/api/playtest").json()
    for _ in range(600):
        if job["status"] != "running":
            break
        time.sleep(0.05)
        job = c.get("/api/playtest").json()
    return job
