"""How fast the rulings page follows a long evening on a phone: from an event taken by the
table (as the camera or a correction's POST hands it over) to its ruling drawn on the page, in
a real browser (Debian's chromium, a phone's viewport).

    .venv/bin/python bench/rulings_page.py [--events 400] [--games 0] [--everything] [--rounds 8]

The evening is `--games` whole bot games of `fr` (4 players), then one more (seed 2) cut after
`--events` events; the page shows that last game's events, or every event with `--everything`.
Each round posts one camera play (a card the referee rules) and then corrects an earlier play of
that game (which rules every play after it again), and waits for each to show on the page.
Printed: the page's elements, and the median and worst time from the event to the ruling on the
page, for each kind. Target: a ruling on the page within 0.5 s, as the camera's
(bench/pipeline.py's latency).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
TOKEN = "bench-token"
EARLIER = [1, 3, 4, 5]  # seeds of the bot games an evening may hold before the timed one


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=400, help="events of the evening before the page opens")
    ap.add_argument("--games", type=int, default=0, choices=range(len(EARLIER) + 1),
                    help="whole games played before it, as an evening goes on (380, 380, 176, 130 events)")
    ap.add_argument("--everything", action="store_true",
                    help="with the earlier games' events shown too (the page's \"Show them\")")
    ap.add_argument("--rounds", type=int, default=8, help="plays and corrections timed")
    args = ap.parse_args()
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium)")
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=60_000)  # measured, not judged: a slow page is waited for

    from referee.camera_stream import stream_game
    from web.app import create_app
    from web.config import Config
    from web.server import BackgroundServer

    with tempfile.TemporaryDirectory() as d, sync_playwright() as p:
        app = create_app(Config(data_dir=Path(d), token=TOKEN))
        with BackgroundServer(app, threads=16) as srv:
            table = app.extensions["masta.table"]
            for seed in EARLIER[:args.games]:
                for raw, source in stream_game("fr", 4, seed).submitted(after=len(table.log)):
                    table.submit(raw, source=source)
            for raw, source in stream_game("fr", 4, 2).submitted(after=len(table.log))[:args.events]:  # 528 events
                table.submit(raw, source=source)
            if table.game_over():
                raise SystemExit(f"the game is over within {args.events} events: ask for fewer")
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.set_default_timeout(30_000)
            t0 = time.perf_counter()
            page.goto(f"{srv.url}/auth?token={TOKEN}&name=Ann&next=/rulings/")
            expect(page.locator(f"#e{len(table.log)} .out")).to_be_attached()
            if args.everything and args.games:
                page.locator(".earlier .show-earlier").click()
                expect(page.locator("#entries > article")).to_have_count(len(table.log))
            load = time.perf_counter() - t0
            elements = page.evaluate("document.querySelectorAll('*').length")
            total = len(table.log)
            start = table.referee.game.setup_seq
            plays = [e["seq"] for e in table.log if e["type"] == "cards_played" and e["seq"] > start]
            new, fix = [], []
            for i in range(args.rounds):
                # a 2 is played on anything in `fr`: a ruling every time, the game going on
                t0 = time.perf_counter()
                seq = table.submit({"type": "cards_played", "cards": ["2" + "CDHS"[i % 4]]}, source="camera")["event"]["seq"]
                expect(page.locator(f"#e{seq} .out .tag").first).to_be_visible()
                new.append(time.perf_counter() - t0)
                # a play mid-evening corrected to what it was: every play after it ruled again
                target = plays[len(plays) // 2 + i]
                before = page.locator(f"#e{target} .fixes div").count()
                t0 = time.perf_counter()
                seq = table.submit({"type": "correct", "event": target,
                                    "cards": table.log[target - 1]["cards"]}, source="operator")["event"]["seq"]
                expect(page.locator(f"#e{target} .fixes div")).to_have_count(before + 1)
                expect(page.locator(f"#e{seq}")).to_be_attached()
                fix.append(time.perf_counter() - t0)
            browser.close()
    print(f"bench/rulings_page.py: {os.cpu_count()} CPU(s); an evening of {total} events ({args.games} whole "
          f"game(s) and {args.events} events of the next{', all shown' if args.everything else ''}), "
          f"the rulings page in chromium at 390x844; {elements} elements; first drawn in {load:.2f} s")
    for name, xs in (("a new camera play", new), ("a correction mid-evening", fix)):
        print(f"  {name}: event -> on the page median {statistics.median(xs):.2f} s, worst {max(xs):.2f} s "
              f"({len(xs)} times)  [{'OK' if statistics.median(xs) <= 0.5 else 'over'} the 0.5 s target]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
