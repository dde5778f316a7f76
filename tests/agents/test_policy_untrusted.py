"""A policy file never runs code unless the user passes --trust-policy.

The crafted zips are a shipped policy whose ``data`` entry carries a pickle whose
``__reduce__`` calls ``os.system("touch MARKER")`` — in ``ep_info_buffer``, in
``observation_space`` (a ``:serialized:`` entry the old loader unpickled) and in
``policy_class``. Every entry point that takes ``policy:PATH`` must refuse them with one
clear line (exit 2) and the marker must never appear; with ``--trust-policy`` the file
is loaded by stable-baselines3 as before, which runs the pickle (the documented risk).
The shipped policies must give exactly the old loader's weights and probabilities.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import random
import subprocess
import sys
import zipfile
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from sb3_contrib import MaskablePPO

from escaramuza.agents import make_agent
from escaramuza.agents.policy import (
    PolicyAgent,
    UntrustedPolicyError,
    load_model,
    pickle_globals,
    resolve_policy,
    shipped_policies,
)
from escaramuza.agents.policy import loading as policy_module
from escaramuza.cli import main
from escaramuza.rules.core.dice import RandomRoller
from escaramuza.rules.core.errors import EscaramuzaError
from escaramuza.rules.core.ruleset import apply_action, new_battle
from escaramuza.rules.core.scenario import load_scenario

pytestmark = pytest.mark.training

SHIPPED = "donjon/duelo"
SCENARIO = "donjon/duelo"


class Payload:
    """Unpickling this runs ``touch MARKER`` (what an attacker's zip would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch '{self.marker}'",))


def craft(tmp_path: Path, key: str, name: str = "evil.zip") -> tuple[Path, Path]:
    """A copy of a shipped policy whose ``data[key]`` is the payload's pickle."""
    marker = tmp_path / f"marker-{key}"
    source = resolve_policy(SHIPPED)
    with zipfile.ZipFile(source) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    doc = json.loads(entries["data"])
    assert key in doc  # the entry exists in a real SB3 zip: the attack replaces it
    doc[key] = {
        ":type:": "<class 'collections.deque'>",
        ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode(),
    }
    entries["data"] = json.dumps(doc).encode()
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    return path, marker


def test_the_payload_really_runs_when_unpickled(tmp_path: Path) -> None:
    # The test's own premise: unpickling the payload writes the marker.
    marker = tmp_path / "premise"
    pickle.loads(pickle.dumps(Payload(marker)))
    assert marker.exists()


def test_pickle_globals_reads_the_call_without_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "never"
    blob = pickle.dumps(Payload(marker))
    assert (os.system.__module__, "system") in pickle_globals(blob)
    assert not marker.exists()
    # A global reached through the memo (protocol 5's STACK_GLOBAL after BINGET).
    assert pickle_globals(pickle.dumps([np.float32, np.float32])) == {("numpy", "float32")}


@pytest.mark.parametrize("key", ["ep_info_buffer", "observation_space", "policy_class"])
def test_policy_agent_refuses_a_crafted_zip_without_running_it(tmp_path: Path, key: str) -> None:
    path, marker = craft(tmp_path, key)
    with pytest.raises(UntrustedPolicyError) as info:
        PolicyAgent(str(path))
    message = str(info.value)
    assert message.startswith(f"policy {path}: entry {key!r} of its 'data' file")
    assert f"{os.system.__module__}.system" in message and "--trust-policy" in message
    assert not marker.exists()


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("key", ["ep_info_buffer", "observation_space"])
@pytest.mark.parametrize(
    "command",
    [
        ["play", SCENARIO, "--enemies", "policy:{path}"],
        ["playtest", SCENARIO, "-n", "2", "--enemies", "policy:{path}"],
        ["suggest", SCENARIO, "--iterations", "5", "--policy", "policy:{path}"],
        ["evaluate", "--scenario", SCENARIO, "--agents", "random,policy:{path}", "-n", "1"],
    ],
    ids=["play", "playtest", "suggest", "evaluate"],
)
def test_every_cli_entry_point_refuses_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, command: list[str]
) -> None:
    path, marker = craft(tmp_path, key)
    code, out, err = _cli([part.format(path=path) for part in command], capsys)
    assert code == 2
    assert err.startswith("escaramuza: error: ") and err.count("\n") == 1
    assert f"policy {path}: entry {key!r}" in err and "--trust-policy" in err
    assert "Traceback" not in err and out == ""
    assert not marker.exists()


def test_a_real_process_exits_2_without_running_it(tmp_path: Path) -> None:
    path, marker = craft(tmp_path, "ep_info_buffer")
    proc = subprocess.run(
        [sys.executable, "-m", "escaramuza", "play", SCENARIO, "--enemies", f"policy:{path}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"escaramuza: error: policy {path}: entry 'ep_info_buffer'")
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert not marker.exists()


def test_trust_policy_loads_it_with_sb3_which_runs_the_pickle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The documented meaning of --trust-policy: SB3's loader, pickles and all."""
    path, marker = craft(tmp_path, "ep_info_buffer")
    code, out, err = _cli(
        ["play", SCENARIO, "--enemies", f"policy:{path}", "--trust-policy"], capsys
    )
    assert marker.exists()  # it ran: exactly why the flag is not the default
    assert code == 0 and "Outcome:" in out and err == ""


def test_an_unknown_policy_class_is_refused_even_when_harmless(tmp_path: Path) -> None:
    source = resolve_policy(SHIPPED)
    with zipfile.ZipFile(source) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    doc = json.loads(entries["data"])
    # collections.deque is data SB3 stores (episode statistics), but no policy class.
    doc["policy_class"][":serialized:"] = base64.b64encode(pickle.dumps(deque)).decode()
    entries["data"] = json.dumps(doc).encode()
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    with pytest.raises(
        UntrustedPolicyError, match=r"its policy_class is collections\.deque, not one"
    ):
        load_model(path)


def test_nothing_is_unpickled_for_the_shipped_policies(monkeypatch: pytest.MonkeyPatch) -> None:
    import cloudpickle
    from stable_baselines3.common import base_class, save_util

    def forbidden(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the safe loader unpickled something")

    monkeypatch.setattr(cloudpickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(save_util, "json_to_data", forbidden)
    monkeypatch.setattr(base_class.BaseAlgorithm, "load", forbidden)
    monkeypatch.setattr(policy_module, "_CACHE", {})
    for name in shipped_policies():
        loaded, meta = load_model(name)
        assert loaded.algo == meta.algo == "maskable-ppo"


def _decisions(scenario: str, seed: int, count: int) -> list[Any]:
    """States of one random battle at its first ``count`` decisions (or all of them)."""
    roller = RandomRoller(seed)
    rng = random.Random(seed)
    state = new_battle(load_scenario(scenario), roller)
    states = []
    while state.outcome is None and len(states) < count:
        states.append(state.clone())
        legal = state.ruleset.legal_actions(state)
        apply_action(state, legal[rng.randrange(len(legal))], roller)
    return states


@pytest.mark.parametrize("name", shipped_policies())
def test_shipped_policies_play_exactly_as_with_sb3s_loader(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(policy_module, "_CACHE", {})
    agent = PolicyAgent(name)
    reference = MaskablePPO.load(resolve_policy(name), device="cpu")  # the old path
    ours, theirs = agent.model.policy.state_dict(), reference.policy.state_dict()
    assert list(ours) == list(theirs)
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
    states = _decisions(agent.meta.scenarios[0], seed=3, count=25)
    assert len(states) >= 10
    for state in states:
        legal, probs = agent.distribution(state)
        mask = np.zeros(agent.codec.n, dtype=bool)
        mask[list(legal)] = True
        obs = agent.encoder.encode(state, state.pending.side)
        with torch.no_grad():
            obs_t, _ = reference.policy.obs_to_tensor(obs)
            expected = reference.policy.get_distribution(obs_t, action_masks=mask)
            expected = expected.distribution.probs[0].numpy().astype(np.float64)
        expected = np.where(mask, expected, 0.0)
        np.testing.assert_array_equal(probs, expected / expected.sum())
        action, _ = reference.predict(obs, action_masks=mask, deterministic=True)
        assert agent.act(state, random.Random(0)) == legal[int(action)]


def test_a_relu_policy_from_plain_sb3_loads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """policy_kwargs holding a class is pickled by SB3; its readable copy names ReLU."""
    import gymnasium as gym

    import escaramuza.envs  # noqa: F401 - registers the env ids

    monkeypatch.setattr(policy_module, "_CACHE", {})
    env = gym.make("escaramuza/Donjon-v0")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=32,
        seed=0,
        policy_kwargs={"net_arch": [16, 8], "activation_fn": torch.nn.ReLU},
    )
    path = tmp_path / "relu.zip"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        assert ":serialized:" in json.loads(archive.read("data"))["policy_kwargs"]
    loaded, meta = load_model(path)
    assert meta.ruleset == "donjon"
    assert isinstance(loaded.policy.mlp_extractor.policy_net[1], torch.nn.ReLU)
    obs = torch.as_tensor(
        np.random.default_rng(0).uniform(-1, 1, (8, *loaded.observation_shape)), dtype=torch.float32
    )
    with torch.no_grad():
        ours = loaded.policy.get_distribution(obs).distribution.probs
        theirs = model.policy.get_distribution(obs).distribution.probs
    assert torch.equal(ours, theirs)


def test_make_agent_passes_the_trust_flag(tmp_path: Path) -> None:
    path, marker = craft(tmp_path, "observation_space")
    with pytest.raises(UntrustedPolicyError):
        make_agent(f"policy:{path}")
    assert not marker.exists()


def _rewrite(tmp_path: Path, name: str, entry: str, data: bytes) -> Path:
    """A copy of a shipped policy with one zip entry replaced."""
    with zipfile.ZipFile(resolve_policy(SHIPPED)) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    entries[entry] = data
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        for key, value in entries.items():
            archive.writestr(key, value)
    return path


def test_weights_that_are_more_than_tensors_are_refused(tmp_path: Path) -> None:
    import io

    marker = tmp_path / "marker-weights"
    buffer = io.BytesIO()
    torch.save({"action_net.weight": Payload(marker)}, buffer)
    path = _rewrite(tmp_path, "weights.zip", "policy.pth", buffer.getvalue())
    with pytest.raises(
        UntrustedPolicyError,
        match=r"its weights \(policy\.pth\) hold more "
        r"than tensors .*--trust-policy",
    ):
        load_model(path)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("entry", "depth"),
    # Each within its entry's size limit (64 KiB of escaramuza.json, 16 MiB of data), far
    # past the depth at which json.loads raised RecursionError (a traceback).
    [("escaramuza.json", 30_000), ("data", 100_000)],
)
def test_an_entry_nested_thousands_deep_is_one_line_naming_file_and_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str, depth: int
) -> None:
    path = _rewrite(tmp_path, "deep.zip", entry, b"[" * depth + b"]" * depth)
    code, out, err = _cli(["play", SCENARIO, "--enemies", f"policy:{path}"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"escaramuza: error: policy {path}: {entry}: lists and objects are nested more than "
        "64 levels deep\n"
    )


def test_an_entry_that_is_not_utf8_is_one_line_naming_file_and_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _rewrite(tmp_path, "latin.zip", "escaramuza.json", '{"ruleset": "ñ"}'.encode("latin-1"))
    code, out, err = _cli(["play", SCENARIO, "--enemies", f"policy:{path}"], capsys)
    assert (code, out) == (2, "")
    assert err == f"escaramuza: error: policy {path}: escaramuza.json: not UTF-8 text\n"


def test_metadata_missing_a_field_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _rewrite(tmp_path, "meta.zip", "escaramuza.json", b'{"ruleset": "donjon"}')
    code, out, err = _cli(["play", SCENARIO, "--enemies", f"policy:{path}"], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"policy {path}: escaramuza.json is not valid metadata (KeyError: 'env_id')" in err


def _with_meta(tmp_path: Path, **fields: Any) -> Path:
    """A copy of the shipped policy with some of its escaramuza.json's fields replaced."""
    with zipfile.ZipFile(resolve_policy(SHIPPED)) as archive:
        meta = json.loads(archive.read("escaramuza.json"))
    return _rewrite(tmp_path, "limits.zip", "escaramuza.json", json.dumps(meta | fields).encode())


@pytest.mark.parametrize(
    ("field", "value", "shown", "most"),
    [
        # one past each env bound (MOST_LIMITS): they sized the codecs and spaces, so a
        # crafted 10**9 allocated them that large before anything refused the file
        ("max_combatants", 17, "17", 16),
        ("max_zones", 33, "33", 32),
        ("max_items", 33, "33", 32),
        ("max_items", 0, "0", 32),
        ("max_zones", -3, "-3", 32),
        # int() took a string or a fraction for a limit
        ("max_combatants", "16", '"16"', 16),
        ("max_zones", 15.5, "15.5", 32),
    ],
)
def test_metadata_limits_no_env_takes_are_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: object,
    shown: str,
    most: int,
) -> None:
    path = _with_meta(tmp_path, **{field: value})
    code, out, err = _cli(["play", SCENARIO, "--enemies", f"policy:{path}"], capsys)
    assert (code, out, err) == (
        2,
        "",
        f"escaramuza: error: policy {path}: escaramuza.json: {field} must be a whole number "
        f"from 1 to {most}, not {shown}\n",
    )


@pytest.mark.parametrize(
    ("space", "declared", "expects"),
    [
        ("observation_space", {"_shape": [10**12]}, "shape (1000000000000,) and 237 actions"),
        ("observation_space", {"_shape": [858, 10**9]}, "shape (858, 1000000000) and 237"),
        ("action_space", {"n": 10**12}, "shape (858,) and 1000000000000 actions"),
    ],
)
def test_declared_spaces_the_limits_cannot_make_are_refused_before_any_allocation(
    tmp_path: Path, space: str, declared: dict[str, Any], expects: str
) -> None:
    with zipfile.ZipFile(resolve_policy(SHIPPED)) as archive:
        doc = json.loads(archive.read("data"))
    doc[space] = doc[space] | declared
    path = _rewrite(tmp_path, "spaces.zip", "data", json.dumps(doc).encode())
    with pytest.raises(EscaramuzaError) as caught:
        load_model(path)
    assert str(caught.value).startswith(f"policy {path}: the model expects observations of ")
    assert expects in str(caught.value)
    assert "'donjon' with its saved limits makes (858,) and 237" in str(caught.value)


def test_refusals_are_in_the_current_language(tmp_path: Path) -> None:
    """safe_load's refusals (and the --trust-policy hint that ends them) were English
    under ``--lang es``."""
    from escaramuza.rules.core.errors import EscaramuzaError
    from escaramuza.rules.core.i18n import language

    path, marker = craft(tmp_path, "ep_info_buffer")
    with language("es"), pytest.raises(UntrustedPolicyError) as info:
        load_model(path)
    assert str(info.value) == (
        f"política {path}: la entrada 'ep_info_buffer' de su archivo 'data' es un pickle que "
        f"nombra {os.system.__module__}.system, que ningún archivo de política necesita (un "
        "archivo manipulado o código serializado); rechazado sin ejecutarlo. Pasa "
        "--trust-policy para cargarlo igualmente con stable-baselines3, solo para un archivo "
        "hecho por ti o de total confianza: eso lo deserializa con pickle, lo que puede "
        "ejecutar cualquier código"
    )
    assert not marker.exists()
    listed = _rewrite(tmp_path, "list.zip", "data", b"[1]")
    with language("es"), pytest.raises(EscaramuzaError) as info:
        load_model(listed)
    assert str(info.value) == f"política {listed}: su entrada 'data' no es un objeto JSON"


def test_the_policy_label_and_the_metadata_refusals_are_the_catalogs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marked: None
) -> None:
    """``policy PATH`` and the metadata's refusals (agents/policy/meta.py) were English
    under ``--lang es``; each is the marked catalog's (tests/conftest.py)."""
    from escaramuza.agents.policy.meta import (
        PolicyMeta,
        _infer_meta,
        check_fits,
        check_sizes,
        read_meta,
    )
    from escaramuza.envs.common import EnvLimits, codecs, needed_limits
    from escaramuza.rules import get_ruleset
    from escaramuza.rules.core.errors import EscaramuzaError

    path = _rewrite(tmp_path, "meta.zip", "escaramuza.json", b'{"ruleset": "donjon"}')
    code, out, err = _cli(["play", SCENARIO, "--enemies", f"policy:{path}"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"escaramuza: error: ««policy {path}»: escaramuza.json is not valid metadata "
        "(KeyError: 'env_id')»\n"
    )
    with pytest.raises(EscaramuzaError) as caught:
        make_agent("policy:")
    assert str(caught.value) == "«policy: give the model file, e.g. policy:runs/x/final.zip»"
    with pytest.raises(EscaramuzaError) as caught:
        _infer_meta(3, "ppo")
    assert str(caught.value) == "«policy: no ruleset has 3 actions under the default limits»"
    big = load_scenario("destiny_dice/emboscada")
    need = needed_limits(big).max_combatants
    meta = PolicyMeta("destiny_dice", "escaramuza/DestinyDice-v0", "ppo", "enemies", 2, 16, 6)
    with pytest.raises(EscaramuzaError) as caught:
        check_fits("policy p.zip", meta, big)
    assert str(caught.value) == (
        "«policy p.zip: max_combatants: trained with max_combatants=2 and plays only "
        f"scenarios within it; scenario 'destiny_dice/emboscada' needs {need}»"
    )
    codec, encoder = codecs(get_ruleset("destiny_dice"), EnvLimits(2, 16, 6))
    with pytest.raises(EscaramuzaError) as caught:
        check_sizes("policy p.zip", meta, (3,), 4)
    assert str(caught.value) == (
        "«policy p.zip: the model expects observations of shape (3,) and 4 actions, but "
        f"'destiny_dice' with its saved limits makes ({encoder.size},) and {codec.n}; "
        "retrain it with this version of escaramuza»"
    )
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"not a zip!\n")
    with pytest.raises(EscaramuzaError) as caught:
        read_meta(corrupt)
    assert str(caught.value) == (
        f"««policy {corrupt}»: not a saved model (File is not a zip file)»"
    )
