"""What a newcomer hit on the pages, in a real browser (Debian's chromium driven by Playwright)
on the served app, on a phone (390x844) and a laptop (1366x768): the count-mismatch question's
Confirm, the zone editor with the players' sides saved, an earlier game's checks, the banner's
last event and the camera's dot, an illegal play marked, the corrected cards and an Ace's
target set afterwards in "Correct #N"."""
from __future__ import annotations

import pytest

from test_browser_web import CHROMIUM, TOKEN, api, browser, rulings_data, server  # noqa: F401 (fixtures)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not __import__("os").path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent"),
]

PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 768}
SIZES = pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])


def opened(browser, base: str, path: str, size: dict, operator: bool = True):
    """A page of the served app at `path`, in a window of `size`, as Ann the operator (or a
    spectator); every script error it raises is kept in `page.errors`."""
    page = browser.new_page(viewport=size)
    page.set_default_timeout(10_000)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if operator:
        page.goto(f"{base}/auth?token={TOKEN}&name=Ann&next={path}")
    else:
        page.goto(base + path, wait_until="domcontentloaded")  # a camera's picture never ends loading
    return page


@SIZES
def test_confirm_answers_a_plays_count_mismatch(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    api(base, "/manual/api/events", {"type": "counts", "player": "Ann", "hand": 1})
    seq = api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H", "5S"]})["event"]["seq"]
    page = opened(browser, base, "/live/", size)
    box = page.locator('#prompts .prompt-box[data-prompt="desync"]')
    expect(box).to_contain_text(f"confirm event {seq}")
    page.get_by_role("button", name=f"Confirm #{seq}").click()
    expect(box).to_have_count(0)
    expect(page.locator("#toast.bad")).to_have_count(0)  # not refused
    assert [r["event"]["type"] for r in rulings_data(base)["entries"]][0] == "confirm"
    assert page.errors == []
    page.close()


@SIZES
def test_the_zone_editor_works_with_the_players_sides_saved(server, browser, size):
    from playwright.sync_api import expect

    import cv2
    import numpy as np

    base, app = server.url, server.app
    ok, jpeg = cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))
    app.extensions["masta.frames"].publish(jpeg.tobytes())  # a camera frame to draw on
    api(base, "/setup/api/game", {"players": ["Ann", 'Bo"b', "Cy"], "dealer": "Cy"})
    api(base, "/setup/api/seat-zones", {"seats": {"Ann": [0, 0.7, 0.5, 1], 'Bo"b': [0.5, 0.7, 1, 1]}})
    page = opened(browser, base, "/setup/", size)
    save = page.locator("#zone-save")
    expect(save).to_be_enabled()  # the snapshot loaded and the saved sides parsed
    canvas = page.locator("#zone")
    canvas.scroll_into_view_if_needed()
    b = canvas.bounding_box()
    page.mouse.move(b["x"] + b["width"] * 0.3, b["y"] + b["height"] * 0.3)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] * 0.7, b["y"] + b["height"] * 0.6, steps=4)
    page.mouse.up()
    save.click()
    expect(page.locator("#toast")).to_contain_text("Pot zone saved")
    store = app.extensions["masta.store"]
    zone = store.get_setting("pot_zone")
    assert zone and abs(zone[0] - 0.3) < 0.05 and abs(zone[3] - 0.6) < 0.05
    page.locator("#seats-clear").click()
    expect(page.locator("#seats-clear")).to_be_hidden()
    assert store.get_setting("seat_zones") == {}
    assert page.errors == []
    page.close()


def test_an_earlier_games_check_offers_no_taps_and_says_why(server, browser):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    unsure = api(base, "/manual/api/events", {"type": "cards_played", "cards": ["9C"], "conf": [0.6], "meta": {
        "low_conf": True, "reads": [{"9C": 0.6, "9S": 0.35}]}})["event"]["seq"]
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Ann"})
    for size in (PHONE, LAPTOP):
        page = opened(browser, base, "/rulings/", size)
        page.locator(".earlier .show-earlier").click()
        check = page.locator(f"#e{unsure} .doubt")
        expect(check).to_contain_text("earlier game's event")
        expect(check.locator("button")).to_have_count(0)
        expect(check.locator('[data-alt="9C or 9S"]')).to_be_visible()  # what it may be: still said
        page.locator(f"#e{unsure} details.editor > summary").click()
        expect(page.locator(f"#e{unsure} details.editor")).not_to_contain_text("Void")
        assert page.errors == []
        page.close()


@SIZES
def test_the_banner_says_the_last_thing_that_happened_and_the_dot_the_camera(server, browser, size):
    from playwright.sync_api import expect

    from helpers_video import SeesNothing, plain_video
    from web.camera import attach_camera

    base, app = server.url, server.app
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    page = opened(browser, base, "/live/", size, operator=False)
    banner = page.locator("#banner")
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["7H"]})
    expect(banner).to_contain_text("7♥")
    api(base, "/manual/api/events", {"type": "pot_cleared"})  # Bob picks up
    expect(banner.locator(".verdict")).to_have_text("Pick-up")
    expect(banner).to_contain_text("next: any")
    expect(banner).not_to_contain_text("<= 7")
    # an illegal play: crossed out on the pot, and the banner says what happens next
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["KH"]})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["4S"]})
    expect(banner).to_contain_text("Ann takes back 4S and picks up the pot")
    expect(page.locator("#pot .card.illegal")).to_have_text("4♠")
    for p in ("Ann", "Bob"):
        seq = api(base, "/manual/api/events", {"type": "player_out", "player": p})["event"]["seq"]
        api(base, "/rulings/api/corrections", {"type": "confirm", "event": seq})
    expect(banner.locator(".verdict")).to_have_text("Game over")
    expect(banner.locator(".titles")).to_contain_text("MASTA Ann")
    expect(banner.locator(".titles")).to_contain_text("SHITHEAD Cy")
    # the camera: the dot is filled while it watches, hollow once it stopped, on a page open
    # the whole time and on one opened after
    conn = page.locator("#conn")
    expect(conn).to_have_attribute("data-camera", "off")
    runner = attach_camera(app, SeesNothing(), str(plain_video(server.app.config["MASTA"].data_dir / "t.avi", 45)),
                           pace=True)
    try:
        expect(conn).to_have_attribute("data-camera", "on")
        expect(conn).to_have_text("●")
        expect(conn).to_have_attribute("data-camera", "off")
        expect(conn).to_have_text("○")
        later = opened(browser, base, "/live/", size, operator=False)
        expect(later.locator("#conn")).to_have_attribute("data-camera", "off")
        expect(later.locator("#camera-status")).to_contain_text("the camera stopped")
        assert later.errors == [] and page.errors == []
        later.close()
    finally:
        runner.stop()
    page.close()


@SIZES
def test_correct_starts_from_the_corrected_cards_and_sets_an_aces_target_later(server, browser, size):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    play = api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})["event"]["seq"]
    api(base, "/rulings/api/corrections", {"type": "correct", "event": play, "cards": ["6S"]})
    ace = api(base, "/manual/api/events", {"type": "cards_played", "cards": ["AS"]})["event"]["seq"]
    api(base, "/rulings/api/corrections", {"type": "target", "event": ace, "player": "Cy"})
    api(base, "/manual/api/events", {"type": "pot_cleared"})  # Cy took it; the Ace waits no more
    page = opened(browser, base, "/rulings/", size)
    page.locator(f"#e{play} details.editor > summary").click()
    chosen = page.locator(f"#e{play} .cpick-chosen .cpick-chip")
    expect(chosen).to_have_count(1)
    expect(chosen).to_have_attribute("data-card", "6S")
    page.locator(f"#e{ace} details.editor > summary").click()
    sel = page.locator(f'#e{ace} select[aria-label="who got the pot of #{ace}"]')
    expect(sel).to_have_value("Cy")
    sel.select_option("Ann")
    page.locator(f"#e{ace} .set-target").click()
    expect(page.locator(f"#e{ace} .fixes")).to_contain_text("Ann gets the pot")
    expect(page.locator("#toast.bad")).to_have_count(0)
    entries = rulings_data(base)["entries"]
    pickups = [o for r in entries for o in r["outputs"] if o["kind"] == "pickup"]
    assert pickups and pickups[0]["player"] == "Ann"  # replayed: the pot went to Ann
    assert page.errors == []
    page.close()
