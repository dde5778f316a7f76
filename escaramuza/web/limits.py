"""The web page's limits: sizes, session counts, search and playtest bounds and caps.

Every search and playtest from the page has a wall-clock cap (:data:`SUGGEST_CAP_MS`,
:data:`PLAYTEST_CAP_S`), every upload a size, and the server a number of sessions; why
each value is what it is: docs/decisions/0005-web-sessions-and-caps.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from escaramuza.agents.heuristic import TEMPERAMENTS
from escaramuza.rules.core.i18n import _f
from escaramuza.state_file import MAX_STATE_BYTES
from escaramuza.web.errors import WebError

#: Largest upload (scenario YAML or state file) accepted: shipped scenarios are ~5 kB
#: and state files ~20 kB, so 256 KB is generous and still cheap to parse.
MAX_UPLOAD_BYTES = 256 * 1024
#: Largest state file upload: the one the page saves for an uploaded scenario carries its
#: YAML (at most MAX_UPLOAD_BYTES, at most twice as long JSON-escaped) beside the battle,
#: so the page takes back any state file the terminal does (MAX_STATE_BYTES).
MAX_STATE_UPLOAD_BYTES = MAX_STATE_BYTES
#: Sessions kept at once (memory stays bounded). Past this, a new session takes the
#: place of another by :class:`SessionStore`'s rule, or is refused with a 503.
MAX_SESSIONS = 32
#: An invested session (a battle in play, :data:`INVEST_CHANGES`) its owner used within
#: this many seconds is never dropped to make room for another client's new one. An
#: hour covers a pause at the table.
KEEP_IDLE_S = 3600.0
#: Changes of the battle (an applied action, an undo, an edit) after which a session
#: counts as *invested*: a GM playing, not a visitor who opened the page or a script
#: that asked for a session and looked at it once. A loaded state file (a battle the
#: GM brought back) invests a session at once.
INVEST_CHANGES = 3
#: New sessions one client may start per :data:`CLIENT_WINDOW_S`: a quarter of the
#: table per hour, so within the time an invested session is protected one client can
#: claim at most a quarter of the slots, and cannot churn the table to push other
#: visitors' new sessions out. A client is its address (an IPv6 address by its /64
#: network, which one machine usually holds whole).
CLIENT_SESSIONS = MAX_SESSIONS // 4
CLIENT_WINDOW_S = KEEP_IDLE_S
#: Requests that may wait for one session's lock while another of its requests holds it
#: (a search, the autopilot): a double click, or a reload during a search. Each waits in
#: one of the server's worker threads (40, shared by every client), so one client sending
#: a hundred searches to its session at once would otherwise hold them all for minutes.
SESSION_WAITING = 2
#: Seconds a client has to send one request, headers and body (escaramuza.web.connection):
#: a scenario upload at its largest (about 272 KB) arrives within it over a link of
#: 10 KB/s, a state file at its largest (1 MiB) over one of 35 KB/s.
REQUEST_READ_S = 30.0
#: Clients whose recent new sessions are remembered at once (memory stays bounded).
MAX_TRACKED_CLIENTS = 4096
#: Default search time of the page's Suggest button: an answer in about a second,
#: including the exact odds and drawing the page.
WEB_BUDGET_MS = 600.0
#: How long the page's search may go on while the best is too close to call: the
#: answer stays within about two seconds; the page says so beside the budget.
WEB_MAX_MS = 2000.0
#: Bounds of a suggestion request (milliseconds or rollouts), so one request cannot
#: hold a worker thread for minutes.
MIN_BUDGET_MS = 50.0
MAX_BUDGET_MS = 5000.0
MAX_ITERATIONS = 2000
#: Wall-clock cap of one search, whatever its budget: a time budget and its maximum are
#: at most this, and an iteration budget (otherwise unbounded in time: 2000 rollouts of
#: a large uploaded scenario on the reference engine take minutes) stops here, saying
#: so. The kernel's one-time compile (the first search of a ruleset in the server
#: process) happens before the search's clock starts.
SUGGEST_CAP_MS = MAX_BUDGET_MS
#: Battles one playtest may ask for, and playtests running at once on the server.
MAX_PLAYTEST_BATTLES = 5000
MAX_RUNNING_PLAYTESTS = 2
#: Wall-clock cap of one playtest from the page, in seconds: past it the playtest stops
#: between two chunks of battles and reports the battles it played, saying so.
PLAYTEST_CAP_S = 120.0
#: A playtest's chunks start at one battle and double while a chunk takes less than
#: this, up to :data:`MAX_CHUNK_BATTLES`: the cap and Cancel are checked that often
#: (or after every battle, when one battle takes longer).
PLAYTEST_CHUNK_S = 0.25
MAX_CHUNK_BATTLES = 64
#: Agents a playtest from the page may use: the scripted ones. ``mcts`` would run for
#: hours at these counts and ``policy:PATH`` names a server file.
PLAYTEST_AGENTS: tuple[str, ...] = (
    "heuristic",
    "random",
    *(f"heuristic:{t}" for t in TEMPERAMENTS if t != "random"),
)
#: GM-session commands the page's edit box accepts: edits of the table state and the
#: initiative. ``save``/``load`` take server paths and ``roll manual`` reads a terminal.
EDIT_COMMANDS = ("set", "status", "move", "cond", "initiative")
#: Options of a scenario that name a file; an uploaded scenario may not use them.
PATH_OPTIONS = ("tables",)


def check_agent(agent: str, offered: Sequence[str]) -> None:
    """Refuse an agent the page does not offer (a ``policy:PATH`` would name a file)."""
    if agent not in offered:
        raise WebError(
            _f(
                "unknown agent {agent} (the page offers: {agents})",
                repr(agent),
                ", ".join(offered),
            )
        )


def check_search(budget_ms: float | None, iterations: int | None) -> None:
    """Refuse a search budget out of the page's bounds: 1–:data:`MAX_ITERATIONS` rollouts,
    or :data:`MIN_BUDGET_MS`–:data:`MAX_BUDGET_MS` ms (NaN fails too) without them."""
    if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
        raise WebError(
            _f("iterations must be 1–{most}, not {iterations}", MAX_ITERATIONS, iterations)
        )
    # Written so that NaN (the page's form accepts "nan") fails too.
    if (
        iterations is None
        and budget_ms is not None
        and not (MIN_BUDGET_MS <= budget_ms <= MAX_BUDGET_MS)
    ):
        raise WebError(
            _f(
                "budget_ms must be {least:g}–{most:g}, not {budget_ms:g}",
                MIN_BUDGET_MS,
                MAX_BUDGET_MS,
                budget_ms,
            )
        )
