"""``escaramuza gm`` with a full disk: it never says the battle is in a file that lacks it.

The disk is not filled: the project's file writer is replaced by one that raises
``OSError(ENOSPC)`` for the autosave file once its disk has no room left, and writes
normally otherwise (so ``save FILE`` elsewhere works, as on another disk).
"""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

import escaramuza.rules.core.files as files
from escaramuza.gm import GMSession, run_session
from escaramuza.state_file import load_state, state_to_dict

DUEL = "destiny_dice/brann-vs-saqueador"
NO_SPACE = os.strerror(errno.ENOSPC)


class Disk:
    """The autosave file's disk: ``room`` more autosaves fit on it (None: any number)."""

    def __init__(self, autosave: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.autosave = autosave
        self.room: int | None = None
        real = files.atomic_write

        def write(path: str | os.PathLike[str], data: bytes | str) -> None:
            if Path(path) == autosave and self.room is not None:
                if self.room <= 0:
                    raise OSError(errno.ENOSPC, NO_SPACE, str(path))
                self.room -= 1
            real(path, data)

        monkeypatch.setattr(files, "atomic_write", write)


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Disk:
    return Disk(tmp_path / "auto.json", monkeypatch)


def drive(lines: list[str], disk: Disk) -> tuple[GMSession, str]:
    out = io.StringIO()
    session = run_session(
        DUEL, io.StringIO("".join(f"{line}\n" for line in lines)), out, disk.autosave, seed=3
    )
    return session, out.getvalue()


def holds(path: Path, session: GMSession) -> bool:
    """Whether the state file at ``path`` holds the session's battle as it is now."""
    saved, _meta = load_state(path)
    return state_to_dict(saved)["combatants"] == state_to_dict(session.state)["combatants"]


def test_a_failed_autosave_is_never_reported_as_where_the_battle_is(disk: Disk) -> None:
    disk.room = 0
    session, out = drive(["set brann pv 5", "quit", "quit"], disk)
    assert "warning: autosave failed" in out and NO_SPACE in out
    assert "The battle is in" not in out
    assert not disk.autosave.exists()
    # The first quit stays and says how to keep the battle; the second leaves.
    assert (
        f"The battle is NOT saved: the last autosave to {disk.autosave} failed. "
        "Save it elsewhere with save FILE"
    ) in out
    assert out.rstrip().endswith(
        f"Bye. The battle was NOT saved: the last autosave to {disk.autosave} failed "
        "(that file holds an earlier state, or nothing)."
    )
    assert out.count("Bye.") == 1


def test_an_autosave_left_behind_by_a_later_failure_is_not_where_the_battle_is(
    disk: Disk,
) -> None:
    # The start's autosave fits, then the disk is full: the file holds the battle as it
    # was before the edit. The input ends without quit: the session leaves, saying so.
    disk.room = 1
    session, out = drive(["set brann pv 5"], disk)
    assert disk.autosave.exists() and not holds(disk.autosave, session)
    assert "warning: autosave failed" in out
    assert "The battle is in" not in out
    assert out.rstrip().endswith("(that file holds an earlier state, or nothing).")


def test_a_save_elsewhere_after_a_failed_autosave_is_where_the_battle_is(
    disk: Disk, tmp_path: Path
) -> None:
    other = tmp_path / "other-disk.json"
    disk.room = 0
    session, out = drive(["set brann pv 5", f"save {other}", "quit"], disk)
    assert f"saved to {other}." in out
    assert out.rstrip().endswith(f"Bye. The battle is in {other}.")
    assert holds(other, session)
    assert "NOT saved" not in out


def test_an_autosave_that_works_again_says_so_and_holds_the_battle(disk: Disk) -> None:
    disk.room = 0
    out = io.StringIO()
    session = run_session(DUEL, io.StringIO(""), out, disk.autosave, seed=3)
    assert "warning: autosave failed" in out.getvalue()
    disk.room = None  # room again
    session.onecmd("set brann pv 5")
    session.onecmd("quit")
    assert f"autosave works again: the battle is in {disk.autosave}." in out.getvalue()
    assert out.getvalue().rstrip().endswith(f"Bye. The battle is in {disk.autosave}.")
    assert holds(disk.autosave, session)
