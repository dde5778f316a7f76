"""Reproducers of hostile input: each must be a clean exit 2.

The sections number the kinds of input: 2, code named by a file; 3, unbounded reads;
4, loader crashes; 5, states that validate and then crash; 7, duplicate keys;
8, temporaries of killed writers (tests/web/test_fuzz_api.py uses the same numbers);
9, names no file can have.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from escaramuza.cli import main
from escaramuza.rules.core import files
from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.scenario import load_scenario, shipped_scenarios
from escaramuza.state_file import StateFileError, load_state, save_state, state_from_dict
from tests.fuzz.mutations import play_out, state_sources

DUEL = Path(shipped_scenarios()["destiny_dice/brann-vs-saqueador"])
GOBLINS = Path(shipped_scenarios()["cairn/emboscada_goblin"])


def _cli_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("escaramuza: error: ")
    return lines[0]


def _state_doc(ruleset: str) -> dict:
    return json.loads(json.dumps(next(d for _, d in state_sources() if d["ruleset"] == ruleset)))


def _write(tmp_path: Path, doc: dict, name: str = "s.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# -- item 2: no module named by a file is imported --------------------------------------


def test_item2_a_state_naming_main_neither_imports_nor_runs_it(tmp_path: Path) -> None:
    doc = _state_doc("destiny_dice")
    doc["data"]["turn_actor"] = {"$type": "escaramuza.__main__:main", "fields": {}}
    path = _write(tmp_path, doc)
    code = (
        "import sys\nfrom escaramuza.state_file import load_state, StateFileError\n"
        f"try:\n    load_state({str(path)!r})\nexcept StateFileError as e:\n    print(e)\n"
        "print('escaramuza.__main__' in sys.modules, 'escaramuza.training.train' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    assert "unknown type 'escaramuza.__main__:main'" in out[0]
    assert out[-1] == "False False"


def test_item2_importing_main_does_not_run_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import escaramuza.__main__; print('ok')"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "ok\n", "")


# -- item 3: unbounded reads --------------------------------------------------------------


def test_item3_play_dev_zero_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    line = _cli_error(["play", "/dev/zero"], capsys)
    assert "/dev/zero: is not a regular file" in line and "1 MiB" in line


def test_item3_a_state_whose_scenario_is_dev_zero(tmp_path: Path) -> None:
    doc = _state_doc("destiny_dice")
    doc["scenario"] = "/dev/zero"
    with pytest.raises(StateFileError) as info:
        load_state(_write(tmp_path, doc))
    assert info.value.field == "scenario" and "not a regular file" in info.value.reason


def test_item3_a_file_over_the_cap_names_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("#" * (2 << 20), encoding="utf-8")
    limit = r"is 2097152 bytes; a scenario file may be at most 1 MiB"
    with pytest.raises(ScenarioError, match=limit):
        load_scenario(str(big))


def test_item3_a_fifo_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(StateFileError, match="not a regular file"):
        load_state(fifo)


# -- item 4: loader crashes -----------------------------------------------------------------


def test_item4_a_5000_digit_pv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "pv.yaml"
    bad.write_text(
        DUEL.read_text(encoding="utf-8").replace("pv: 16", "pv: " + "1" * 5000, 1), encoding="utf-8"
    )
    line = _cli_error(["play", str(bad)], capsys)
    assert "combatants[0].pv: integer 111111111111… has more than 19 digits" in line


def test_item4_a_5000_digit_version(tmp_path: Path) -> None:
    text = json.dumps(_state_doc("donjon")).replace('"version": 1', '"version": ' + "9" * 5000)
    path = tmp_path / "v.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StateFileError) as info:
        load_state(path)
    assert info.value.field == "version" and "more than 19 digits" in info.value.reason


def test_item4_800_nested_lists_in_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "deep.yaml"
    nested = "[" * 800 + "]" * 800
    bad.write_text(
        DUEL.read_text(encoding="utf-8").replace("pv: 16", f"pv: {nested}", 1), encoding="utf-8"
    )
    line = _cli_error(["play", str(bad)], capsys)
    assert "nested more than 64 levels deep" in line


def test_item4_5000_nested_lists_in_json_and_in_decode_value(tmp_path: Path) -> None:
    text = json.dumps(_state_doc("cairn")).replace(
        '"declared": [', '"declared": [' + "[" * 5000 + "]" * 5000 + ",", 1
    )
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StateFileError, match="nested more than 64 levels deep"):
        load_state(path)
    # A document built in memory (the web page's) gets the same bound before decoding.
    doc = _state_doc("cairn")
    deep: list = []
    for _ in range(900):
        deep = [deep]
    doc["data"]["declared"] = deep
    with pytest.raises(StateFileError, match="nested more than 64 levels deep"):
        state_from_dict(doc)


def test_item4_cairn_template_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOBLINS.read_text(encoding="utf-8")
    assert "template: goblin" in text
    bad = tmp_path / "tpl.yaml"
    bad.write_text(text.replace("template: goblin", "template: [goblin]", 1), encoding="utf-8")
    line = _cli_error(["play", str(bad)], capsys)
    assert ".template:" in line


def test_item4_order_of_lists(tmp_path: Path) -> None:
    doc = _state_doc("sistema_2d10")
    doc["order"] = [["a"]]
    with pytest.raises(StateFileError) as info:
        load_state(_write(tmp_path, doc))
    assert info.value.field == "order[0]" and "unknown combatant ['a']" in info.value.reason


def test_item4_a_5000_character_scenario_name(tmp_path: Path, capsys) -> None:
    doc = _state_doc("donjon")
    doc["scenario"] = "x" * 5000
    path = _write(tmp_path, doc)
    line = _cli_error(["suggest", str(path), "--iterations", "2"], capsys)
    assert "scenario: cannot load scenario" in line and "File name too long" in line
    assert len(line) < 1000


# -- item 5: states that validate and then crash ---------------------------------------------


def test_item5_donjon_acted_a_large_negative_integer(tmp_path: Path) -> None:
    doc = _state_doc("donjon")
    doc["combatants"][0]["data"]["acted"] = -(10**15)
    with pytest.raises(StateFileError) as info:
        load_state(_write(tmp_path, doc))
    assert info.value.field == "combatants[0].data.acted"


def test_item5_donjon_acted_out_of_range(tmp_path: Path) -> None:
    doc = _state_doc("donjon")
    doc["combatants"][0]["data"]["acted"] = [-(10**15), 0]
    with pytest.raises(StateFileError, match="combatants\\[0\\].data.acted: expected"):
        load_state(_write(tmp_path, doc))


def test_item5_destiny_dice_turn_actor_5(tmp_path: Path) -> None:
    doc = _state_doc("destiny_dice")
    doc["data"]["turn_actor"] = 5
    with pytest.raises(StateFileError) as info:
        load_state(_write(tmp_path, doc))
    assert info.value.field == "data.turn_actor"


@pytest.mark.parametrize("ruleset", ["destiny_dice", "donjon", "cairn", "sistema_2d10"])
def test_item5_a_pending_actor_out_of_turn_is_refused(ruleset: str, tmp_path: Path) -> None:
    doc = _state_doc(ruleset)
    others = [c["id"] for c in doc["combatants"] if c["id"] != doc["pending"]["actor"]]
    doc["pending"]["actor"] = others[0]
    doc["pending"]["side"] = next(c["side"] for c in doc["combatants"] if c["id"] == others[0])
    with pytest.raises(StateFileError):
        load_state(_write(tmp_path, doc))


@pytest.mark.parametrize("label", [label for label, _ in state_sources()])
def test_item5_every_saved_state_loads_and_plays_to_the_end(label: str, tmp_path: Path) -> None:
    doc = dict(state_sources())[label]
    state, _ = load_state(_write(tmp_path, json.loads(json.dumps(doc))))
    assert play_out(state) > 0 and state.outcome is not None


# -- item 7: duplicate keys -------------------------------------------------------------------


def test_item7_a_duplicate_key_names_the_second_line(tmp_path: Path, capsys) -> None:
    lines = DUEL.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "mente: d6")
    lines.insert(at + 1, lines[at].replace("d6", "d8"))
    bad = tmp_path / "dup.yaml"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = _cli_error(["play", str(bad)], capsys)
    assert f"line {at + 2}, column" in line and "duplicate key 'mente'" in line


def test_item7_the_c_loader_is_used_where_available() -> None:
    import yaml

    if getattr(yaml, "__with_libyaml__", False):
        assert issubclass(files.StrictSafeLoader, yaml.CSafeLoader)


# -- item 8: temporaries of killed writers -------------------------------------------------------


def _temporary(tmp_path: Path, suffix: str, age: float) -> Path:
    tmp = tmp_path / f".battle.json.{suffix}.tmp"
    tmp.write_text("half")
    old = time.time() - age
    os.utime(tmp, (old, old))
    return tmp


def test_item8_stale_temporaries_are_removed_on_save_and_load(tmp_path: Path) -> None:
    state, _ = load_state(_write(tmp_path, _state_doc("destiny_dice"), "battle.json"))
    stale = _temporary(tmp_path, "abcd1234", 60)
    fresh = _temporary(tmp_path, "efgh5678", 0)  # a writer may have just created it
    other = tmp_path / ".other.json.abcd1234.tmp"  # another file's: never ours to remove
    other.write_text("x")
    os.utime(other, (time.time() - 60,) * 2)
    save_state(state, tmp_path / "battle.json")
    assert not stale.exists() and fresh.exists() and other.exists()
    stale2 = _temporary(tmp_path, "zzzz0000", 60)
    load_state(tmp_path / "battle.json")
    assert not stale2.exists() and fresh.exists()


@pytest.mark.skipif(files.fcntl is None, reason="locks need fcntl")
def test_item8_a_live_writers_locked_temporary_is_kept(tmp_path: Path) -> None:
    tmp = _temporary(tmp_path, "live0000", 60)
    fd = os.open(tmp, os.O_RDWR)
    try:
        files.fcntl.flock(fd, files.fcntl.LOCK_EX)
        assert files.remove_stale_temporaries(tmp_path / "battle.json") == []
        assert tmp.exists()
    finally:
        os.close(fd)
    assert files.remove_stale_temporaries(tmp_path / "battle.json") == [tmp]


def test_item8_a_killed_autosave_leaves_a_temporary_the_next_save_removes(tmp_path: Path):
    # A writer killed (SIGKILL) while it holds its temporary: the lock dies with it.
    target = tmp_path / "battle.json"
    code = (
        "import os, time\nfrom escaramuza.rules.core import files\n"
        "real = os.replace\n"
        "def hang(a, b):\n    print('writing', flush=True); time.sleep(600)\n"
        "os.replace = hang\n"
        f"files.atomic_write({str(target)!r}, 'x')\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
        left = list(tmp_path.glob(".battle.json.*.tmp"))
        assert len(left) == 1
        assert files.remove_stale_temporaries(target) == []  # live and locked: kept
    finally:
        proc.kill()
        proc.wait(timeout=60)
    old = time.time() - 60
    os.utime(left[0], (old, old))
    files.atomic_write(target, "y")
    assert [p.name for p in tmp_path.iterdir()] == ["battle.json"]


# -- item 9: names no file can have -----------------------------------------------------------

#: Longer than any file name the system takes: looking it up is ENAMETOOLONG, which pathlib's
#: ``exists()`` and ``is_file()`` raise where ``os.path``'s answer False.
LONG = "x" * 5000


def _long_day(tmp_path: Path) -> Path:
    day = tmp_path / "largo.day.yaml"
    text = Path(shipped_scenarios()["donjon/duelo"]).parent / "jornada.day.yaml"
    lines = text.read_text(encoding="utf-8").split("encounters:")[0]
    day.write_text(lines + f"encounters:\n- scenario: {LONG}\n", encoding="utf-8")
    return day


@pytest.mark.parametrize(
    "argv",
    [
        ["campaign", "-n", "1", LONG],
        ["play", "--heroes", f"policy:{LONG}", str(DUEL)],
        ["play", "--heroes", f"mcts:10it:net={LONG}", str(DUEL)],
        ["play", "--save-state", "TMP/" + LONG + ".json", str(DUEL)],
        ["validate", "DAY"],
        ["campaign", "-n", "1", "DAY"],
        ["balance", "--target", "easy", "--vary", "count:saqueador=1..2"]
        + ["--report", "TMP/" + LONG, str(DUEL)],
    ],
    ids=["campaign", "policy", "net", "save-state", "validate-day", "campaign-day", "report"],
)
def test_item9_a_name_too_long_for_a_file_is_one_line_of_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = str(_long_day(tmp_path))
    argv = [a.replace("TMP", str(tmp_path)) if a != "DAY" else day for a in argv]
    if argv[0] == "validate":
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "encounters[0].scenario:" in out
        assert "File name too long" in out
        return
    line = _cli_error(argv, capsys)
    assert LONG[:80] in line


def test_item9_gm_save_to_a_name_too_long_keeps_the_session(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    lines = f"save {LONG}.json\nset brann pv 3\nshow\nquit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    assert main(["gm", "--no-autosave", str(DUEL)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "cannot be written (File name too long)" in out
    assert "pv 3/16" in out  # the session went on after the failed save
