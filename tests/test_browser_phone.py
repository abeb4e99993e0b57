"""The pages at a table, in a real browser (Debian's chromium, Playwright) at a phone's 390x844
and a laptop's 1366x768: the live headline, the layout at 390 px, operator-only controls as a
spectator sees them, house rules as switches, joining by QR code, sound and vibration, the
screen kept awake, and Undo."""
from __future__ import annotations

import json
import urllib.request

import pytest
from helpers_qr import read_png
from test_browser_web import CHROMIUM, TOKEN, api, browser, server, signed_in  # noqa: F401 (fixtures)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not __import__("os").path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent"),
]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}
SIZES = pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])


def page_at(browser, base: str, path: str, size: dict, operator: bool = True):
    """A page of the served app at `size`, signed in as Ann the operator unless a spectator."""
    ctx = browser.new_context(viewport=size)
    ctx.set_default_timeout(10_000)
    page = ctx.new_page()
    page.goto(f"{base}/auth?token={TOKEN}&name=Ann&next={path}" if operator else base + path)
    return page


def state(base: str) -> dict:
    return json.loads(urllib.request.urlopen(base + "/live/state.json", timeout=10).read())


def until(page, js: str, arg=None, timeout: float = 10.0) -> None:
    """Wait until `js` (an expression, or a function of `arg`) is true in the page: the
    pages' CSP forbids the string evaluation Playwright's wait_for_function uses."""
    import time
    end = time.time() + timeout
    while not page.evaluate(js, arg):
        assert time.time() < end, f"still false after {timeout} s: {js}"
        page.wait_for_timeout(50)


def box(page, selector: str) -> dict:
    b = page.locator(selector).bounding_box()
    assert b is not None, f"{selector} is not shown"
    return b


@SIZES
def test_the_live_headline_says_whose_turn_and_the_next_play_then_the_last_event(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    page = page_at(browser, base, "/live/", size, operator=False)
    turn = state(base)["table"]["turn"]
    expect(page.locator("#turn")).to_have_text(f"▶ {turn} to play")
    expect(page.locator("#next")).to_have_text("next: 5 or higher")
    expect(page.locator("#last")).to_have_text("#2 Ann played 5♥")
    # the headline is the first thing on the page, all of it in the first screen
    head = box(page, "#headline")
    assert head["y"] < 140 and head["y"] + head["height"] < size["height"] / 2, head
    assert box(page, "#headline")["y"] < box(page, "#banner")["y"]

    # an illegal play: the last event in one line; the rule's words a tap away
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["4S"]})
    expect(page.locator("#last")).to_have_text("#3 Bob played 4♠: ILLEGAL")
    assert box(page, "#last")["height"] < 2 * 17 * 1.05, "the last event takes more than one line"
    quote = page.locator("#banner details.rule .quote")
    expect(quote).to_be_hidden()
    page.locator("#banner details.rule summary").click()
    expect(quote).to_be_visible()
    expect(quote).to_contain_text("Le joueur suivant doit poser")

    # a pick-up, a burn, an Ace and the game's end each become the last event
    api(base, "/manual/api/events", {"type": "picked_up", "player": "Bob"})
    expect(page.locator("#last")).to_have_text("#4 Bob picked up the pot")
    expect(page.locator("#next")).to_have_text("next: anything")
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["10C"]})
    expect(page.locator("#last")).to_have_text("#5 Cy burned the pot with 10♣")
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["AS"]})
    expect(page.locator("#last")).to_contain_text("played A♠: who gets the pot?")
    # nobody named the Ace's target: the game goes on under the likeliest (issue 53), whose turn it is
    assumed = state(base)["table"]["turn"]
    assert assumed, "the turn is never unknown"
    expect(page.locator("#turn")).to_have_text(f"▶ {assumed} to play")
    for p in ("Ann", "Bob"):
        seq = api(base, "/manual/api/events", {"type": "player_out", "player": p})["event"]["seq"]
        api(base, "/rulings/api/corrections", {"type": "confirm", "event": seq})
    expect(page.locator("#turn")).to_have_text("Game 1 is over")
    expect(page.locator("#last")).to_contain_text("Game over: MASTA Ann, VICE-MASTA Bob")
    expect(page.locator("#next")).to_be_hidden()
    page.context.close()


def test_at_390_px_every_tab_is_on_screen_and_a_thumbs_height(server, browser):
    base = server.url
    page = page_at(browser, base, "/live/", PHONE, operator=False)
    for path in ("/live/", "/rulings/", "/manual/", "/evening/", "/setup/", "/export/"):
        page.goto(base + path)
        links = page.locator("header nav a")
        assert links.count() == 6
        for i in range(6):
            b = links.nth(i).bounding_box()
            assert b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"], (path, i, b)
            assert b["height"] >= 44, (path, i, b)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    page.context.close()


def _finished_games(base: str) -> None:
    api(base, "/setup/api/game", {"players": ["Annabelle", "Bob", "Cyrano", "Dee"], "dealer": "Dee"})
    for _ in range(2):
        seqs = [api(base, "/manual/api/events", {"type": "player_out", "player": p})["event"]["seq"]
                for p in ("Bob", "Annabelle", "Cyrano")]
        for s in seqs:
            api(base, "/rulings/api/corrections", {"type": "confirm", "event": s})
        api(base, "/setup/api/game", {"players": ["Annabelle", "Bob", "Cyrano", "Dee"], "dealer": "Dee"})


@SIZES
def test_standings_fit_or_say_they_scroll_the_chart_is_legible_and_export_fits(server, browser, size):
    base = server.url
    _finished_games(base)
    page = page_at(browser, base, "/evening/", size, operator=False)
    page.locator("#standings tbody tr").first.wait_for()
    scroll = page.locator("#standings .scroll")
    fits = page.evaluate("(el) => el.scrollWidth <= el.clientWidth", scroll.element_handle())
    if not fits:  # then it scrolls, and says so
        assert "more" in scroll.get_attribute("class")
        assert page.locator("#standings .scroll-cue").is_visible()
        scroll.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
        until(page, "!document.querySelector('#standings .scroll').classList.contains('more')")
    else:
        assert not page.locator("#standings .scroll-cue").is_visible()
    heights = page.evaluate("[...document.querySelectorAll('#chart svg text')].map((t) => t.getBoundingClientRect().height)")
    assert heights and min(heights) >= 11, heights
    page.goto(base + "/export/")
    cells = page.evaluate("""[...document.querySelectorAll('table.export td')].map((td) => {
        const r = td.getBoundingClientRect(); return [r.left, r.right, td.scrollWidth <= td.clientWidth + 1]; })""")
    panel = box(page, "section.panel")
    for left, right, whole in cells:
        assert left >= panel["x"] and right <= panel["x"] + panel["width"] and whole, (cells, panel)
    assert page.locator("table.export a", has_text="standings.csv").first.is_visible()
    page.context.close()


@SIZES
def test_a_spectator_sees_operator_controls_disabled_with_a_plain_reason(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    page = page_at(browser, base, "/setup/", size, operator=False)
    start = page.get_by_role("button", name="Start the game")
    expect(start).to_be_disabled()
    reason = page.locator("#game-form .op-reason")
    expect(reason).to_be_visible()
    expect(reason).to_contain_text("Only the operator starts a game")
    for name in ("Save preset", "Use this camera", "Start a new evening"):
        expect(page.get_by_role("button", name=name)).to_be_disabled()
    assert "X-Masta-Token" not in page.content()
    page.goto(base + "/manual/")
    expect(page.get_by_role("button", name="Pot cleared")).to_be_disabled()
    expect(page.locator('.pick[data-card="6H"]')).to_be_disabled()
    expect(page.locator(".op-reason")).to_contain_text("Only the operator enters plays")
    assert "X-Masta-Token" not in page.content()
    # sent anyway (a page left open since before the operator signed out): refused in words
    page.evaluate("masta.post('/manual/api/events', {type: 'pot_cleared'})")
    expect(page.locator("#toast")).to_contain_text("needs the operator's token: open the link printed")
    expect(page.locator("#toast")).not_to_contain_text("X-Masta-Token")
    page.goto(base + "/teach/")
    expect(page.get_by_role("button", name="Start")).to_be_disabled()
    expect(page.locator(".op-reason")).to_contain_text("Only the operator teaches the deck")
    page.context.close()
    op = page_at(browser, base, "/setup/", size)
    expect(op.get_by_role("button", name="Start the game")).to_be_enabled()
    expect(op.locator(".op-reason")).to_have_count(0)
    op.context.close()


@SIZES
def test_house_rules_are_switched_and_saved_as_a_preset(server, browser, size):
    from playwright.sync_api import expect

    from referee.rules import load_preset

    base = server.url
    page = page_at(browser, base, "/setup/", size)
    page.locator("details.table-rules > summary").click()
    pickup = page.locator("#sw-voluntary_pickup")
    expect(pickup).not_to_be_checked()  # as fr says
    expect(page.locator('[data-key="table.voluntary_pickup"]')).to_contain_text("pick up the pot instead")
    pickup.check()
    page.locator('details[data-rank="7"] > summary').click()
    expect(page.locator("#sw-7-lower")).to_have_value("or_equal")
    page.locator("#sw-7-lower").select_option("strict")
    page.locator("#house-name").fill("our-house")
    page.locator("#house-name").dispatch_event("change")
    page.locator("details.toml > summary").click()
    toml = page.locator("#house-toml").input_value()
    assert 'extends = "fr"' in toml and "voluntary_pickup = true" in toml and "[ranks.7]" in toml, toml
    assert 'lower = "strict"' in toml and "exchange" not in toml, toml  # only what changed
    page.get_by_role("button", name="Save preset").click()
    page.wait_for_load_state()
    saved = server.app.config["MASTA"].presets_dir / "our-house.toml"
    for _ in range(50):
        if saved.exists():
            break
        page.wait_for_timeout(100)
    preset = load_preset(str(saved))
    fr = load_preset("fr")
    assert preset.table.voluntary_pickup and not fr.table.voluntary_pickup
    assert preset.rule("7").lower == "strict" and preset.rule("7").cite == fr.rule("7").cite
    assert preset.rule("10") == fr.rule("10") and preset.table.turbo_ranks == fr.table.turbo_ranks
    page.context.close()


def _qr(page, selector: str, tries: int = 20) -> str:
    """The link a QR code on the page says, read from a screenshot of it as a phone's camera
    would; read again until it decodes (a screenshot taken while the page still lays out
    decodes to nothing)."""
    page.locator(selector).wait_for(state="visible")
    text = ""
    for _ in range(tries):
        text = read_png(page.locator(selector).screenshot())
        if text:
            break
        page.wait_for_timeout(250)
    return text


@SIZES
def test_phones_join_by_qr_code_and_only_the_operator_sees_the_operators(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    watcher = page_at(browser, base, "/setup/", size, operator=False)
    assert _qr(watcher, "#qr-watch svg") == base + "/"
    expect(watcher.locator("#qr-operator")).to_have_count(0)
    assert TOKEN not in watcher.content()
    watcher.context.close()

    op = page_at(browser, base, "/setup/", size)
    link = _qr(op, "#qr-operator svg")
    assert link == f"{base}/auth?token={TOKEN}"
    op.context.close()
    other = browser.new_context(viewport=size)  # another phone scans it: signed in
    phone = other.new_page()
    phone.goto(link)
    expect(phone.locator(".who")).to_contain_text("operator")
    other.close()


@SIZES
def test_illegal_plays_burns_and_titles_sound_and_vibrate_on_phones_that_opt_in(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    quiet = page_at(browser, base, "/live/", size, operator=False)  # never opted in
    page = page_at(browser, base, "/live/", size, operator=False)
    expect(page.locator("#conn")).to_have_class("conn up")
    expect(quiet.locator("#conn")).to_have_class("conn up")
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["4S"]})  # illegal, not opted in yet
    expect(page.locator("#last")).to_contain_text("ILLEGAL")
    assert page.evaluate("masta.alerts.length") == 0
    sound = page.locator("#sound")
    expect(sound).to_have_attribute("aria-pressed", "false")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")

    def heard(kind: str, n: int) -> dict:
        until(page, f"masta.alerts.length >= {n}")
        a = page.evaluate(f"masta.alerts[{n - 1}]")
        assert a["kind"] == kind and a["sounded"] and a["audio"] == "running", a
        assert a["vibrated"] in (True, False)
        return a

    api(base, "/manual/api/events", {"type": "picked_up", "player": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["7D"]})  # legal: nothing heard
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["9C"]})  # on a 7: illegal
    heard("illegal", 1)
    api(base, "/manual/api/events", {"type": "picked_up", "player": state(base)["table"]["turn"] or "Ann"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["10C"]})
    heard("burn", 2)
    for p in ("Ann", "Bob"):
        seq = api(base, "/manual/api/events", {"type": "player_out", "player": p})["event"]["seq"]
        api(base, "/rulings/api/corrections", {"type": "confirm", "event": seq})
    heard("title", 3)
    assert page.evaluate("masta.alerts.length") == 3  # the legal plays, pick-ups and confirms are silent
    assert quiet.evaluate("masta.alerts.length") == 0
    # the choice is this phone's, kept: reopened, it still sounds
    page.reload()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")
    page.context.close()
    quiet.context.close()


@SIZES
def test_the_live_page_keeps_the_screen_awake_during_a_game(server, browser, size):
    base = server.url
    page = page_at(browser, base, "/live/", size, operator=False)
    until(page, "document.body.dataset.wake === 'released'")  # no game yet
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    until(page, "document.body.dataset.wake === 'held'")
    # the browser lets the lock go when the page is hidden: it is asked for again on return
    for hidden, want in ((True, "released"), (False, "held")):
        page.evaluate("""(hidden) => {
            Object.defineProperty(document, 'visibilityState', {value: hidden ? 'hidden' : 'visible', configurable: true});
            document.dispatchEvent(new Event('visibilitychange')); }""", hidden)
        until(page, f"document.body.dataset.wake === '{want}'")
    seq = api(base, "/manual/api/events", {"type": "player_out", "player": "Ann"})["event"]["seq"]
    api(base, "/rulings/api/corrections", {"type": "confirm", "event": seq})
    until(page, "document.body.dataset.wake === 'released'")  # the game is over
    page.context.close()


@SIZES
def test_each_operator_action_offers_undo_which_voids_it(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    page = page_at(browser, base, "/manual/", size)
    page.locator('.pick[data-card="6H"]').click()
    page.locator("#by").select_option("Ann")
    page.locator("#play").click()
    toast = page.locator("#toast")
    expect(toast).to_contain_text("#2 cards played 6H recorded")
    # one tap recorded the play and who played it: one Undo takes back both
    until(page, "JSON.parse(sessionStorage.getItem('masta.undo')).seqs.length === 2")
    toast.get_by_role("button", name="Undo").click()
    expect(toast).to_contain_text("voided")
    log = server.app.extensions["masta.table"].log
    until(page, "document.querySelectorAll('#pot .card').length === 0")
    assert [(e["type"], e.get("event")) for e in log[3:]] == [("void", 3), ("void", 2)]
    assert state(base)["table"]["pot"] == []
    # the undo is an action too: undone, the play is back
    toast.get_by_role("button", name="Undo").click()
    for _ in range(50):
        if len(log) == 7:
            break
        page.wait_for_timeout(100)
    assert [(e["type"], e.get("event")) for e in log[5:]] == [("void", 5), ("void", 4)]
    assert state(base)["table"]["pot"] == ["6H"]

    # a correction on the rulings page, then the page changes: the Undo is still offered there
    page.goto(base + "/rulings/")
    page.locator("#g-note").fill("a sleeve hid the card")
    page.locator("#g-note-btn").click()
    expect(page.locator("#toast")).to_contain_text("#8 note recorded")
    page.goto(base + "/live/")
    page.locator("#toast").get_by_role("button", name="Undo").click()
    for _ in range(50):
        if len(log) == 9:
            break
        page.wait_for_timeout(100)
    assert (log[-1]["type"], log[-1]["event"]) == ("void", 8)
    # after a few seconds the offer goes
    page.wait_for_timeout(8500)
    expect(page.locator("#toast")).to_be_hidden()
    page.context.close()
