"""What an error becomes: its HTTP status code and headers, and the message the page's red
box shows."""

from __future__ import annotations

from escaramuza.rules.core.errors import EscaramuzaError, ScenarioError, UnknownNameError
from escaramuza.rules.core.i18n import ngettext
from escaramuza.state_file.errors import StateFileError
from escaramuza.web.errors import RateLimitError, WebError


def status_of(exc: EscaramuzaError) -> int:
    if isinstance(exc, WebError):
        return exc.status
    if isinstance(exc, UnknownNameError):
        return 404
    return 400


def headers_of(exc: EscaramuzaError) -> dict[str, str]:
    """The answer's headers for an error: ``Retry-After`` when the client may retry later."""
    if isinstance(exc, RateLimitError):
        return {"Retry-After": str(exc.retry_after)}
    return {}


#: Problems of one uploaded file the page lists in its red box (the rest are counted).
MAX_PAGE_PROBLEMS = 12


def page_error(exc: EscaramuzaError) -> str:
    """An error as the page's red box and the API's ``detail`` show it: an uploaded
    scenario or state file with several problems lists them one per line. The command
    line's one-line message points to ``escaramuza validate FILE`` for the rest, and the
    file a page or API user uploaded is not on any disk to run it on."""
    if not isinstance(exc, ScenarioError | StateFileError) or len(exc.problems) < 2:
        return str(exc)
    problems = exc.problems
    lines = [
        ngettext("{file}: {n} problem", "{file}: {n} problems", len(problems)).format(
            file=exc.source, n=len(problems)
        )
    ]
    for p in problems[:MAX_PAGE_PROBLEMS]:
        lines.append(f"  {p.field}: {p.reason}" if p.field else f"  {p.reason}")
    if len(problems) > MAX_PAGE_PROBLEMS:
        rest = len(problems) - MAX_PAGE_PROBLEMS
        lines.append(ngettext("  … and {n} more", "  … and {n} more", rest).format(n=rest))
    return "\n".join(lines)
