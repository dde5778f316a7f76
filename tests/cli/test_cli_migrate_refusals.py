"""``escaramuza migrate``: what it refuses and leaves alone, backups, permissions, dry runs,
a written file that does not load put back, and ``validate`` pointing at ``migrate``.

The old files are shipped files aged as :mod:`tests.cli.test_cli_migrate` ages them (its
tables read backwards).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from escaramuza.cli import main
from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.scenario import shipped_days
from tests.cli.test_cli_migrate import SHIPPED, _files, _line, _run, _shipped_text, age, aged

# -- refusals, backups, dry runs ---------------------------------------------------------


def test_old_and_new_key_together_is_a_conflict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = _shipped_text("donjon/duelo")
    needle = "    armour: 1\n"
    assert needle in shipped
    old = age(shipped).replace("    armadura: 1\n", "    armadura: 1\n    armour: 1\n", 1)
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == []
    assert len(err) == 1
    assert err[0].startswith(f"escaramuza: error: {path}: combatants[0].armadura: both `armadura`")
    assert "`armour`" in err[0]
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}


def test_two_retired_keys_of_one_successor_are_a_conflict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = age(_shipped_text("sistema_2d10/duelo"), 0)
    first = "    atributos: {reflejos: 35"
    assert first in old
    old = old.replace(first, "    caracteristicas: {reflejos: 1}\n" + first, 1)
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, _, err = _run(capsys, str(path))
    assert code == 2
    assert len(err) == 1 and "would both become `attributes`" in err[0]
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}


def test_a_backup_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "duelo.yaml"
    path.write_text(age(_shipped_text("donjon/duelo")), encoding="utf-8")
    old = path.read_bytes()
    (tmp_path / "duelo.yaml.bak").write_bytes(b"first backup")
    (tmp_path / "duelo.yaml.bak1").write_bytes(b"second backup")
    code, out, _ = _run(capsys, str(path))
    assert code == 0
    assert out[-1] == f"{path}: migrated; the original is kept as {path}.bak2"
    assert (tmp_path / "duelo.yaml.bak").read_bytes() == b"first backup"
    assert (tmp_path / "duelo.yaml.bak1").read_bytes() == b"second backup"
    assert (tmp_path / "duelo.yaml.bak2").read_bytes() == old


def test_the_file_keeps_its_permissions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "duelo.yaml"
    path.write_text(age(_shipped_text("donjon/duelo")), encoding="utf-8")
    os.chmod(path, 0o600)
    assert _run(capsys, str(path))[0] == 0
    assert path.stat().st_mode & 0o777 == 0o600
    assert Path(f"{path}.bak").stat().st_mode & 0o777 == 0o600


def test_dry_run_lists_the_changes_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, renamed = aged(_shipped_text("donjon/duelo"))
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, out, err = _run(capsys, "--dry-run", str(path))
    assert (code, err) == (0, [])
    assert out[-1] == f"{path}: would be migrated (dry run: nothing written)"
    first_armas = _line(old, "    armas:")
    assert f"{path}:{first_armas}: combatants[0].armas: `armas` is now `weapons`" in out
    lines = [int(line.split(":")[1]) for line in out[:-1]]
    # One line per name renamed (variant 0 writes no flag, so one edit is one rename).
    assert lines == sorted(lines) and len(lines) == renamed
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}


def test_a_current_file_is_left_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "duelo.yaml"
    shutil.copyfile(SHIPPED["donjon/duelo"], path)
    os.utime(path, (1_000_000, 1_000_000))
    code, out, err = _run(capsys, str(path))
    assert (code, out, err) == (0, [f"{path}: already current"], [])
    assert path.stat().st_mtime == 1_000_000
    assert _files(tmp_path) == {"duelo.yaml": Path(SHIPPED["donjon/duelo"]).read_bytes()}


def test_a_file_that_would_still_not_load_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = age(_shipped_text("donjon/duelo")).replace("    heridas:", "    heridaz:", 1)
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == []
    assert len(err) == 1 and "nothing written" in err[0] and "still does not load" in err[0]
    assert "combatants[0].heridas: required field is missing" in err[0]  # what heridaz left
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}


def test_a_written_file_that_does_not_load_is_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from escaramuza.migrate import command as migrate

    checks: list[str] = []
    real = migrate.check

    def check_once(path: Path, kind: str, text: str) -> None:
        checks.append(kind)
        if len(checks) > 1:  # the check of the file written
            raise ScenarioError(str(path), "", "the disk said no")
        real(path, kind, text)

    monkeypatch.setattr(migrate, "check", check_once)
    old = age(_shipped_text("donjon/duelo"))
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, _, err = _run(capsys, str(path))
    assert code == 2 and checks == ["scenario", "scenario"]
    assert len(err) == 1 and "the disk said no" in err[0] and "the original is restored" in err[0]
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("roto.yaml", b"ruleset: donjon\ncombatants: [\n", "YAML syntax error"),
        ("lista.yaml", b"- 1\n- 2\n", "not a mapping"),
        ("otra.yaml", b"foo: 1\n", "not a scenario, day or state file"),
        ("binario.yaml", b"\xff\xfe\x00armas", "not UTF-8"),
        ("ajedrez.yaml", b"ruleset: ajedrez\ncombatants: []\n", "unknown ruleset 'ajedrez'"),
        ("estado.json", b'{"format": "otra-cosa", "version": 1}', "expected 'escaramuza-state'"),
        ("malo.json", b'{"format": "escaramuza-state",', "not valid JSON"),
    ],
)
def test_a_bad_file_is_a_clear_error_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == []
    assert len(err) == 1 and err[0].startswith(f"escaramuza: error: {path}: ")
    assert reason in err[0]
    assert _files(tmp_path) == {name: content}


def test_missing_files_and_folders_are_errors_the_others_still_migrate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "duelo.yaml"
    good.write_text(age(_shipped_text("donjon/duelo")), encoding="utf-8")
    folder = tmp_path / "carpeta"
    folder.mkdir()
    code, out, err = _run(capsys, str(tmp_path / "nada.yaml"), str(folder), str(good))
    assert code == 2
    assert err == [
        f"escaramuza: error: {tmp_path / 'nada.yaml'}: no such file",
        f"escaramuza: error: {folder}: is a directory, not a scenario, day or state file",
    ]
    assert out[-1] == f"{good}: migrated; the original is kept as {good}.bak"


# -- validate points at migrate ---------------------------------------------------------


def test_validate_suggests_migrate_once_per_old_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "viejo.yaml"
    old.write_text(age(_shipped_text("donjon/duelo")), encoding="utf-8")
    typo = tmp_path / "errata.yaml"
    typo.write_text(_shipped_text("donjon/duelo").replace("    heridas:", "    heridaz:", 1))
    assert main(["validate", str(old), str(typo)]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"{old}: run `escaramuza migrate {old}` to rewrite the retired names"
    ]
    assert f"{typo}:" in out and "is now" in out  # the problems are still all listed


def test_validate_suggests_migrate_for_a_days_old_heroes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = tmp_path / "jornada.day.yaml"
    shipped = Path(shipped_days()["cairn/jornada"]).read_text(encoding="utf-8")
    day.write_text(age(shipped, blocks="heroes"), encoding="utf-8")
    assert main(["validate", str(day)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{day}: run `escaramuza migrate {day}` to rewrite the retired names"
    ]


def test_migrate_help_renders(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: escaramuza migrate" in out and "--dry-run" in out and "%%" not in out


def test_a_retired_key_the_ruleset_has_no_successor_for_is_not_renamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Destiny Dice has no `level`: Donjon's `nivel` there is not a retired name, only an
    # unknown field, so it is not renamed and the file (which then cannot load) is refused.
    shipped = _shipped_text("destiny_dice/brann-vs-saqueador")
    old = age(shipped).replace("    pv: 16\n", "    pv: 16\n    nivel: 2\n", 1)
    path = tmp_path / "duelo.yaml"
    path.write_text(old, encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == []
    assert len(err) == 1 and "combatants[0].nivel: unknown field" in err[0]
    assert _files(tmp_path) == {"duelo.yaml": old.encode("utf-8")}
    # Without it, the rest migrates: every other retired name had a successor.
    path.write_text(old.replace("    nivel: 2\n", ""), encoding="utf-8")
    assert _run(capsys, str(path))[0] == 0
    assert path.read_text(encoding="utf-8") == shipped


def test_a_tables_file_has_no_stat_block_to_migrate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from escaramuza.rules.sistema_2d10.tables import default_tables_path

    path = tmp_path / "tablas.yaml"
    shutil.copyfile(default_tables_path(), path)
    assert _run(capsys, str(path)) == (0, [f"{path}: already current"], [])
    assert _files(tmp_path) == {"tablas.yaml": Path(default_tables_path()).read_bytes()}


# -- every message in the current language --------------------------------------------------
# (``marked``, tests/conftest.py: a catalog that marks every message it gives)


# (file name, its text, the reason migrate refuses it with, as the marked catalog gives it)
UNMIGRATABLE = [
    ("list.yaml", "[1, 2]\n", "«not a scenario, day or state file (not a mapping of fields)»"),
    ("a.yaml", "a: 1\n", "«not a scenario, day or state file (no ruleset, combatants or format)»"),
    ("s.yaml", "format: escaramuza-state\n", "«a state file must be JSON»"),
    ("s.json", '{"format": "other"}\n', "format: «expected 'escaramuza-state', got 'other'»"),
    (
        "b.yaml",
        "combatants: []\n",
        "ruleset: «required field is missing (which names are retired depends on it)»",
    ),
    (
        "c.yaml",
        "ruleset: ajedrez\ncombatants: []\n",
        "ruleset: «unknown ruleset 'ajedrez' (known: ",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "reason"), UNMIGRATABLE, ids=[row[0] for row in UNMIGRATABLE]
)
def test_a_refusal_speaks_the_current_language(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    marked: None,
    name: str,
    text: str,
    reason: str,
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert (code, out, len(err)) == (2, [], 1)
    assert err[0].startswith(f"escaramuza: error: {path}: {reason}"), err[0]
    assert err[0].endswith("»")


def test_a_conflict_and_a_rename_speak_the_current_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marked: None
) -> None:
    shipped = _shipped_text("donjon/duelo")
    path = tmp_path / "duelo.yaml"
    old = age(shipped).replace("    armadura: 1\n", "    armadura: 1\n    armour: 1\n", 1)
    path.write_text(old, encoding="utf-8")
    code, _, err = _run(capsys, str(path))
    assert code == 2
    assert err == [
        f"escaramuza: error: {path}: combatants[0].armadura: "
        "«both `armadura` and `armour` are written: keep one of them and migrate again»"
    ]
    # A flag that became a key's value: the change line's reason is the catalog's too.
    path.write_text(age(shipped, 1), encoding="utf-8")
    code, out, _ = _run(capsys, str(path), "--dry-run")
    flags = [line for line in out if "` is now `" in line]
    assert code == 0 and flags and all(line.endswith("`»") for line in flags), out


def test_a_file_with_too_many_backups_is_refused_in_the_current_language(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    marked: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from escaramuza.migrate import command

    monkeypatch.setattr(command, "MAX_BACKUPS", 1)
    path = tmp_path / "duelo.yaml"
    path.write_text(age(_shipped_text("donjon/duelo")), encoding="utf-8")
    (tmp_path / "duelo.yaml.bak").write_text("a backup", encoding="utf-8")
    code, _, err = _run(capsys, str(path))
    assert code == 2
    assert err == [f"escaramuza: error: {path}: «has 1 backups already; remove some»"]
