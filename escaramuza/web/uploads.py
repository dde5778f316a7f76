"""What a client sends as content: uploaded scenarios and state files, and the dice the GM
entered.

The client names only shipped scenarios or sends content (YAML, a state file), never a
server path. Uploaded YAML is parsed with the bounded safe loader (:func:`parse_yaml`: no
duplicate keys, bounded nesting) and may not point at a server file (``options.tables``).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from escaramuza.rules.core.errors import ScenarioError
from escaramuza.rules.core.files import parse_yaml
from escaramuza.rules.core.i18n import _, _f
from escaramuza.rules.core.scenario import Scenario, parse_scenario
from escaramuza.web.errors import TooLargeError, WebError
from escaramuza.web.limits import MAX_UPLOAD_BYTES, PATH_OPTIONS

_DIE = re.compile(r"^(?:d\d{1,3}=)?\d{1,3}$", re.IGNORECASE)
_MAX_DICE = 100


class Upload:
    """An uploaded scenario: its cleaned file name and YAML text (kept to save and replay)."""

    __slots__ = ("filename", "text")

    def __init__(self, filename: str, text: str) -> None:
        self.filename = filename
        self.text = text


def clean_filename(name: str | None, default: str) -> str:
    """The last part of a client's file name, printable, at most 80 characters."""
    base = re.split(r"[\\/]", name or "")[-1]
    base = re.sub(r"[^\w.\- ]", "_", base).strip(" .")
    return base[:80] or default


def attachment(name: str) -> str:
    """The Content-Disposition of a download named ``name`` (a cleaned file name, which
    may hold any letter: an upload's "Śląsk.yaml"). A header is Latin-1 bytes, so a name
    beyond ASCII goes as RFC 6266's ``filename*`` (UTF-8, percent-encoded), beside an
    ASCII ``filename`` for a client that reads only that one."""
    plain = name.encode("ascii", "replace").decode("ascii").replace("?", "_")
    if plain == name:
        return f'attachment; filename="{name}"'
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"


def read_upload(data: bytes, filename: str, most: int = MAX_UPLOAD_BYTES) -> str:
    """The upload as text: at most ``most`` bytes, UTF-8."""
    if len(data) > most:
        raise TooLargeError(
            _f(
                "{file}: the file is {n} bytes; the limit is {most} bytes",
                filename,
                len(data),
                most,
            )
        )
    if not data.strip():
        raise WebError(_f("{file}: the file is empty", filename))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise WebError(_f("{file}: not UTF-8 text", filename)) from None


def parse_upload(text: str, filename: str) -> Scenario:
    """Validate an uploaded scenario (ScenarioError names file, field and reason)."""
    # The bounded parser: a syntax error, a duplicate key, too deep a nesting
    # or an overlong integer is a ScenarioError with its line or field (a 400).
    raw = parse_yaml(text, filename, ScenarioError)
    options = raw.get("options") if isinstance(raw, dict) else None
    if isinstance(options, dict):
        # Checked before parsing: the ruleset would open the named file while loading.
        for key in PATH_OPTIONS:
            if key in options and options[key] != "default":
                raise ScenarioError(
                    filename,
                    f"options.{key}",
                    _(
                        "an uploaded scenario cannot name a file on the server; "
                        "remove it to use the default"
                    ),
                )
    return parse_scenario(raw, filename, default_name=Path(filename).stem or "upload")


def parse_dice(text: str) -> list[str] | None:
    """The dice the GM entered ("6 14 d10=4", commas allowed); None when empty."""
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    if not tokens:
        return None
    if len(tokens) > _MAX_DICE:
        raise WebError(_f("at most {n} dice at once", _MAX_DICE))
    for t in tokens:
        if not _DIE.match(t):
            raise WebError(_f("bad die {die}: write results such as 6 or d20=14", repr(t)))
    return tokens
