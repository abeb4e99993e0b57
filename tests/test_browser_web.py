"""A real browser (Debian's chromium, driven by Playwright) on the served app: a ruling appears
live by server-sent events, the operator corrects a misread, the standings change."""
from __future__ import annotations

import json
import os
import urllib.request

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
TOKEN = "browser-token"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium)"),
]


def api(base: str, url: str, body: dict) -> dict:
    req = urllib.request.Request(base + url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Masta-Token": TOKEN})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 201
        return json.loads(resp.read())


def rulings_data(base: str) -> dict:
    """What the served app's rulings page is drawn from (`/rulings/data.json`)."""
    return json.loads(urllib.request.urlopen(f"{base}/rulings/data.json?token={TOKEN}", timeout=10).read())


def corrected_cards(base: str) -> list[list[str]]:
    """The cards of each `correct` event the served app keeps, in order (its rulings data)."""
    return [r["event"]["cards"] for r in rulings_data(base)["entries"] if r["event"]["type"] == "correct"]


def tap_the_one(page, base: str, entry: str, button: str, label: str, really: str, cards: list[str]) -> None:
    """The check of `entry` (e.g. "#e2") shows one `button` (a class) reading `label`; a tap
    corrects the play to `cards`, shown as `really`, and the app keeps that correction alone."""
    from playwright.sync_api import expect

    fix = page.locator(f"{entry} .doubt .{button}")
    expect(fix).to_have_count(1)
    expect(fix).to_contain_text(label)
    fix.click()
    expect(page.locator(f"{entry} .fixes")).to_contain_text(really)
    assert corrected_cards(base) == [cards]


def signed_in(browser, base: str, path: str, phone: bool = False):
    """A page of the served app open at `path`, signed in as Ann the operator (10 s waits)."""
    page = browser.new_page(**({"viewport": {"width": 390, "height": 844}} if phone else {}))
    page.set_default_timeout(10_000)
    page.goto(f"{base}/auth?token={TOKEN}&name=Ann&next={path}")
    return page


@pytest.fixture
def server(tmp_path):
    from web.app import create_app
    from web.config import Config
    from web.server import BackgroundServer

    app = create_app(Config(data_dir=tmp_path, token=TOKEN))
    with BackgroundServer(app, threads=16) as srv:
        yield srv


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def test_live_ruling_correction_and_standings(server, browser):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})

    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    ctx.set_default_timeout(10_000)
    live = ctx.new_page()
    live.goto(f"{base}/auth?token={TOKEN}&name=Dee&next=/live/")
    expect(live.locator("#banner")).to_have_class("ruling legal")
    expect(live.locator("#conn")).to_have_class("conn up")  # the event stream is open

    # a play lands (posted as the camera would) and the ruling shows up without a reload
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["4S"]})
    banner = live.locator("#banner")
    expect(banner).to_have_class("ruling illegal fresh")
    expect(banner).to_contain_text("Bob")
    expect(banner).to_contain_text("Rule:")
    expect(live.locator("#pot .card")).to_have_count(2)

    evening = ctx.new_page()  # watched from another phone the whole time
    evening.goto(f"{base}/evening/")
    expect(evening.locator("#standings")).to_contain_text("No finished game yet")

    # the operator corrects the misread on the rulings page: the ruling turns legal
    rulings = live
    rulings.goto(f"{base}/rulings/")
    rulings.locator("#e3 details.editor > summary").click()
    rulings.fill('input[aria-label="real cards of #3"]', "6S")
    rulings.locator("#e3 .fix-correct").click()
    expect(rulings.locator("#e3 .fixes")).to_contain_text("Dee")
    expect(rulings.locator("#e3 .out").first).to_contain_text("legal")
    expect(rulings.locator("#banner")).to_have_class("ruling legal")

    # two players go out; the operator confirms against the counts from the page's prompts
    api(base, "/manual/api/events", {"type": "player_out", "player": "Bob"})
    api(base, "/manual/api/events", {"type": "player_out", "player": "Ann"})
    rulings.get_by_role("button", name="Confirm #5").click()
    rulings.get_by_role("button", name="Confirm #6").click()
    first = evening.locator("#standings tbody tr").first
    expect(first).to_contain_text("Bob")
    expect(evening.locator(".title.t-masta")).to_contain_text("Bob")

    # a correction: Bob was not out after all (void #5); Cy goes out instead; standings change
    rulings.on("dialog", lambda d: d.accept())
    rulings.locator("#e5 details.editor > summary").click()
    rulings.locator("#e5 button.danger").click()
    expect(evening.locator("#standings")).to_contain_text("No finished game yet")
    api(base, "/manual/api/events", {"type": "player_out", "player": "Cy"})
    rulings.get_by_role("button", name="Confirm #10").click()
    expect(first).to_contain_text("Ann")
    expect(evening.locator(".title.t-masta")).to_contain_text("Ann")
    expect(evening.locator("#chart svg polyline, #chart svg circle").first).to_be_visible()
    ctx.close()


def test_an_unsure_camera_read_asks_for_a_check_on_the_rulings_page(server, browser):
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    # as the pot watcher sends them: a play it was unsure of (flagged, with why and the other
    # likely cards), then a sure one
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["9C"], "conf": [0.62], "meta": {
        "low_conf": True, "detail": "also read, far less sure: 6C (a card under it misread?); please check",
        "reads": [{"9C": 0.62, "9S": 0.31, "8C": 0.02}]}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["10D"], "conf": [0.97]})
    page = signed_in(browser, base, "/rulings/")
    unsure = page.locator("#e2 .doubt")
    expect(unsure).to_contain_text("check")
    expect(unsure).to_contain_text("6C")
    expect(unsure.locator('[data-alt="9C or 9S"]')).to_contain_text("9♣ or 9♠ (31%)")
    expect(unsure.locator(".alt")).to_have_count(1)  # 8C: too unlikely to mention
    expect(page.locator("#e3 .head")).to_contain_text("10♦")
    expect(page.locator("#e3 .doubt")).to_have_count(0)
    # the banner every phone shows says so too, for the latest ruling only when it was unsure
    expect(page.locator("#banner")).to_contain_text("10♦")
    expect(page.locator("#banner .doubt")).to_have_count(0)
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["JH"], "conf": [0.55],
                                     "meta": {"low_conf": True}})
    expect(page.locator("#banner")).to_contain_text("J♥")
    expect(page.locator("#banner .doubt")).to_contain_text("unsure")
    # the operator's one tap on a likelier card puts it in the read's place
    page.locator('#e2 .doubt button.fix-alt[data-alt="9C or 9S"]').click()
    expect(page.locator("#e2 .fixes")).to_contain_text("really 9♠")
    page.close()


def test_a_play_read_a_card_long_is_fixed_with_one_tap(server, browser):
    """A 3S whose other corner was read as a 3H (flagged): "Not 3♥" takes the card out."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["3S", "3H"], "conf": [0.95, 0.5],
                                     "meta": {"low_conf": True}})
    page = signed_in(browser, base, "/rulings/")
    expect(page.locator("#e2 .doubt .fix-add")).to_have_count(2)  # or a card short: + 3♣, + 3♦
    expect(page.locator("#e2 .doubt .fix-add").nth(0)).to_contain_text("+ 3♣")
    drops = page.locator("#e2 .doubt .fix-drop")
    expect(drops).to_have_count(2)
    expect(drops.nth(1)).to_contain_text("Not 3♥")
    drops.nth(1).click()
    expect(page.locator("#e2 .fixes")).to_contain_text("really 3♠")
    view = rulings_data(base)
    assert view["view"]["table"]["pot"] == ["3S"]
    page.close()


def test_a_play_that_may_be_a_card_short_is_fixed_with_one_tap(server, browser):
    """The pot watcher read a fanned 7C 7S as "7C" and saw the 7S now and then (meta.maybe_more):
    the rulings page asks, and one tap corrects the play to both cards."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["7C"], "conf": [0.9], "meta": {
        "low_conf": True, "maybe_more": ["7S"],
        "detail": "7S also half seen (one card more under it?); please check"}})
    page = signed_in(browser, base, "/rulings/")
    fix = page.locator("#e2 .doubt .fix-more")
    expect(fix).to_contain_text("It was 7♣7♠")
    expect(page.locator("#e2 .doubt .fix-add")).to_have_text(["+ 7♦", "+ 7♥"])  # 7♠ is "It was"
    fix.click()
    expect(page.locator("#e2 .fixes")).to_contain_text("really 7♣7♠")
    expect(page.locator("#e2 .fixes")).to_contain_text("Ann")
    assert corrected_cards(base) == [["7C", "7S"]]
    page.close()


def test_of_several_cards_half_seen_under_a_play_each_is_offered_alone(server, browser):
    """A fanned 7C 7S 7D read "7C 7D", the 7S's index read as much 7C as 7S, and a 7H half seen
    too: "It was" adds both, and each is one tap on its own ("+ 7♠"), as is any other suit."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["7C", "7D"], "conf": [0.9, 0.8], "meta": {
        "low_conf": True, "maybe_more": ["7H", "7S"],
        "detail": "7H 7S also half seen (one card more under it?); please check"}})
    page = signed_in(browser, base, "/rulings/")
    expect(page.locator("#e2 .doubt .fix-more")).to_contain_text("It was 7♣7♦7♥7♠")
    adds = page.locator("#e2 .doubt .fix-add")
    expect(adds).to_have_text(["+ 7♥", "+ 7♠"])
    adds.nth(1).click()
    expect(page.locator("#e2 .fixes")).to_contain_text("really 7♣7♦7♠")
    assert corrected_cards(base) == [["7C", "7D", "7S"]]
    page.close()


def test_a_card_half_seen_is_offered_in_the_place_of_the_plays_least_sure_card(server, browser):
    """A 2S 2H 2C read "2H 2D 2C", the 2D read at 0.24, and "2S also half
    seen". Adding the 2S makes four; one tap puts it in the least sure card's place instead."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["2H", "2D", "2C"], "conf": [0.83, 0.24, 0.99],
        "meta": {"low_conf": True, "maybe_more": ["2S"], "reads": [{"2H": 0.83}, {"2D": 0.24, "7D": 0.03}, {"2C": 0.99}],
                 "detail": "2S also half seen (one card more under it?); please check"}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["3H", "3D"], "conf": [0.83, 0.3], "meta": {
        "low_conf": True, "maybe_more": ["3S"], "reads": [{"3H": 0.83}, {"3D": 0.3, "3S": 0.2}]}})
    page = signed_in(browser, base, "/rulings/")
    expect(page.locator("#e3 .doubt .fix-alt")).to_have_count(1)  # "3♦ or 3♠" already puts it there:
    expect(page.locator("#e3 .doubt .fix-swap")).to_have_count(0)  # no second button for it
    expect(page.locator("#e2 .doubt .fix-more")).to_contain_text("It was 2♥2♦2♣2♠")
    tap_the_one(page, base, "#e2", "fix-swap", "It was 2♥2♠2♣", "really 2♥", ["2H", "2S", "2C"])
    page.close()


def test_a_card_the_camera_added_half_hidden_is_taken_out_with_one_tap(server, browser):
    """The pot watcher read a 9H's index beside a played 9C where the detector found none and
    added it (meta.maybe_less): the rulings page asks, and one tap corrects the play to the 9C."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["9C", "9H"], "conf": [0.9, 0.45], "meta": {
        "low_conf": True, "maybe_less": ["9H"],
        "detail": "9H read half under it (a fanned card whose index the camera did not find); please check"}})
    page = signed_in(browser, base, "/rulings/")
    expect(page.locator("#e2 .doubt")).to_contain_text("9H read half under it")
    expect(page.locator("#e2 .doubt .fix-more")).to_have_count(0)
    tap_the_one(page, base, "#e2", "fix-less", "It was 9♣", "really 9♣", ["9C"])
    page.close()


def test_a_triple_read_as_one_card_with_a_second_half_seen_is_one_tap(server, browser):
    """Knoll's QC QS QH read "QS", "QC also half seen". Beside "It was
    Q♠ Q♣", one tap names the two and each other queen; not where the half-seen card is of
    another rank."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["QS"], "conf": [0.43], "meta": {
        "low_conf": True, "maybe_more": ["QC"], "reads": [{"QS": 0.43, "6S": 0.05}],
        "detail": "QC also half seen (one card more under it?); please check"}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["KS"], "conf": [0.45], "meta": {
        "low_conf": True, "maybe_more": ["AS"]}})
    page = signed_in(browser, base, "/rulings/")
    expect(page.locator("#e3 .doubt .fix-third")).to_have_count(0)
    expect(page.locator("#e2 .doubt .fix-more")).to_contain_text("It was Q♠Q♣")
    third = page.locator("#e2 .doubt .fix-third")
    expect(third).to_have_count(2)
    expect(third.nth(0)).to_contain_text("It was Q♠Q♣Q♦")
    expect(third.nth(1)).to_contain_text("It was Q♠Q♣Q♥")
    third.nth(1).click()
    expect(page.locator("#e2 .fixes")).to_contain_text("really Q♠Q♣Q♥")
    assert corrected_cards(base) == [["QS", "QC", "QH"]]
    page.close()


def test_a_half_seen_cards_other_suit_and_nothing_played_are_one_tap_each(server, browser):
    """A JC JS JD read "JC JD JH", the JH read half under the play. One
    tap puts the one suit of jacks not named in the JH's place. A 5C
    nudged and read again as a 5S play, asked about; one tap says nothing was played, and the
    referee goes on as if it never was."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["JC", "JD", "JH"], "conf": [0.43, 0.87, 0.74],
        "meta": {"low_conf": True, "maybe_less": ["JH"], "reads": [{"JC": 0.43}, {"JD": 0.87}, {"JH": 0.74}],
                 "detail": "JH read half under it (a fanned card whose index the camera did not find); please check"}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["QC", "QH"], "conf": [0.9, 0.5], "meta": {
        "low_conf": True, "maybe_less": ["QH"], "reads": [{"QC": 0.9}, {"QH": 0.5, "QS": 0.3}]}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["KS"], "conf": [0.45],
        "meta": {"low_conf": True, "reads": [{"KS": 0.45}]}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["AD", "AC"], "conf": [0.67, 0.49], "meta": {
        "low_conf": True, "maybe_less": ["AC"], "maybe_more": ["AH"], "reads": [{"AD": 0.67}, {"AC": 0.49}]}})
    page = signed_in(browser, base, "/rulings/")
    # the A♥ half seen is put in the least sure card's place already: one button for it
    expect(page.locator("#e5 .doubt .fix-swap")).to_contain_text("It was A♦A♥")
    expect(page.locator("#e5 .doubt .fix-suit")).to_have_count(1)
    expect(page.locator("#e5 .doubt .fix-suit")).to_contain_text("It was A♦A♠")
    # "Q♥ or Q♠" puts the Q♠ there already: the other suit offered is the Q♦ alone
    expect(page.locator("#e3 .doubt .fix-suit")).to_have_count(1)
    expect(page.locator("#e3 .doubt .fix-suit")).to_contain_text("It was Q♣Q♦")
    expect(page.locator("#e4 .doubt .fix-suit")).to_have_count(0)  # nothing read half hidden
    tap_the_one(page, base, "#e2", "fix-suit", "It was J♣J♦J♠", "really J♣J♦J♠", ["JC", "JD", "JS"])
    page.locator("#e4 .doubt .fix-none").click()
    expect(page.locator("#e4 .tag.void")).to_be_visible()
    expect(page.locator("#e4 .doubt")).to_have_count(0)
    view = rulings_data(base)
    assert "KS" not in view["view"]["table"]["pot"] and "QC" in view["view"]["table"]["pot"]
    page.close()


def test_a_camera_mismatch_is_named_in_place_by_one_tap(server, browser):
    """Something landed on the pot and the camera could not read it as a play (a camera `note`
    with meta.mismatch): the rulings page says to check, and one tap names the rank it half
    saw; the play is then ruled where it happened. A mismatch with nothing read takes typed
    cards; a person's note asks nothing. Of a top card gone, what covers it is offered, not it."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: 9S 10S landed",
                                     "meta": {"mismatch": True, "cards": ["9S", "10S"]}})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: something landed on the pot but no "
                                     "new card could be read", "meta": {"mismatch": True, "cards": []}})
    api(base, "/manual/api/events", {"type": "note", "text": "the light is bad tonight"})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: the top card 5H left the pot",
                                     "meta": {"mismatch": True, "cards": ["5H"], "gone": True}})
    # ... but what the camera half read where it was covered is
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: the top card JD can no longer be seen "
                                     "and the pot was not cleared: covered by a card the camera cannot read "
                                     "(perhaps JH KH) or taken back", "meta": {"mismatch": True, "cards": ["JD"],
                                                                           "gone": True, "guesses": ["JH", "KH"]}})
    page = signed_in(browser, base, "/rulings/")
    expect(page.locator("#e6 .doubt .name-seen")).to_have_count(0)  # a card that left is no play to offer
    page.locator("#e6 .doubt summary").click()  # but cards can still be named there
    expect(page.locator("#e6 .doubt .name-cards")).to_be_visible()
    expect(page.locator("#e3 .doubt")).to_contain_text("could not tell what happened")
    expect(page.locator("#e5")).to_be_visible()
    expect(page.locator("#e5 .doubt")).to_have_count(0)  # a person's note is no camera mismatch
    taps = page.locator("#e3 .doubt .name-seen")
    expect(taps).to_have_count(2)
    expect(taps.nth(0)).to_contain_text("Played here: 9♠")
    taps.nth(0).click()
    expect(page.locator("#e3 .fixes")).to_contain_text("really 9♠")
    expect(page.locator("#e3 .out .tag.legal")).to_be_visible()  # ruled in place: 9 on the 5
    expect(page.locator("#e3 .doubt")).to_have_count(0)  # named: nothing more to ask
    page.locator("#e4 .doubt summary").click()
    page.locator("#e4 .doubt .name-cards").fill("jd")
    page.locator("#e4 .doubt .name-play").click()
    expect(page.locator("#e4 .fixes")).to_contain_text("really J♦")
    covered = page.locator("#e7 .doubt .name-seen")
    expect(covered).to_have_count(2)
    expect(covered.nth(0)).to_contain_text("Played here: J♥")
    expect(covered.nth(1)).to_contain_text("Played here: K♥")
    expect(page.locator("#e7 .doubt .name-seen", has_text="J♦")).to_have_count(0)  # the covered card is no play
    covered.nth(0).click()
    expect(page.locator("#e7 .fixes")).to_contain_text("really J♥")
    view = rulings_data(base)
    assert view["view"]["table"]["pot"] == ["5H", "9S", "JD", "JH"]
    page.close()


def test_a_camera_mismatch_offers_each_card_alone_and_one_more_of_its_rank(server, browser):
    """A fanned pair half read lands as a mismatch ("7C 7S": the benchmark's Knoll jacks and
    queens, often three of a rank read as two or one). Beside "Played here: 7♣ 7♠", one tap
    names either card alone, or the two and one more of their rank (each suit not seen)."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: 7C 7S KD landed",
                                     "meta": {"mismatch": True, "cards": ["7C", "7S", "KD"]}})
    page = signed_in(browser, base, "/rulings/")
    doubt = page.locator("#e3 .doubt")
    expect(doubt.locator(".name-seen")).to_have_count(2)  # the sevens; the king
    expect(doubt.locator(".name-one")).to_have_count(2)   # 7C alone, 7S alone
    expect(doubt.locator(".name-more")).to_have_count(2 + 3)  # + 7D, + 7H; + KC, + KH, + KS
    expect(doubt.locator(".name-more").nth(1)).to_have_attribute("title", "Played here: 7C 7S 7H")
    doubt.locator(".name-more").nth(1).click()
    expect(page.locator("#e3 .fixes")).to_contain_text("really 7♣")
    assert corrected_cards(base) == [["7C", "7S", "7H"]]
    page.close()


def test_a_mismatch_whose_reads_agree_on_another_rank_names_it_with_one_tap(server, browser):
    """An unfamiliar deck's fanned jacks read "Q♣ 7♥" (two ranks: a mismatch), each read with a
    jack among its likely others: one tap names J♣ J♥, or them and one more jack."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: QC 7H landed", "meta": {
        "mismatch": True, "cards": ["QC", "7H"],
        "reads": [{"QC": 0.47, "KC": 0.26, "JC": 0.25}, {"7H": 0.47, "JH": 0.17, "KH": 0.07}]}})
    page = signed_in(browser, base, "/rulings/")
    agreed = page.locator("#e3 .doubt .name-agreed")
    expect(agreed).to_have_count(3)  # the jacks (0.42 against the kings' 0.33), + J♦, + J♠
    expect(agreed.nth(0)).to_have_attribute("title", "Played here: JC JH")
    agreed.nth(1).click()
    expect(page.locator("#e3 .fixes")).to_contain_text("J♦")
    assert corrected_cards(base) == [["JC", "JH", "JD"]]
    # queens read "Q♥ 6♠", the 6♠ leaning to Q♠: Q♥ Q♠ is offered above already (Q♥ and one
    # more), so only the two with a third queen are added
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: QH 6S landed", "meta": {
        "mismatch": True, "cards": ["QH", "6S"], "reads": [{"QH": 0.45, "QD": 0.05}, {"6S": 0.56, "QS": 0.16}]}})
    expect(page.locator("#e5 .doubt .name-agreed")).to_have_count(2)
    expect(page.locator("#e5 .doubt .name-agreed").nth(0)).to_have_attribute("title", "Played here: QH QS QC")
    page.close()


def test_a_new_event_redraws_only_the_entries_it_changes(server, browser):
    """An evening has hundreds of events: a new one must not rebuild every entry (a phone then
    lagged seconds behind the table). The entries it leaves alone are the same elements, with
    their editors still unbuilt; the one it corrects is drawn again; an editor is built once
    opened."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    for cards in (["5H"], ["6C"], ["7D"]):
        api(base, "/manual/api/events", {"type": "cards_played", "cards": cards})
    page = signed_in(browser, base, "/rulings/", phone=True)
    expect(page.locator("#e4")).to_be_visible()
    page.evaluate("for (const n of [2, 3, 4]) document.getElementById('e' + n).dataset.mark = 'old'")
    assert page.locator("#entries .cpick").count() == 0  # no editor built before it is opened
    api(base, "/rulings/api/corrections", {"type": "correct", "event": 3, "cards": ["6S"]})
    expect(page.locator("#e5")).to_be_visible()
    expect(page.locator("#e3 .fixes")).to_contain_text("really 6♠")
    marks = page.evaluate("[2, 3, 4].map((n) => document.getElementById('e' + n).dataset.mark || null)")
    assert marks == ["old", None, "old"]  # #3 was drawn again, #2 and #4 kept
    assert page.evaluate("[...document.querySelectorAll('#entries > article')].map((a) => +a.dataset.seq)") == \
        [5, 4, 3, 2, 1]
    page.locator("#e4 details.editor > summary").click()
    expect(page.locator("#e4 details.editor .cpick").first).to_be_visible()
    expect(page.locator("#e4 details.editor .fix-correct")).to_be_visible()
    page.close()


def test_the_rulings_page_shows_this_games_events_and_the_earlier_games_on_a_tap(server, browser):
    """After a whole game, the rulings page opens on the new game's events only (an evening is
    thousands), says how many earlier events it leaves out, and shows them on a tap; a link to
    an event of the last game shows them at once, scrolled to it."""
    from playwright.sync_api import expect

    from referee.camera_stream import stream_game

    base, table = server.url, server.app.extensions["masta.table"]
    for raw, source in stream_game("fr", 4, 0).submitted():
        table.submit(raw, source=source)
    n = len(table.log)
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    page = signed_in(browser, base, "/rulings/", phone=True)
    expect(page.locator(f"#e{n + 2} .out .tag.legal")).to_be_visible()
    expect(page.locator("#entries > article")).to_have_count(2)
    expect(page.locator(".earlier")).to_contain_text(f"{n} event(s) of earlier games are not shown")
    page.locator(".earlier .show-earlier").click()
    expect(page.locator("#entries > article")).to_have_count(n + 2)
    expect(page.locator(".earlier")).to_be_hidden()
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["6H"]})  # and it stays so
    expect(page.locator(f"#e{n + 3} .out .tag.legal")).to_be_visible()
    expect(page.locator("#entries > article")).to_have_count(n + 3)
    page.goto(f"{base}/live/")
    page.goto(f"{base}/rulings/#e3")  # a page of its own, as a link opens it
    expect(page.locator("#e3")).to_be_in_viewport()
    expect(page.locator("#entries > article")).to_have_count(n + 3)
    expect(page.locator(".earlier")).to_be_hidden()
    page.close()


def test_pages_catch_up_on_what_was_pushed_while_their_stream_was_down(server, browser):
    """A phone asleep, a server restarted: the event stream drops and an event goes by unseen
    (here the last play of a game). Once the stream is back, the rulings, manual and evening
    pages fetch what they missed at once, not at the next event."""
    from playwright.sync_api import expect

    from referee.camera_stream import stream_game

    base, table = server.url, server.app.extensions["masta.table"]
    *played, (last, source) = stream_game("fr", 4, 0).submitted()
    for raw, src in played:
        table.submit(raw, source=src)
    n = len(table.log)
    pages = {path: signed_in(browser, base, path, phone=True) for path in ("/rulings/", "/manual/", "/evening/")}
    for page in pages.values():
        expect(page.locator("#conn")).to_have_class("conn up")
    expect(pages["/evening/"].locator("#titles")).not_to_contain_text("SHITHEAD")
    server.app.extensions["masta.broadcaster"].close_all()  # every stream cut: no page hears the next event
    table.submit(last, source=source)
    assert table.game_over()
    expect(pages["/rulings/"].locator(f"#e{n + 1} .out").first).to_be_visible()
    expect(pages["/manual/"].locator("#banner")).to_contain_text(f"#{n + 1}")
    expect(pages["/evening/"].locator("#titles")).to_contain_text("SHITHEAD")
    for page in pages.values():
        page.close()


def test_cards_are_picked_by_taps_and_kept_while_new_events_arrive(server, browser):
    """On a phone, cards are named with taps (a rank, then its suits), not typed: a mismatch
    that read nothing is named as a pair; a read no button fixes is corrected from its own
    cards (one taken out, one added). A new event mid-pick redraws the page and keeps the pick."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: something landed on the pot but no "
                                     "new card could be read", "meta": {"mismatch": True, "cards": []}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["6C"], "conf": [0.55], "meta": {
        "low_conf": True, "reads": [{"6C": 0.55, "8C": 0.3}]}})
    page = signed_in(browser, base, "/rulings/", phone=True)
    miss = page.locator("#e3 .doubt")
    miss.locator("summary").click()
    miss.locator('.cpick-rank[data-rank="9"]').click()
    miss.locator('.cpick-suit[data-card="9S"]').click()
    api(base, "/manual/api/events", {"type": "note", "text": "mid-pick, the page redraws"})
    expect(page.locator("#e5")).to_be_visible()
    expect(miss.locator(".cpick-chip")).to_have_count(1)  # the pick survived the redraw
    miss.locator('.cpick-suit[data-card="9H"]').click()
    expect(miss.locator(".cpick-chip")).to_have_text(["9♠ ✕", "9♥ ✕"])
    miss.locator(".name-play").click()
    expect(page.locator("#e3 .fixes")).to_contain_text("really 9♠9♥")
    # the Queen read as a 6 (its likely others: an 8): "Other cards…" opens the picker on the read
    page.locator("#e4 .doubt .fix-pick").click()
    editor = page.locator("#e4 details.editor .correct-cards")
    expect(editor.locator(".cpick-chip")).to_have_text(["6♣ ✕"])
    expect(editor).not_to_contain_text("null")
    editor.locator(".cpick-chip").click()
    editor.locator('.cpick-rank[data-rank="Q"]').click()
    editor.locator('.cpick-suit[data-card="QC"]').click()
    editor.locator(".fix-correct").click()
    expect(page.locator("#e4 .fixes")).to_contain_text("really Q♣")
    view = rulings_data(base)
    assert view["view"]["table"]["pot"] == ["5H", "9S", "9H", "QC"]
    page.close()


def test_checks_that_were_right_are_cleared_with_one_tap(server, browser):
    """A read the camera was unsure of but got right: "Right as read" says so, and the check
    goes (the entry shows who checked it). A mismatch where nothing was played: "Nothing was
    played here" voids the note, and its check goes. The game is unchanged by either."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["9C"], "conf": [0.6], "meta": {"low_conf": True}})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: something landed on the pot but no "
                                     "new card could be read", "meta": {"mismatch": True, "cards": []}})
    page = signed_in(browser, base, "/rulings/", phone=True)
    page.locator("#e2 .doubt .fix-right").click()
    expect(page.locator("#e2 .fixes")).to_contain_text("#2 checked: right as read")
    expect(page.locator("#e2 .doubt")).to_have_count(0)
    page.locator("#e3 .doubt .name-none").click()
    expect(page.locator("#e3 .tag.void")).to_be_visible()
    expect(page.locator("#e3 .doubt")).to_have_count(0)
    view = rulings_data(base)
    assert view["view"]["table"]["pot"] == ["9C"] and view["view"]["table"]["turn"] == "Bob"
    page.close()


def test_a_sure_misread_is_fixed_with_one_tap_once_its_corrector_is_open(server, browser):
    """An unfamiliar deck's courts read surely as pip cards (no check asked): a Q♥ read "3♥",
    a Q♠ Q♣ read "6♠ 6♣". "Correct #n" opens on the likeliest fixes, one tap each: the read's
    likely others, one card more or less, and the same suits in another rank."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob"], "dealer": "Bob"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["3H"], "conf": [0.9],
                                     "meta": {"reads": [{"3H": 0.9, "3D": 0.06, "8H": 0.01}]}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["6S", "6C"], "conf": [0.8, 0.9]})
    page = signed_in(browser, base, "/rulings/", phone=True)
    expect(page.locator("#e2 .doubt")).to_have_count(0)  # read surely: nothing asked
    page.locator("#e2 details.editor > summary").click()
    quick = page.locator("#e2 .quick-fixes")
    expect(quick.locator(".quick-alt")).to_have_count(1)  # 3D at 6%; 8H too unlikely
    expect(quick.locator(".quick-alt")).to_contain_text("3♦")
    expect(quick.locator(".quick-add")).to_have_text(["+ 3♣", "+ 3♦", "+ 3♠"])
    expect(quick.locator(".quick-drop")).to_have_count(0)  # one card: nothing to take out
    ranks = quick.locator(".quick-rank")
    expect(ranks).to_have_count(12)
    ranks.filter(has_text="Q♥").click()
    expect(page.locator("#e2 .fixes")).to_contain_text("really Q♥")
    page.locator("#e3 details.editor > summary").click()
    quick = page.locator("#e3 .quick-fixes")
    expect(quick.locator(".quick-drop")).to_have_text(["Not 6♠", "Not 6♣"])
    quick.locator('.quick-rank[title="It was QS QC"]').click()
    expect(page.locator("#e3 .fixes")).to_contain_text("really Q♠Q♣")
    assert sorted(corrected_cards(base)) == [["QH"], ["QS", "QC"]]
    assert rulings_data(base)["view"]["table"]["pot"] == ["QH", "QS", "QC"]
    page.close()


def test_a_play_nobody_saw_is_added_in_place_from_the_rulings_page(server, browser):
    """The camera saw nothing of a 9S played after the 5H: the operator opens "Correct #2",
    then "A play the camera missed after #2", picks 9♠ and adds it. It is ruled there, the JD
    after it is ruled again (now on the 9), and the 5H's entry shows the addition."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5H"]})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["JD"]})
    page = signed_in(browser, base, "/rulings/", phone=True)
    expect(page.locator("#e3 .out").first).to_contain_text("Bob")  # JD: Bob's turn, as far as the page knows
    editor = page.locator("#e2 details.editor")
    editor.locator("summary").first.click()
    missed = editor.locator("details.namer")
    missed.locator("summary").click()
    missed.locator('.cpick-rank[data-rank="9"]').click()
    missed.locator('.cpick-suit[data-card="9S"]').click()
    missed.locator(".add-missed").click()
    expect(page.locator("#e4 .head")).to_contain_text("Played after #2 (the camera missed it): 9♠")
    expect(page.locator("#e4 .out").first).to_contain_text("legal")
    expect(page.locator("#e2 .fixes")).to_contain_text("9♠")
    expect(page.locator("#e4 .out").first).to_contain_text("Bob")  # the 9S was Bob's
    expect(page.locator("#e3 .out").first).to_contain_text("Cy")  # the JD, ruled again: Cy's turn now
    view = rulings_data(base)
    assert view["view"]["table"]["pot"] == ["5H", "9S", "JD"]
    # then the pot went unseen after the JD: added there, the pot is empty
    page.locator("#e3 details.editor > summary").click()
    page.locator("#e3 details.editor details.namer > summary").click()
    page.locator("#e3 .add-missed-clear").click()
    expect(page.locator("#e5 .head")).to_contain_text("The pot went after #3 (the camera missed it)")
    view = rulings_data(base)
    assert view["view"]["table"]["pot"] == []
    # the game's very first play can be missed too: the set-up's editor offers it
    page.locator("#e1 details.editor summary").first.click()
    expect(page.locator("#e1 details.editor .namer summary")).to_contain_text("missed after #1")
    page.close()


def test_plays_nobody_is_named_for_stay_readable_on_the_live_page(server, browser):
    """An Ace whose target nobody named, the pot taken, then two plays: the live page shows
    the pot that is there, the turn (assumed), one question in table words with the likely
    answer first, and nothing written as 'null'; the operator's one tap answers it."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    for cards in (["5D"], ["AC"]):
        api(base, "/manual/api/events", {"type": "cards_played", "cards": cards})
    api(base, "/manual/api/events", {"type": "pot_cleared"})
    for card in ("4D", "5H"):  # fewer than a round of three: still asked
        api(base, "/manual/api/events", {"type": "cards_played", "cards": [card]})
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{base}/live/")
    expect(page.locator("#pot .card")).to_have_count(2)
    prompts = page.locator("#prompts")
    expect(prompts.locator(".question-box")).to_have_count(1)  # spectators: one question
    expect(prompts).to_contain_text("Who took the pot after Bob's A♣? Cy · Ann")
    expect(prompts).to_contain_text("assumed Cy")
    expect(prompts.locator("button")).to_have_count(0)
    expect(page.locator("#facts")).to_contain_text("Cy (assumed)")
    expect(page.locator("#banner")).to_contain_text("5♥")
    expect(page.locator("#banner")).not_to_contain_text("null")
    page.close()
    op = signed_in(browser, base, "/live/")
    op.locator("#prompts .question-box button.answer", has_text="Ann").click()
    expect(op.locator("#prompts .question-box")).to_have_count(0)
    expect(op.locator("#facts")).not_to_contain_text("assumed")
    assert [r["event"]["type"] for r in rulings_data(base)["entries"]][0] == "target"
    op.close()


def test_a_camera_mismatch_is_played_as_assumed_and_one_tap_on_the_live_page_names_it(server, browser):
    """A mismatch nobody answered is ruled as the rank its reads lean to (assumed); the live page asks what
    was played with each rank read and "nothing" as the taps; the operator's tap names it."""
    from playwright.sync_api import expect

    base = server.url
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy"], "dealer": "Cy"})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["5D"]})
    api(base, "/manual/api/events", {"type": "note", "text": "camera mismatch: 9D 5S landed", "meta": {
        "mismatch": True, "cards": ["9D", "5S"], "reads": [{"9D": 0.94}, {"5S": 0.72}]}})
    api(base, "/manual/api/events", {"type": "cards_played", "cards": ["JC"]})
    op = signed_in(browser, base, "/live/")
    box = op.locator("#prompts .question-box")
    expect(box).to_contain_text("What was played when the camera saw 9♦ 5♠ land after Ann's 5♦? 9♦ · 5♠ · nothing")
    expect(box).to_contain_text("assumed 9D")
    box.locator("button.answer", has_text="5♠").click()
    expect(op.locator("#prompts .question-box")).to_have_count(0)
    assert corrected_cards(base) == [["5S"]]
    op.close()


def test_a_wrong_game_end_and_the_plays_held_after_it_are_said_and_undone_on_the_live_page(server, browser):
    """An unread play (seed 2's JC JS JD) ends the game wrongly three events later; the camera
    goes on seeing plays. The live page says the game is over, with its titles, and that plays
    were held since; once the unread play is named on the rulings page, the game goes on and
    the box goes."""
    from playwright.sync_api import expect

    from referee.camera_stream import stream_game

    base, table = server.url, server.app.extensions["masta.table"]
    for seq, (raw, source) in enumerate(stream_game("fr", 4, 2).submitted()[:413], 1):
        if seq == 408:  # the camera could not read it
            raw = {"type": "note", "text": "camera mismatch: something landed unread", "meta": {"mismatch": True, "cards": []}}
        table.submit(raw, source=source)
    page = signed_in(browser, base, "/live/", phone=True)
    box = page.locator("#prompts .game-over")
    expect(box).to_contain_text("Game 1 is over")
    expect(box).to_contain_text("SHITHEAD")
    expect(box.locator(".held")).to_contain_text("2 play(s) since (#412, #413)")
    expect(box.locator(".held")).to_contain_text("a misread ended it at #411 or before")
    box.locator(".held a").click()  # to the rulings page, at the event that ended the game
    expect(page.locator("#e411")).to_be_in_viewport()
    assert page.evaluate("document.getElementById('e411').getBoundingClientRect().top") < 50  # scrolled to it
    page.locator("#e408 .doubt summary").click()
    page.locator("#e408 .doubt .name-cards").fill("jc js jd")
    page.locator("#e408 .doubt .name-play").click()
    expect(page.locator("#e412 .out .tag.legal")).to_be_visible()  # the held play, ruled in place
    page.goto(f"{base}/live/")
    expect(page.locator("#banner")).to_contain_text("#413")
    expect(page.locator("#prompts .game-over")).to_have_count(0)
    page.close()


def test_plays_seen_before_the_next_game_was_set_up_are_added_to_it_with_one_tap(server, browser):
    """The game ended rightly and the next one began before anyone set it up: the camera's
    plays were held in the old game. The new game's setup says so, and one tap on the rulings
    page adds them to it, in order, where it began; they are ruled there."""
    from playwright.sync_api import expect

    from referee.camera_stream import stream_game

    base, table = server.url, server.app.extensions["masta.table"]
    for raw, source in stream_game("fr", 4, 0).submitted():
        table.submit(raw, source=source)
    n = len(table.log)
    table.submit({"type": "cards_played", "cards": ["5H"]}, source="camera")
    table.submit({"type": "cards_played", "cards": ["7C"]}, source="camera")
    assert table.view()["table"]["held"] == [n + 1, n + 2]
    api(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee"})
    page = signed_in(browser, base, "/rulings/")
    add = page.locator(f"#e{n + 3} .add-held")
    expect(add).to_have_text("Add them to this game")
    add.click()
    expect(page.locator(f"#e{n + 3}")).to_contain_text("(added)")  # shown once the first is added
    # the page adds them one by one: the second shown (7 on a 5: ruled in the new game), then the log
    expect(page.locator(f"#e{n + 5} .out .tag.legal")).to_be_visible()
    assert [(e["type"], e.get("cards"), e.get("event")) for e in table.log[n + 3:]] == \
        [("missed", ["5H"], n + 3), ("missed", ["7C"], n + 4)]
    assert table.view()["table"]["pot"] == ["5H", "7C"] and table.view()["table"]["held"] == []
    page.close()
