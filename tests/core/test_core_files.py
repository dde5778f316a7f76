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
