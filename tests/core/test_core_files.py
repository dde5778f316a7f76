"""Atomic writes keep the old file on failure and give normal permissions."""

from __future__ import annotations

import os
import stat

import pytest

from escaramuza.rules.core.files import atomic_write


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")
    atomic_write(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_atomic_write_uses_the_umask_not_mkstemps_private_mode(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "report.md", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "report.md").stat().st_mode) == 0o644


def test_atomic_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "state.json"
    target.write_text("precious")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, "half")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


class _Err(Exception):
    def __init__(self, source: str, field: str, reason: str) -> None:
        super().__init__(f"{source}|{field}|{reason}")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda d: d / "missing.yaml", "no such file"),
        (lambda d: d, "is a directory, not a thing file"),
        (lambda d: (d / "bad.yaml", (d / "bad.yaml").write_bytes(b"\xff\xfe"))[0],
         "not UTF-8 text"),
    ],
)
def test_read_text_file_turns_each_failure_into_the_callers_error(tmp_path, make, reason):
    from escaramuza.rules.core.files import read_text_file

    path = make(tmp_path)
    with pytest.raises(_Err) as info:
        read_text_file(path, _Err, "a thing file")
    assert str(info.value) == f"{path}||{reason}"


def test_read_text_file_reads_utf8(tmp_path):
    from escaramuza.rules.core.files import read_text_file

    (tmp_path / "s.yaml").write_text("pv: 5 ✓", encoding="utf-8")
    assert read_text_file(tmp_path / "s.yaml", _Err, "a scenario file") == "pv: 5 ✓"
