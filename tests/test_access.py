"""Who may change what: a test per access rule (issue 7).

* every state-changing route refuses a missing or wrong operator token, and changes nothing;
* a vote cannot be cast in someone else's name, nor twice;
* cross-site posts are refused (no CSRF token, or an Origin that is not this server);
* evidence URLs cannot leave the evidence folder (`..`, encodings, absolute paths, links);
* request bodies are size-limited (413 with a message), on the test client and on waitress.
"""
from __future__ import annotations

import http.client
import json
import os
import threading

import pytest
from flask.sessions import SecureCookieSessionInterface
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from helpers_web import (CHANGING, OPERATOR_ROUTES, PUBLIC_ROUTES, code_for, game_over_app, phone,
                         play_four_player_game, snapshot)
from test_web import OP, TOKEN, make_app, n_events, post, setup_game

def test_the_route_lists_cover_every_state_changing_route(tmp_path):
    app = make_app(tmp_path)
    found = {r.rule for r in app.url_map.iter_rules() if r.methods & CHANGING}
    assert found == set(OPERATOR_ROUTES) | set(PUBLIC_ROUTES), found


@pytest.mark.parametrize("url", sorted(OPERATOR_ROUTES))
def test_every_state_changing_route_refuses_a_missing_or_wrong_token(tmp_path, url):
    app = game_over_app(tmp_path) if url == "/evening/api/events" else make_app(tmp_path)
    c = app.test_client()
    if url in ("/manual/api/events", "/rulings/api/corrections"):
        setup_game(c)
    body = OPERATOR_ROUTES[url]
    before = snapshot(app)
    forged = app.test_client()  # a cookie signed with another server's key: not the operator
    other = make_app(tmp_path / "other")
    with other.test_request_context():
        cookie = SecureCookieSessionInterface().get_signing_serializer(other).dumps(
            {"op": "x" * 64, "csrf": "c"})
    forged.set_cookie("masta", cookie)
    tries = [({}, c), ({"X-Masta-Token": "guess"}, c), ({"X-Masta-Token": TOKEN[:-1]}, c),
             ({"X-Masta-Token": TOKEN + " "}, c), ({"X-CSRF-Token": "c"}, forged)]
    for headers, client in tries:
        r = post(client, url, body, headers=headers)
        assert r.status_code == 401, (headers, r.status_code, r.data)
        assert "operator's token" in r.json["error"]
        r = client.post(url, data={k: str(v) for k, v in body.items()}, headers=headers)  # a form post
        assert r.status_code == 401, (headers, r.status_code, r.data)
    assert snapshot(app) == before
    ok = post(c, url, body)  # the same request with the token is taken: the token made the difference
    if url.startswith("/teach/"):  # past the token, teaching asks for a camera this app has not
        assert ok.status_code == 409 and "no camera" in ok.json["error"], ok.json
    else:
        assert ok.status_code == 201, ok.json


def test_a_vote_cannot_be_cast_for_someone_else(tmp_path):
    app = game_over_app(tmp_path)
    c = app.test_client()
    order = post(c, "/evening/api/events", {"type": "order", "player": "Bob", "text": "fetch the drinks"})
    seq = order.json["event"]["seq"]
    anns, h1 = phone(app)
    mallory, h2 = phone(app)
    assert anns.post("/evening/api/vote", json={"order": seq, "player": "Ann", "serves": True,
                                                "code": code_for(app, "Ann")}, headers=h1).status_code == 201
    before = snapshot(app)
    r = anns.post("/evening/api/vote", json={"order": seq, "player": "Cy", "serves": True,
                                             "code": code_for(app, "Cy")}, headers=h1)
    assert r.status_code == 403 and "cannot vote for Cy" in r.json["error"]
    assert snapshot(app) == before
    r = mallory.post("/evening/api/vote", json={"order": seq, "player": "Cy", "serves": False}, headers=h2)
    assert r.status_code == 403 and "voting code" in r.json["error"]  # no code: not proven to be Cy
    r = mallory.post("/evening/api/vote", json={"order": seq, "player": "Cy", "serves": False,
                                                "code": code_for(app, "Cy").lower()}, headers=h2)
    assert r.status_code == 201  # Cy, from their own phone, with their code
    assert c.get("/evening/data.json").json["orders"][0]["votes"] == {"Ann": True, "Cy": False}
    # the next game's order: Cy's phone cannot speak for Ann, nor Ann's for Cy
    play_four_player_game(c)
    seq2 = post(c, "/evening/api/events", {"type": "order", "player": "Bob", "text": "sing"}).json["event"]["seq"]
    before = snapshot(app)
    r = mallory.post("/evening/api/vote", json={"order": seq2, "player": "ann", "serves": False}, headers=h2)
    assert r.status_code == 403 and "cannot vote for Ann" in r.json["error"]
    r = anns.post("/evening/api/vote", json={"order": seq2, "player": "Cy", "serves": True}, headers=h1)
    assert r.status_code == 403 and "cannot vote for Cy" in r.json["error"]
    fresh, h3 = phone(app)  # a new phone cannot take Ann's name either, without Ann's code
    r = fresh.post("/evening/api/vote", json={"order": seq2, "player": "Ann", "serves": False}, headers=h3)
    assert r.status_code == 403 and "Ann's voting code" in r.json["error"]
    assert snapshot(app) == before
    # the operator may record the vote of a player whose phone is gone; the log says who did
    r = post(c, "/evening/api/vote", {"order": seq2, "player": "Ann", "serves": True},
             headers=dict(OP, **{"X-Masta-By": "Dee"}))
    assert r.status_code == 201 and r.json["event"]["meta"]["by"] == "Dee"


def test_a_vote_cannot_be_cast_twice_even_at_once(tmp_path):
    app = game_over_app(tmp_path)
    c = app.test_client()
    seq = post(c, "/evening/api/events", {"type": "order", "player": "Bob", "text": "dance"}).json["event"]["seq"]
    voter, h = phone(app)
    assert voter.post("/evening/api/vote", json={"order": seq, "player": "Cy", "serves": True,
                                                 "code": code_for(app, "Cy")}, headers=h).status_code == 201
    again = voter.post("/evening/api/vote", json={"order": seq, "player": "Cy", "serves": False}, headers=h)
    assert again.status_code == 400 and "already voted" in again.json["error"]
    # ten phones and the operator race for Ann's vote: exactly one is counted
    phones = [phone(app) for _ in range(10)]
    answers: list[int] = []

    def cast(p):
        client, headers = p
        answers.append(client.post("/evening/api/vote", json={"order": seq, "player": "Ann", "serves": True,
                                                               "code": code_for(app, "Ann")},
                                   headers=headers).status_code)
    threads = [threading.Thread(target=cast, args=(p,)) for p in phones]
    threads.append(threading.Thread(target=lambda: answers.append(
        post(c, "/evening/api/vote", {"order": seq, "player": "Ann", "serves": False}).status_code)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers.count(201) == 1 and len(answers) == 11
    log = app.extensions["masta.store"].events(app.extensions["masta.table"].evening_id)
    ann_votes = [e for e in log if e["type"] == "vote" and e["player"] == "Ann"]
    assert len(ann_votes) == 1
    assert c.get("/evening/data.json").json["orders"][0]["votes"]["Ann"] == ann_votes[0]["serves"]


def test_cross_site_posts_are_refused(tmp_path):
    app = make_app(tmp_path)
    op = app.test_client()
    op.get(f"/auth?token={TOKEN}&name=Dee")  # a signed-in operator's phone, cookie and all
    with op.session_transaction() as s:
        csrf = s["csrf"]
    setup_game(op)
    before = n_events(app)
    form = {"type": "cards_played", "cards": "5H"}
    # a page on another site posting a form: the browser sends the cookie but cannot know the token
    r = op.post("/manual/api/events", data=form, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    r = op.post("/manual/api/events", data=dict(form, csrf_token="guessed"))
    assert r.status_code == 403 and "CSRF" in r.json["error"]
    # even a leaked CSRF token does not help a page on another origin
    r = op.post("/manual/api/events", data=dict(form, csrf_token=csrf), headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site" in r.json["error"]
    r = op.post("/manual/api/events", data=dict(form, csrf_token=csrf), headers={"Origin": "null"})
    assert r.status_code == 403
    r = op.post("/auth/logout", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    voter, h = phone(app)
    r = voter.post("/evening/api/vote", json={"order": 1, "player": "Ann", "serves": True})
    assert r.status_code == 403  # no CSRF token: not from our page
    assert n_events(app) == before
    # our own page, same origin, with its token: taken
    r = op.post("/manual/api/events", data=dict(form, csrf_token=csrf), headers={"Origin": "http://localhost"})
    assert r.status_code == 201, r.json


SEGMENTS = st.sampled_from(["..", ".", "%2e%2e", "%2E%2E%2F", "..%2f", "..\\", "secret.jpg", "e1.jpg",
                            "evening-1", "out", "", "%00", "~", "/", "//etc", "link.jpg", "inside"])


@pytest.fixture(scope="module")
def evidence_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("ev")
    app = make_app(root)
    folder = app.config["MASTA"].evidence_dir
    (folder / "evening-1").mkdir()
    (folder / "evening-1" / "e1.jpg").write_bytes(b"\xff\xd8inside")
    (root / "secret.jpg").write_bytes(b"SECRET")
    (root / "out").mkdir()
    (root / "out" / "secret.jpg").write_bytes(b"SECRET")
    (folder / "link.jpg").symlink_to(root / "secret.jpg")  # a link planted in the folder
    (folder / "inside").symlink_to(root / "out")
    return app


def test_evidence_links_out_of_the_folder_are_not_followed(evidence_app):
    c = evidence_app.test_client()
    assert c.get("/evidence/evening-1/e1.jpg").data == b"\xff\xd8inside"
    assert c.get("/evidence/link.jpg").status_code == 404
    assert c.get("/evidence/inside/secret.jpg").status_code == 404


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=6), lead=st.sampled_from(["", "/", "//"]))
def test_evidence_paths_cannot_leave_the_folder(evidence_app, parts, lead):
    c = evidence_app.test_client()
    r = c.get("/evidence/" + lead + "/".join(parts))
    assert r.status_code in (200, 404, 308), r.status_code
    assert b"SECRET" not in r.data
    if r.status_code == 200:
        assert r.data == b"\xff\xd8inside"


@pytest.mark.parametrize("url", sorted(set(OPERATOR_ROUTES) | {"/evening/api/vote"}))
def test_request_bodies_are_size_limited(tmp_path, url):
    app = make_app(tmp_path)
    c = app.test_client()
    setup_game(c)
    before = snapshot(app)
    big = json.dumps({"type": "note", "text": "x" * (3 * 1024 * 1024)})
    r = c.post(url, data=big, content_type="application/json", headers=OP)
    assert r.status_code == 413 and "too large" in r.json["error"]
    assert snapshot(app) == before


def test_waitress_refuses_a_large_upload_declared_or_chunked(tmp_path):
    from helpers_server import Serve, request
    with Serve(tmp_path) as srv:
        srv.op("POST", "/setup/api/game", {"players": ["Ann", "Bob"]})
        n = len(srv.log())
        # refused by waitress on the Content-Length alone, before the body is buffered (issue 56):
        # the answer may come (and the connection close) while the body is still being sent
        big = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        big.putrequest("POST", "/rulings/api/corrections")
        for k, v in {"Content-Type": "application/json", "X-Masta-Token": srv.token,
                     "Content-Length": str(3 << 20)}.items():
            big.putheader(k, v)
        big.endheaders()
        try:
            big.send(b'{"type": "note", "text": "' + b"x" * (3 << 20))
        except OSError:
            pass
        r = big.getresponse()
        assert r.status == 413 and b"too large" in r.read().lower()
        big.close()
        # chunked: no Content-Length for the server to check up front
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        chunks = (b'{"type": "note", "text": "' + b"x" * (1 << 20) for _ in range(3))
        conn.request("POST", "/rulings/api/corrections", body=chunks, encode_chunked=True,
                     headers={"Content-Type": "application/json", "X-Masta-Token": srv.token,
                              "Transfer-Encoding": "chunked"})
        r2 = conn.getresponse()
        assert r2.status in (400, 413), (r2.status, r2.read()[:200])
        conn.close()
        assert len(srv.log()) == n
        assert request(srv.port, "GET", "/live/state.json").status == 200  # still serving


def test_open_pages_cannot_starve_the_operator(tmp_path):
    """Each open event stream holds a server thread: past the limit a new page is told to come
    back later (503), and the operator's posts and the pages are still answered."""
    from helpers_server import request

    from web.app import create_app
    from web.config import Config
    from web.events_stream import RESERVED_THREADS
    from web.server import BackgroundServer

    threads = RESERVED_THREADS + 4
    app = create_app(Config(data_dir=tmp_path, token=TOKEN, threads=threads))
    with BackgroundServer(app, threads=threads) as srv:
        streams = []
        for _ in range(4):
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            c.request("GET", "/stream")
            r = c.getresponse()
            assert r.status == 200
            streams.append((c, r))
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        c.request("GET", "/stream")
        r = c.getresponse()
        assert r.status == 503 and b"too many open pages" in r.read()
        for _ in range(RESERVED_THREADS + 2):  # more requests than free threads, one after another
            ok = request(srv.port, "POST", "/setup/api/game", {"players": ["Ann", "Bob"]},
                         headers={"X-Masta-Token": TOKEN}, timeout=10)
            assert ok.status == 201
        assert request(srv.port, "GET", "/live/", timeout=10).status == 200
        for c, _ in streams:
            c.close()


def test_camera_streams_count_against_the_same_limit(tmp_path):
    """A live page holds two streams when a camera runs (events + MJPEG): both are counted."""
    from helpers_server import request

    from web.app import create_app
    from web.config import Config
    from web.events_stream import RESERVED_THREADS
    from web.server import BackgroundServer

    threads = RESERVED_THREADS + 4
    app = create_app(Config(data_dir=tmp_path, token=TOKEN, threads=threads))
    app.extensions["masta.frames"].publish(b"\xff\xd8jpeg")
    with BackgroundServer(app, threads=threads) as srv:
        held = []
        for path in ("/stream", "/live/video.mjpg", "/stream", "/live/video.mjpg"):
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            c.request("GET", path)
            r = c.getresponse()
            assert r.status == 200, path
            r.fp.read(1)  # the stream has started
            held.append(c)
        for path in ("/live/video.mjpg", "/stream"):
            r = request(srv.port, "GET", path, timeout=10)
            assert r.status == 503 and b"too many open pages" in r.body, (path, r.status)
        assert app.extensions["masta.frames"].viewers == 2
        assert request(srv.port, "GET", "/live/frame.jpg", timeout=10).status == 200  # the still fallback
        ok = request(srv.port, "POST", "/setup/api/game", {"players": ["Ann", "Bob"]},
                     headers={"X-Masta-Token": TOKEN}, timeout=10)
        assert ok.status == 201
        for c in held:
            c.close()
