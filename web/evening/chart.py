"""The finishing-place chart as inline SVG (no chart library, nothing downloaded)."""
from __future__ import annotations

from markupsafe import escape

PALETTE = ("#ffd34d", "#4fc3f7", "#ef5350", "#81c784", "#ba68c8", "#ff8a65", "#90a4ae",
           "#f06292", "#aed581", "#7986cb", "#4db6ac", "#e0e0e0")
#: the labels' size in the picture's units: 15 of 400 is 12.6 px on a 390 px phone's 336 px panel
FONT = 15


def places_chart(games: list[dict], width: int = 400, height: int = 250) -> str:
    """One line per player: their finishing place (1 = MASTA, at the top) game by game.

    Drawn narrow with big type: a phone shrinks the whole picture to its width, and the
    labels must stay legible there (at least 11 px at 390 px)."""
    if not games:
        return (f'<svg class="chart" viewBox="0 0 {width} 60" role="img" aria-label="no finished game yet">'
                f'<text x="10" y="35" font-size="{FONT}" fill="#b9c4bb">No finished game yet.</text></svg>')
    players: list[str] = []
    for g in games:
        for p in g["order"]:
            if p not in players:
                players.append(p)
    max_place = max(len(g["order"]) for g in games)
    left, right, top, bottom = 30, 100, 16, 32
    pw, ph = width - left - right, height - top - bottom
    n = len(games)

    def x(i: int) -> float:
        return left + (pw * i / (n - 1) if n > 1 else pw / 2)

    def y(place: int) -> float:
        return top + (ph * (place - 1) / (max_place - 1) if max_place > 1 else ph / 2)

    out = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="finishing places game by game">']
    for place in range(1, max_place + 1):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(place):.1f}" y2="{y(place):.1f}" stroke="#2d5a43"/>'
                   f'<text x="{left - 8}" y="{y(place) + 4:.1f}" text-anchor="end" font-size="{FONT}" fill="#b9c4bb">{place}</text>')
    for i, g in enumerate(games):
        out.append(f'<text x="{x(i):.1f}" y="{height - 10}" text-anchor="middle" font-size="{FONT}" '
                   f'fill="#b9c4bb">{escape(str(g.get("game", i + 1)))}</text>')
    for k, p in enumerate(players):
        colour = PALETTE[k % len(PALETTE)]
        pts = [(x(i), y(g["order"].index(p) + 1)) for i, g in enumerate(games) if p in g["order"]]
        if len(pts) > 1:
            path = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        for a, b in pts:
            out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="4" fill="{colour}"><title>{escape(p)}</title></circle>')
        out.append(f'<text x="{left + pw + 10}" y="{top + (FONT + 3) * k + 4}" font-size="{FONT}" fill="{colour}">'
                   f'{escape(p)}</text>')
    out.append("</svg>")
    return "".join(out)
