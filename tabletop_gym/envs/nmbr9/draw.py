"""Nmbr9 as a picture: the board seen from above, each cell coloured by its level and showing the
value of its top tile, with the card to place and the score.

Only the board and the card turned are drawn: the order of the cards still in the deck is hidden.
"""

from __future__ import annotations

from tabletop_gym.envs.nmbr9.rules import Nmbr9State, footprint
from tabletop_gym.render import INK, LEVEL_COLOURS, MUTED, Picture

_CELL = 22


def draw(state: Nmbr9State) -> Picture:
    """The board: a cell of height h (h tiles stacked, its top tile on level h-1) takes level h-1's
    colour; thick lines mark where the top tiles of two cells differ (a tile's edge), so the layout
    of each level reads as shapes. A legend names the levels' colours."""
    g = state.grid
    top, height = state.top_value, state.height
    board = g * _CELL
    pic = Picture(board + 200, max(board, 260) + 60)
    x0, y0 = 20, 40
    card = state.card
    headline = f"score {state.score}"
    pic.text(x0, 26, headline, size=18)
    for r in range(g):
        for c in range(g):
            h = int(height[r, c])
            fill = LEVEL_COLOURS[min(h, len(LEVEL_COLOURS) - 1)] if h else LEVEL_COLOURS[0]
            x, y = x0 + c * _CELL, y0 + r * _CELL
            pic.rect(x, y, _CELL, _CELL, fill=fill, stroke="#d8d4c8" if h == 0 else None)
            if h:
                pic.text(x + _CELL / 2, y + _CELL / 2 + 5, str(int(top[r, c])), size=13, align="middle")
    # A tile's edge: between a covered cell and a different top (another tile, or the table).
    for r in range(g):
        for c in range(g):
            if not height[r, c]:
                continue
            here = (int(top[r, c]), int(height[r, c]))
            x, y = x0 + c * _CELL, y0 + r * _CELL
            for dr, dc, line in ((-1, 0, (x, y, x + _CELL, y)), (1, 0, (x, y + _CELL, x + _CELL, y + _CELL)),
                                 (0, -1, (x, y, x, y + _CELL)), (0, 1, (x + _CELL, y, x + _CELL, y + _CELL))):
                rr, cc = r + dr, c + dc
                inside = 0 <= rr < g and 0 <= cc < g
                if not inside or (int(top[rr, cc]), int(height[rr, cc])) != here:
                    pic.line(*line, stroke=INK, width=2)
    side = x0 + board + 20
    pic.text(side, y0 + 14, "card to place", size=13, fill=MUTED)
    if card is None:
        pic.text(side, y0 + 50, "game over", size=18)
    else:
        pic.card(side, y0 + 22, str(card), 40, 56, size=26)
        pic.text(side + 50, y0 + 58, f"{state.turn + 1} of {len(state.deal.cards)}", size=12, fill=MUTED)
    pic.text(side, y0 + 104, f"discarded {state.discarded}", size=13, fill=MUTED)
    levels = max(1, int(height.max()))
    pic.text(side, y0 + 134, "levels", size=13, fill=MUTED)
    for level in range(levels):
        y = y0 + 144 + level * 22
        pic.rect(side, y, 18, 18, fill=LEVEL_COLOURS[min(level + 1, len(LEVEL_COLOURS) - 1)], stroke=INK)
        pic.text(side + 26, y + 14, f"level {level}" + (" (table)" if level == 0 else f": x{level}"),
                 size=12)
    return pic


_PANELS_PER_ROW = 3


def draw_levels(state: Nmbr9State, status: str) -> Picture:
    """A finished layout (an oracle's plan replayed), every level apart, the table's first: each
    level's tiles with their values on the layout's box, thick lines at tiles' edges, and the
    level's points; ``status`` says what the score is worth (``tabletop_gym.render.plan_status``)."""
    placed = [p for p in state.placements if p is not None]
    cells = {i: footprint(p.value, p.action, state.grid) for i, p in enumerate(placed)}
    every = [cell for fp in cells.values() for cell in fp] or [(0, 0)]
    r0, c0 = min(r for r, _ in every), min(c for _, c in every)
    rows, cols = max(r for r, _ in every) - r0 + 1, max(c for _, c in every) - c0 + 1
    levels = max((p.level for p in placed), default=0) + 1
    panel_w, panel_h = max(cols * _CELL, 150) + 30, rows * _CELL + 50
    across = min(levels, _PANELS_PER_ROW)
    pic = Picture(20 + across * panel_w, 70 + -(-levels // across) * panel_h)
    discarded = sum(p is None for p in state.placements)
    pic.text(20, 28, f"score {state.score}  ({status})", size=18)
    pic.text(20, 50, f"{len(placed)} tiles placed, {discarded} discarded", size=13, fill=MUTED)
    for level in range(levels):
        x0 = 20 + (level % across) * panel_w
        y0 = 70 + (level // across) * panel_h
        tiles = {i: p for i, p in enumerate(placed) if p.level == level}
        owner = {cell: i for i in tiles for cell in cells[i]}
        points = level * sum(p.value for p in tiles.values())
        count = f"{len(tiles)} tile" + ("" if len(tiles) == 1 else "s")
        pic.text(x0, y0 + 14, f"level {level}: {count}, {points} points", size=13)
        top = y0 + 24
        for r in range(rows):
            for c in range(cols):
                x, y = x0 + c * _CELL, top + r * _CELL
                i = owner.get((r + r0, c + c0))
                if i is None:
                    pic.rect(x, y, _CELL, _CELL, fill=LEVEL_COLOURS[0], stroke="#d8d4c8")
                    continue
                pic.rect(x, y, _CELL, _CELL, fill=LEVEL_COLOURS[min(level + 1, len(LEVEL_COLOURS) - 1)])
                pic.text(x + _CELL / 2, y + _CELL / 2 + 5, str(tiles[i].value), size=13, align="middle")
        for (r, c), i in owner.items():
            x, y = x0 + (c - c0) * _CELL, top + (r - r0) * _CELL
            for dr, dc, line in ((-1, 0, (x, y, x + _CELL, y)), (1, 0, (x, y + _CELL, x + _CELL, y + _CELL)),
                                 (0, -1, (x, y, x, y + _CELL)), (0, 1, (x + _CELL, y, x + _CELL, y + _CELL))):
                if owner.get((r + dr, c + dc)) != i:
                    pic.line(*line, stroke=INK, width=2)
    return pic
