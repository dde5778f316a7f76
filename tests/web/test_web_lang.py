"""The web page in English or Spanish: the selector, its cookie, the
labels, and a battle narrated in the chosen language."""

from __future__ import annotations

from escaramuza.web.middleware import LANG_COOKIE
from tests.web.web_helpers import client, finished_playtest

EMBOSCADA = "destiny_dice/emboscada"


def test_the_page_is_english_by_default_and_offers_both_languages() -> None:
    r = client().get("/")
    assert '<html lang="en">' in r.text
    assert '<option value="en" selected>English</option>' in r.text
    assert '<option value="es">Español</option>' in r.text
    assert ">Start</button>" in r.text and "Empezar" not in r.text


def test_the_selector_sets_a_cookie_and_the_page_and_battle_follow_it() -> None:
    c = client()
    c.get("/")
    r = c.post("/ui/lang", data={"lang": "es"}, follow_redirects=False)
    assert r.status_code == 303 and r.cookies.get(LANG_COOKIE) == "es"
    page = c.get("/").text
    assert '<html lang="es">' in page and '<option value="es" selected>Español</option>' in page
    assert ">Empezar</button>" in page and ">Start</button>" not in page
    html = c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "1"}).text
    assert "Asalto 1 — decide:" in html
    assert "Ilse tira iniciativa, Mente d10: " in html and "Turno de Ilse (asalto 1)." in html
    assert ">combatiente</th>" in html and ">combatant</th>" not in html
    # Back to English: labels at once; the battle's earlier lines keep their language.
    c.post("/ui/lang", data={"lang": "en"})
    html = c.get("/").text
    assert "Round 1 — deciding:" in html and ">combatant</th>" in html


def test_an_unknown_language_is_refused() -> None:
    c = client()
    r = c.post("/ui/lang", data={"lang": "fr"})
    assert r.status_code == 400
    assert "lang: &#39;fr&#39; is not a language escaramuza speaks (en or es)" in r.text
    assert LANG_COOKIE not in r.cookies


def test_the_api_answers_in_the_language_asked_for() -> None:
    c = client()
    sid = c.post("/api/session").json()["session"]
    headers = {"X-Escaramuza-Session": sid}
    r = c.post("/api/battle?lang=es", json={"scenario": EMBOSCADA, "seed": 1}, headers=headers)
    assert r.status_code in (200, 201), r.text
    assert any("tira iniciativa" in line for line in r.json()["log"])


def test_suggestions_made_in_one_language_are_not_drawn_on_a_page_in_the_other() -> None:
    c = client()
    c.get("/")
    c.post("/ui/new", data={"scenario": EMBOSCADA, "seed": "1"})
    html = c.post("/ui/suggest", data={"budget_ms": "100", "max_ms": "100"}).text
    assert 'id="suggestions"' in html
    # In Spanish, a table of English actions and reasons under a Spanish verdict line
    # would be half of each: the page draws none until Suggest is pressed again.
    c.post("/ui/lang", data={"lang": "es"})
    assert 'id="suggestions"' not in c.get("/").text
    html = c.post("/ui/suggest", data={"budget_ms": "100", "max_ms": "100"}).text
    table = html.split('id="suggestions"')[1].split("</table>")[0]
    assert "victoria" in table and " attacks " not in table and "points" not in table
    c.post("/ui/lang", data={"lang": "en"})
    assert 'id="suggestions"' not in c.get("/").text


def test_a_playtest_started_from_the_spanish_page_reports_in_spanish() -> None:
    # The playtest runs in a thread of its own, which the request's language does not
    # reach by itself: its report is worded in the language of the page that started it.
    c = client()
    c.get("/")
    c.post("/ui/lang", data={"lang": "es"})
    c.post("/ui/new", data={"scenario": "destiny_dice/brann-vs-saqueador", "seed": "1"})
    c.post("/ui/playtest", data={"n": "6", "seed": "1"})
    job = finished_playtest(c)
    assert job["status"] == "done", job
    assert "ganan los héroes" in job["text"] and "heroes win" not in job["text"]
    assert "batallas por escenario" in job["text"]
