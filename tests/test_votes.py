"""One phone cannot cast others' votes (issue 56, point 2): a vote from a phone is proven by
that player's voting code (the operator hands them out); dropping the session cookie makes
a new device, not a new voter; a phone's vote keeps no `meta` of its own."""
from __future__ import annotations

import json
import os

import pytest
from helpers_web import code_for, game_over_app, phone, snapshot
from test_web import OP, post


def _order(app) -> int:
    r = post(app.test_client(), "/evening/api/events", {"type": "order", "player": "Bob", "text": "sing"})
    assert r.status_code == 201, r.json
    return r.json["event"]["seq"]


def vote(client, headers, order, player, **extra):
    return client.post("/evening/api/vote", json={"order": order, "player": player, "serves": True, **extra},
                       headers=headers)



def _wait(page, done, tries: int = 100) -> None:
    """Let the page work until `done()` (a vote recorded), at most `tries` tenths of a second."""
    for _ in range(tries):
        if done():
            return
        page.wait_for_timeout(100)

def test_fresh_sessions_cannot_cast_the_remaining_votes(tmp_path):
    """The attack: drop the cookie, vote as the next name, again and again."""
    app = game_over_app(tmp_path)
    seq = _order(app)
    before = snapshot(app)
    for name in ("Ann", "Cy"):
        attacker, h = phone(app)  # a new session each time
        r = vote(attacker, h, seq, name)
        assert r.status_code == 403 and f"{name}'s voting code" in r.json["error"]
        r = vote(attacker, h, seq, name, code="ABCDEF")
        assert r.status_code == 403 and "wrong voting code" in r.json["error"]
    assert snapshot(app) == before
    # the real Cy, with the code the operator gave them, is not told "already voted"
    cy, h = phone(app)
    r = vote(cy, h, seq, "Cy", code=code_for(app, "Cy"))
    assert r.status_code == 201, r.json
    # and Cy's phone, proven once, votes again on the next order without the code, but never as Ann
    seq2 = _order(app)
    assert vote(cy, h, seq2, "Cy").status_code == 201
    r = vote(cy, h, seq2, "Ann", code=code_for(app, "Ann"))
    assert r.status_code == 403 and "votes as Cy" in r.json["error"]


def test_codes_are_per_player_per_evening_and_only_the_operator_sees_them(tmp_path):
    app = game_over_app(tmp_path)
    codes = {p: code_for(app, p) for p in ("Ann", "Bob", "Cy", "Dee")}
    assert len(set(codes.values())) == 4 and all(len(c) == 6 for c in codes.values())
    c = app.test_client()
    assert c.get("/evening/data.json", headers=OP).json["voter_codes"] == codes
    spectator = app.test_client()
    assert "voter_codes" not in spectator.get("/evening/data.json").json
    page = spectator.get("/evening/").data.decode()
    assert not any(code in page for code in codes.values())
    # a new evening: new codes
    assert post(c, "/setup/api/evening", {"name": "Saturday"}).status_code == 201
    assert code_for(app, "Ann") != codes["Ann"]


def test_guessing_codes_is_stopped(tmp_path):
    app = game_over_app(tmp_path)
    seq = _order(app)
    attacker, h = phone(app)
    statuses = [vote(attacker, h, seq, "Ann", code=f"AAAA{i:02d}").status_code for i in range(12)]
    assert statuses[:10] == [403] * 10 and statuses[10:] == [429, 429]
    r = vote(attacker, h, seq, "Ann", code=code_for(app, "Ann"))  # even the right one, for a while
    assert r.status_code == 429 and "wait" in r.json["error"]


def test_a_phones_vote_keeps_no_meta_but_its_request_id(tmp_path):
    app = game_over_app(tmp_path)
    seq = _order(app)
    page = app.extensions["masta.broadcaster"].subscribe()
    voter, h = phone(app)
    big = "x" * 1_500_000
    r = vote(voter, h, seq, "Cy", code=code_for(app, "Cy"),
             meta={"by": "operator (Op)", "rid": "r-1", "junk": big})
    assert r.status_code == 201, r.json
    ev = r.json["event"]
    assert ev.get("meta") == {"rid": "r-1"} and ev["source"] == "operator"
    stored = app.extensions["masta.store"].events(app.extensions["masta.table"].evening_id)[-1]
    assert stored["type"] == "vote" and stored.get("meta") == {"rid": "r-1"}
    assert len(json.dumps(stored)) < 1000
    pushed = page.get(timeout=5)
    assert len(pushed) < 100_000 and "operator (Op)" not in pushed
    again = vote(voter, h, seq, "Cy", meta={"rid": "r-1"})  # resent: the same event, not a second
    assert again.status_code == 201 and again.json["event"]["seq"] == ev["seq"]


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="/usr/bin/chromium is absent")
def test_a_phone_asks_for_the_code_once_and_the_operator_page_lists_them(tmp_path):
    """In chromium: the operator's Evening page lists the codes; a phone's first vote asks for
    its player's code, the next one does not."""
    import urllib.request

    from playwright.sync_api import expect, sync_playwright
    from test_web import TOKEN

    from web.server import BackgroundServer

    app = game_over_app(tmp_path)
    seq = _order(app)

    def votes(order: int) -> dict:
        data = json.loads(urllib.request.urlopen(f"{srv.url}/evening/data.json", timeout=10).read())
        return next(o for o in data["orders"] if o["seq"] == order)["votes"]

    with BackgroundServer(app, threads=16) as srv, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            op = browser.new_page()
            op.set_default_timeout(10_000)
            op.goto(f"{srv.url}/auth?token={TOKEN}&name=Op&next=/evening/")
            expect(op.locator(".voter-codes")).to_contain_text(code_for(app, "Cy"))
            phone_ = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            phone_.set_default_timeout(10_000)
            asked: list[str] = []

            def answer(dialog):
                asked.append(dialog.message)
                dialog.accept(code_for(app, "Cy").lower())
            phone_.on("dialog", answer)
            phone_.goto(f"{srv.url}/evening/")
            expect(phone_.locator(".voter-codes")).to_have_count(0)
            box = phone_.locator(".order").first
            box.locator("select").select_option("Cy")
            box.locator(".vote-yes").click()
            _wait(phone_, lambda: votes(seq))
            assert votes(seq) == {"Cy": True} and len(asked) == 1 and "Cy" in asked[0]
            seq2 = _order(app)
            box = phone_.locator(".order").first
            expect(box).to_contain_text("vote open")
            expect(box.locator("select option")).to_have_count(2)
            box.locator("select").select_option("Cy")
            box.locator(".vote-no").click()
            _wait(phone_, lambda: votes(seq2))
            assert votes(seq2) == {"Cy": False} and len(asked) == 1  # not asked again
        finally:
            browser.close()
