"""The engine's side of the kernels' equality tests.

One implementation serves the tests, ``benchmarks/fast_path.py --equality`` and the
driver: :func:`escaramuza.agents.fast.engine_battle` plays ``play_battle`` and reads its
final state and ``playtest.record_battle`` into a ``KernelBattle`` (rules/core/kernel.py).
"""

from __future__ import annotations

from escaramuza.agents.fast import engine_battle

__all__ = ["engine_battle"]
