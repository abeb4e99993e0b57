"""The web table with nobody answering for the camera: one question in table words, answered
with one tap; a killed server resumes with its assumptions and questions as they were; the
demo's end line says the questions asked and the taps taken."""
from __future__ import annotations

from test_web import TOKEN, make_app, post

from web.commands import DemoEnd


def camera(table, cards, side):
    return table.submit({"type": "cards_played", "cards": cards, "meta": {"seat": side}}, source="camera")



def _table(tmp_path, players=("Ann", "Bob", "Cy")):
    """An app with a game of `players` set up (the last deals): the app, its table, a client."""
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    table.submit({"type": "setup", "players": list(players), "dealer": players[-1]}, source="operator")
    return app, table, app.test_client()

def test_the_one_question_is_answered_with_one_tap_and_closes(tmp_path):
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    c = app.test_client()
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee"}, source="operator")
    camera(table, ["4S"], "Ann")
    camera(table, ["4C"], "Cy")      # a Turbo, by the side the arm came from
    camera(table, ["AS"], "Bob")     # nobody says where the Ace's pot goes
    s = c.get("/live/state.json").json
    q = s["table"]["questions"][0]
    assert q["line"] == "Who took the pot after Bob's A♠? Cy · Dee · Ann"
    assert s["table"]["turn"] == "Cy" and s["table"]["turn_assumed"]
    assert s["table"]["question"]["kind"] == "player" and s["table"]["questions_waiting"] == 1
    ans = dict(q["answer"], player="Dee")
    r = post(c, "/rulings/api/corrections", ans, headers={"X-Masta-Token": TOKEN})
    assert r.status_code == 201
    s = c.get("/live/state.json").json
    assert s["table"]["turn"] == "Dee" and s["table"]["question"]["kind"] == "player"
    assert s["summary"]["taps"] == 1 and s["summary"]["asked"] == 1 and s["summary"]["open"] == 1


def test_a_killed_server_resumes_with_its_assumptions_and_questions(tmp_path):
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}, source="operator")
    camera(table, ["5D"], "Ann")
    camera(table, ["AS"], "Bob")
    table.submit({"type": "pot_cleared"}, source="camera")
    camera(table, ["4C"], "Bob")     # contradicts the guess: Ann took the Ace's pot, re-ruled
    camera(table, ["4H"], "Ann")     # a Turbo
    camera(table, ["AC"], "Bob")     # the next Ace: still open
    before = table.view()
    assert before["table"]["assumptions"] and before["table"]["question"] is not None
    again = make_app(tmp_path).extensions["masta.table"]  # the same SQLite file, a new server
    after = again.view()
    for key in ("assumptions", "questions", "question", "turn", "turn_assumed", "players"):
        assert after["table"][key] == before["table"][key], key
    assert after["summary"] == before["summary"]
    assert again.referee.rulings() == table.referee.rulings()


def test_the_demo_end_line_says_titles_questions_and_taps(tmp_path):
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    said: list[str] = []
    end = DemoEnd(table, say=said.append)
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}, source="system")
    end(camera(table, ["4S"], "Ann")["event"], 1.0)
    end(camera(table, ["4C"], "Cy")["event"], 2.0)  # a Turbo by the arm's side: assumed
    end(camera(table, ["4D"], "Bob")["event"], 3.0)  # ... and asked, once the next play came
    assert said == []
    # the rest of the game, fast: two players said out and confirmed (by the system, so no
    # person's tap), whatever the counts say
    for name in ("Ann", "Bob"):
        out = table.submit({"type": "player_out", "player": name}, source="system")
        end(out["event"], None)
        end(table.submit({"type": "confirm", "event": out["event"]["seq"]}, source="system")["event"], None)
    end(camera(table, ["9H"], "Cy")["event"], 9.0)  # play after the end: said once only
    # a claim the counts disagree with is taken at once (issue 53): the game ends at Bob's
    # player_out, its titles resting on it too until it is confirmed
    assert said == ["the demo game is over: Ann MASTA, Bob VICE-MASTA, Cy SHITHEAD; 1 question(s) asked, "
                    "1 still open; 0 tap(s) taken; the titles rest on 2 assumption(s)"]
    assert table.view()["table"]["titles_assumed"] == 1  # confirmed since: one left


def test_a_camera_mismatch_is_played_as_assumed_and_its_one_tap_answer_replaces_it(tmp_path):
    app, table, c = _table(tmp_path)
    camera(table, ["5D"], "Ann")
    note = table.submit({"type": "note", "text": "camera mismatch: cards of several ranks appeared at once",
                         "meta": {"mismatch": True, "cards": ["9D", "5S"], "seat": "Bob",
                                  "reads": [{"9D": 0.94, "9S": 0.13}, {"5S": 0.72, "5D": 0.23}]}},
                        source="camera")["event"]
    camera(table, ["10C"], "Cy")
    s = c.get("/live/state.json").json
    assert s["table"]["turn"] == "Cy"  # the game went on: 9D assumed Bob's, Cy's 10C burned it
    q = s["table"]["question"]
    assert q["kind"] == "cards" and q["options"] == ["9D", "5S", "nothing"]
    r = post(c, "/rulings/api/corrections", q["offers"][0]["send"], headers={"X-Masta-Token": TOKEN})
    assert r.status_code == 201
    ruled = [r for r in table.referee.rulings() if r["event"] == note["seq"]]
    assert [(r["player"], r["cards"]) for r in ruled] == [("Bob", ["9D"])] and "assumed" not in ruled[0]
    s = c.get("/live/state.json").json
    assert s["table"]["question"] is None and s["summary"]["taps"] == 1


def test_a_claimed_out_the_counts_disagree_with_goes_on_and_one_tap_takes_it_back(tmp_path):
    app, table, c = _table(tmp_path)
    camera(table, ["5H"], "Ann")
    table.submit({"type": "player_out", "player": "Bob"}, source="operator")
    s = c.get("/live/state.json").json["table"]
    assert [p["out"] for p in s["players"]] == [False, True, False]
    assert [p["assumed"] for p in s["prompts"]] == ["Bob"]  # a check, not a wait
    camera(table, ["6H"], "Cy")  # the game goes on without Bob
    a = c.get("/live/state.json").json["table"]["assumptions"][0]
    assert a["kind"] == "out" and a["offers"][1] == {"label": "no, still in", "send": {"type": "void", "event": 3}}
    r = post(c, "/rulings/api/corrections", a["offers"][1]["send"], headers={"X-Masta-Token": TOKEN})
    assert r.status_code == 201
    s = c.get("/live/state.json").json["table"]
    assert [p["out"] for p in s["players"]] == [False, False, False] and s["prompts"] == []


def test_the_operator_ends_a_game_the_counts_did_not_and_the_end_question_takes_one_tap(tmp_path):
    app = make_app(tmp_path)
    table = app.extensions["masta.table"]
    c = app.test_client()
    op = {"X-Masta-Token": TOKEN}
    table.submit({"type": "setup", "players": ["Ann", "Bob", "Cy"], "dealer": "Cy"}, source="operator")
    assert post(c, "/manual/api/events", {"type": "counts", "stock": 0}, headers=op).status_code == 201
    for cards, side in [(["4S"], "Ann"), (["5C"], "Bob"), (["6D"], "Cy"), (["7H"], "Ann")]:
        camera(table, cards, side)
    assert "was left holding cards: game over" in c.get("/rulings/", headers=op).data.decode()
    bad = post(c, "/rulings/api/corrections", {"type": "game_end", "player": "Zed"}, headers=op)
    assert bad.status_code == 400 and "Ann, Bob, Cy" in bad.json["error"]
    r = post(c, "/rulings/api/corrections", {"type": "game_end"}, headers=op)  # nobody named
    assert r.status_code == 201
    s = c.get("/live/state.json").json["table"]
    assert s["over"] and s["question"]["kind"] == "end" and s["titles_assumed"] >= 1
    offer = next(o for o in s["question"]["offers"] if o["label"] == "Ann")
    assert post(c, "/rulings/api/corrections", offer["send"], headers=op).status_code == 201
    s = c.get("/live/state.json").json["table"]
    assert s["finishing_order"][-1] == "Ann" and s["titles"]["Ann"] == "SHITHEAD"
    assert s["question"] is None
    again = post(c, "/rulings/api/corrections", {"type": "game_end"}, headers=op)
    assert again.status_code == 409 and "this game is over" in again.json["error"]
