"""architecture.md, "Layers": the rules layer never imports the RL stack."""

from __future__ import annotations

import subprocess
import sys

from escaramuza.rules import RULESETS

FORBIDDEN = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")


def test_rules_layer_imports_no_rl_library():
    modules = ["escaramuza.rules.core", *(target.split(":")[0] for target in RULESETS.values())]
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "from escaramuza.rules.core import load_scenario\n"
        + "from escaramuza.rules.core.scenario import shipped_scenarios\n"
        + "[load_scenario(n) for n in shipped_scenarios()]\n"
        + f"print(sorted(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
