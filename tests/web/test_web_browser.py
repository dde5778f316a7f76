"""End to end in a real browser: Debian's chromium driven by Playwright.

The test serves the app with uvicorn on a free local port, loads a scenario, asks for a
suggestion, applies it, undoes it, and checks the page each time; it saves a screenshot
under the test's temporary directory (and, with ESCARAMUZA_SCREENSHOT=PATH, also at PATH:
that is how docs/img/web-gm.jpg is made).

It is skipped only when chromium (or Playwright) is missing and CI is not set: under CI
it fails loudly instead, since `.ci/run` installs chromium.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest

from escaramuza.agents.fast import use_kernel
from escaramuza.rules.core.files import atomic_write

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCENARIO = "destiny_dice/emboscada"
RULESET = SCENARIO.split("/")[0]
#: JPEG quality of the docs' screenshot (docs/web.md): its small text stays legible at 60,
#: at about 60 % of the PNG's bytes.
SCREENSHOT_QUALITY = 60


def _require_browser() -> None:
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"{CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    if not missing:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but the browser test cannot run: missing {', '.join(missing)}")
    pytest.skip(f"missing {', '.join(missing)}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server() -> Iterator[str]:
    _require_browser()
    import uvicorn

    from escaramuza.web.app import LOOPBACK_HOSTS, create_app

    port = _free_port()
    config = uvicorn.Config(
        create_app(trusted_hosts=LOOPBACK_HOSTS), host="127.0.0.1", port=port, log_level="warning"
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def _table(page: object) -> list[str]:
    return page.locator("#combatants tbody tr").all_inner_texts()  # type: ignore[attr-defined]


@contextmanager
def _browser_page(server: str, timeout_ms: int) -> Iterator[tuple[Any, list[str]]]:
    """A chromium page on the served app's root, and the page's script errors."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1360, "height": 1010})
            page.set_default_timeout(timeout_ms)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(server + "/")
            yield page, errors
        finally:
            browser.close()


def test_browser_suggest_apply_undo(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with _browser_page(server, 15_000) as (page, errors):
        expect(page.locator("h1")).to_contain_text("escaramuza")
        expect(page.locator("#decision")).to_have_count(0)

        # Load a scenario.
        page.select_option("#scenario-select", SCENARIO)
        page.click("#start-button")
        decision = page.locator("#decision")
        expect(decision).to_contain_text("deciding")
        expect(page.locator("svg.battlefield g.token")).to_have_count(10)
        expect(page.locator("svg.battlefield g.token.pending")).to_have_count(1)
        start_decision = decision.inner_text()
        start_table = _table(page)
        n_actions = page.locator("#action-select option").count()
        assert n_actions > 1

        # Ask for a suggestion.
        # A longer search for the README's picture (steadier numbers). Otherwise 100 ms
        # at most: fewer rollouts than the paired test needs to separate two actions,
        # so every action is too close to call and the page draws one tie group.
        # On the reference engine (the server runs in this process, so the override
        # reaches it): the compiled kernel's thousands of rollouts in 100 ms can
        # separate actions, the engine's few dozen cannot.
        shot_run = bool(os.environ.get("ESCARAMUZA_SCREENSHOT"))
        page.fill("#suggest-form input[name=budget_ms]", "2000" if shot_run else "100")
        page.fill("#suggest-form input[name=max_ms]", "4000" if shot_run else "100")
        with use_kernel(RULESET, None) if not shot_run else nullcontext():
            page.click("#suggest-button")
            rows = page.locator("#suggestions tr[data-rank]")
            expect(rows).to_have_count(n_actions)
        first = rows.first
        expect(first).to_contain_text("%")
        if not shot_run:
            group = page.locator("#suggestions tbody.tie-group")
            expect(group).to_have_count(1)
            expect(group.locator("tr.tie-note")).to_contain_text("too close to call: any of these")
            expect(group.locator("tr[data-rank]")).to_have_count(n_actions)
            expect(group.locator("tr[data-rank]").first).to_contain_text("★")
        first_text = first.locator("td").nth(1).inner_text().splitlines()[0]
        page.screenshot(path=str(tmp_path / "suggest.png"))
        shot = page.screenshot(full_page=False)
        atomic_write(tmp_path / "web-gm.png", shot)
        target = os.environ.get("ESCARAMUZA_SCREENSHOT")
        if target:
            # The docs' copy is a JPEG when its name says so: a page of text on flat
            # colours, a fraction of the PNG's bytes at this quality and still legible.
            jpeg = target.endswith((".jpg", ".jpeg"))
            kept = page.screenshot(type="jpeg", quality=SCREENSHOT_QUALITY) if jpeg else shot
            atomic_write(target, kept)

        # Apply it (the tool rolls).
        first.locator("button.apply-suggestion").click()
        last = page.locator("#last")
        # The narration names the action itself (a Destiny Dice move row adds that
        # the turn's action follows: DD-03).
        expect(last).to_contain_text("» " + first_text.split(", then ")[0].rstrip("."))
        expect(page.locator("#suggestions")).to_have_count(0)
        expect(page.locator("#undo-button")).to_be_enabled()
        assert page.locator("#log pre").inner_text().strip()
        # The log shows its newest lines, as a terminal does: scrolled to its end.
        overflow, left = page.evaluate(
            "() => { const l = document.querySelector('#log pre');"
            " return [l.scrollHeight - l.clientHeight,"
            " l.scrollHeight - l.clientHeight - l.scrollTop]; }"
        )
        assert overflow > 0 and left <= 2

        # Undo it: the page is back where it started.
        page.click("#undo-button")
        expect(last).to_contain_text("undone: apply")
        expect(decision).to_have_text(start_decision)
        assert _table(page) == start_table
        expect(page.locator("#undo-button")).to_be_disabled()
        expect(page.locator("#action-select option")).to_have_count(n_actions)

        # While a search runs every button is disabled: an Apply clicked then would
        # act on a page about to be replaced.
        page.fill("#suggest-form input[name=budget_ms]", "1500")
        page.fill("#suggest-form input[name=max_ms]", "1500")
        with use_kernel(RULESET, None):
            page.click("#suggest-button")
            expect(page.locator("#apply-button")).to_be_disabled()
            expect(page.locator("#suggest-button")).to_be_disabled()
            page.locator("#apply-button").click(force=True)  # ignored
            expect(page.locator("#suggestions tr[data-rank]")).to_have_count(n_actions)
        expect(page.locator("#apply-button")).to_be_enabled()
        expect(page.locator("#undo-button")).to_be_disabled()  # nothing was applied
        assert errors == []
        assert (tmp_path / "web-gm.png").stat().st_size > 10_000


def test_browser_autopilot_plays_the_enemies_and_stops_at_the_heroes(server: str) -> None:
    """The toggle beside Suggest: the enemies' decisions are played, each in the log with
    its reason, the page stops at the heroes' decision and says so; the toggle and the
    search budgets survive a reload; undo takes the stretch back."""
    from playwright.sync_api import expect

    with _browser_page(server, 30_000) as (page, errors):
        page.select_option("#scenario-select", SCENARIO)
        page.click("#start-button")
        decision = page.locator("#decision")
        expect(decision).to_contain_text("deciding")
        start_table = _table(page)

        # On: the heroes decide first, so the autopilot waits and says so.
        page.fill("#auto-form input[name=budget_ms]", "100")
        with use_kernel(RULESET, None):
            page.check("#auto-toggle")
            turn = page.locator("#turn")
            expect(turn).to_contain_text("the autopilot waits for the heroes")
            expect(page.locator("#auto-toggle")).to_be_checked()

            # The heroes end their turn: the enemies play until the heroes decide.
            ends = page.locator("#action-select option", has_text="ends the turn")
            page.select_option("#action-select", value=ends.get_attribute("value"))
            page.click("#apply-button")
            last = page.locator("#last")
            expect(last).to_contain_text("autopilot (mcts): ")
            expect(last).to_contain_text("Heroes' decision:")
            expect(turn).to_contain_text("Heroes' decision:")
            expect(page.locator("#log pre")).to_contain_text("autopilot (mcts): win ")

        # A reload draws the same toggle and budget from the server's session.
        page.reload()
        expect(page.locator("#auto-toggle")).to_be_checked()
        expect(page.locator("#auto-form input[name=budget_ms]")).to_have_value("100")
        expect(page.locator("#turn")).to_contain_text("Heroes' decision:")

        # Undo takes the heroes' action and the whole stretch back.
        page.click("#undo-button")
        expect(page.locator("#last")).to_contain_text("and the autopilot's")
        assert _table(page) == start_table

        # Off.
        page.uncheck("#auto-toggle")
        expect(page.locator("#auto-toggle")).not_to_be_checked()
        expect(page.locator("#turn")).to_have_count(0)
        assert errors == []
