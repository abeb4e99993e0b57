"""Screenshots of every page at phone and laptop widths for docs/ and the README.

    .venv/bin/python -m web.screenshots [--out docs/screenshots]

Plays a short evening through the real app (two games, a misread corrected, an order and a
vote), then photographs each page with Debian's chromium. With the models in models/, also
the teach page halfway through teaching a deck from a rendered video (`teach-phone.png`).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
WIDTHS = {"phone": (390, 844), "laptop": (1280, 800)}
PAGES = {"live": "/live/", "rulings": "/rulings/", "manual": "/manual/", "evening": "/evening/",
         "setup": "/setup/", "export": "/export/"}
TOKEN = "screenshot-token"


def _post(base: str, path: str, body: dict) -> dict:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Masta-Token": TOKEN,
                                          "X-Masta-By": "Dee"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def play_evening(base: str) -> None:
    ev = lambda body: _post(base, "/manual/api/events", body)  # noqa: E731
    fix = lambda body: _post(base, "/rulings/api/corrections", body)  # noqa: E731
    _post(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee"})
    for cards in (["5H"], ["7S"], ["4D"]):
        ev({"type": "cards_played", "cards": cards, "conf": [0.97] * len(cards)})
    fix({"type": "correct", "event": 4, "cards": ["8D"]})
    fix({"type": "note", "text": "Cy's card was half hidden by a sleeve", "event": 4})
    seqs = [ev({"type": "player_out", "player": p})["event"]["seq"] for p in ("Bob", "Ann", "Cy")]
    for s in seqs:
        fix({"type": "confirm", "event": s})
    _post(base, "/setup/api/game", {"players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee"})
    _post(base, "/evening/api/events", {"type": "order", "player": "Bob", "text": "Dee shuffles with a smile"})
    # with seat zones drawn, each play says from which side it came; the 9S came from Cy's side
    # while the referee took Bob (a Turbo?): the rulings page asks who
    sides = ["Ann", "Bob", "Cy", "Dee", "Cy", "Cy"]
    for cards, side in zip((["6C"], ["6D", "6S"], ["QH"], ["10C"], ["9S"], ["3H"]), sides):
        ev({"type": "cards_played", "cards": cards, "meta": {"seat": side}})
    ev({"type": "cards_played", "cards": ["4C"]})
    # something landed that the camera could not read: the operator picks its cards (a shot of its own)
    ev({"type": "note", "text": "camera mismatch: something landed on the pot but no new card could be read",
        "meta": {"mismatch": True, "cards": []}})


def main() -> int:
    ap = argparse.ArgumentParser(description="screenshots of every page")
    ap.add_argument("--out", default="docs/screenshots")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install -y chromium", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    from .app import create_app
    from .config import Config
    from .server import BackgroundServer

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        app = create_app(Config(data_dir=Path(d), token=TOKEN))
        with BackgroundServer(app, threads=16) as srv, sync_playwright() as p:
            play_evening(srv.url)
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            for kind, (w, h) in WIDTHS.items():
                ctx = browser.new_context(viewport={"width": w, "height": h}, device_scale_factor=1)
                page = ctx.new_page()
                page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee")
                for name, path in PAGES.items():
                    page.goto(srv.url + path)
                    page.wait_for_load_state("networkidle") if name not in ("live", "rulings", "manual", "evening") else page.wait_for_timeout(600)
                    target = out / f"{name}-{kind}.png"
                    page.screenshot(path=str(target), full_page=(kind == "laptop"))
                    print(target)
                if kind == "phone":  # a check answered with the card picker: a rank, then its suits
                    page.goto(srv.url + "/rulings/")
                    check = page.locator("article.entry .doubt").first
                    check.locator("details.namer > summary").click()
                    check.locator('.cpick-rank[data-rank="5"]').click()
                    check.locator('.cpick-suit[data-card="5D"]').click()
                    check.scroll_into_view_if_needed()
                    target = out / "rulings-pick-phone.png"
                    page.screenshot(path=str(target))
                    print(target)
                ctx.close()
            teach_shot(browser, out, Path(d))
            browser.close()
    return 0


def teach_shot(browser, out: Path, work: Path) -> Path | None:
    """The teach page on a phone, two cards learnt and the third asked for: a camera of its own
    watching a rendered video of the first cards shown one at a time."""
    from datasets.game_video import GameRenderer, VideoSpec, deck_script

    from .app import create_app
    from .camera import attach_camera, find_model, load_detector, wait_for
    from .config import Config
    from .server import BackgroundServer

    model = find_model()
    if model is None:
        return None
    spec = VideoSpec(seed=11, players=["Ann", "Bob"], faces="drawn-01", width=1280, height=720, card_height=144)
    video = GameRenderer(spec, deck_script(["AS", "2S", "3S"], spec.players)).render(
        work / "teach.mp4", frames_truth=False)["video"]
    app = create_app(Config(data_dir=work / "teach", token=TOKEN))
    runner = attach_camera(app, load_detector(model), str(video), pace=True, live=True)
    teacher = app.extensions["masta.teacher"]
    try:
        with BackgroundServer(app, threads=16) as srv:
            ctx = browser.new_context(viewport={"width": WIDTHS["phone"][0], "height": 1200}, device_scale_factor=1)
            page = ctx.new_page()
            page.goto(f"{srv.url}/auth?token={TOKEN}&name=Dee&next=/teach/")
            page.get_by_role("button", name="Start").click()
            wait_for(lambda: len(teacher.state()["taught"]) >= 2, 60)
            page.wait_for_timeout(800)
            target = out / "teach-phone.png"
            page.screenshot(path=str(target), full_page=True)
            print(target)
            ctx.close()
            teacher.cancel()
            teacher.wait(30)
    finally:
        runner.stop()
    return target


if __name__ == "__main__":
    sys.exit(main())
