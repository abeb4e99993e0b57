"""Full games per second: 4 bot players on the default preset (`fr`), one core.

Target: >= 300 games/s with every game ending.  Prints games/s, how many games ended
(a game still going after the play cap counts as stuck), and per-game plays and burns.

    .venv/bin/python bench/simulate.py [--games 2000] [--preset fr] [--players 4]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.simulate import simulate  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--preset", default="fr")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    simulate(a.preset, a.players, 50, seed=a.seed + 1)  # warm up
    cpu0 = time.process_time()
    st = simulate(a.preset, a.players, a.games, seed=a.seed)
    cpu = time.process_time() - cpu0
    print(st.report())
    # wall clock is what a user sees; CPU time is the one core's own speed when the
    # machine is shared with other jobs
    print(f"GAMES_PER_S {st.games_per_s:.1f} (wall)  {st.games / cpu:.1f} (CPU time)  "
          f"ENDED {st.ended}/{st.games}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
