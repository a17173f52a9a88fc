"""War as a picture, drawn from what a seat observes: the two piles, the trick on the table and the
pot still to place.

Under the hidden observation the cards a player has not seen are drawn face down, and the other
pile is a face-down stack with its count: the picture holds nothing the observation does not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_gym.core import OracleResult
from tabletop_gym.envs.war.rules import RANK_CHARS, WarGame, WarRules, parse_deal
from tabletop_gym.render import FELT, PAPER, Picture, plan_status

_W, _H, _STEP = 22, 32, 17
_SOFT = "#b7d3bf"


def draw(observation: np.ndarray, info: Mapping[str, Any], *, hidden: bool, ranks: int, num_cards: int,
         seat: int = 0) -> Picture:
    """The position seen by ``seat`` from its ``observation`` (the layout of ``WarEnv``'s docstring)
    and the public parts of its ``info`` (``tricks``, ``cards``, ``pots``, ``game_over``)."""
    obs = np.asarray(observation)
    width = 150 + num_cards * _STEP + _W
    pic = Picture(width, 330, background=FELT)
    other = 1 - seat
    pic.text(16, 28, f"trick {int(info['tricks'])}", size=18, fill=PAPER)
    pic.text(width - 16, 28, f"cards you hold {int(info['cards'])}", size=14, fill=PAPER, align="end")
    pot = obs[-ranks:]
    if hidden:
        own = obs[:num_cards]
        faces = [(int(v) - 2) if v >= 2 else None for v in own[own > 0]]
        other_count = int(obs[num_cards])
        _pile(pic, 60, f"your pile ({len(faces)})", faces)
        _pile(pic, 110, f"player {other} ({other_count})", [None] * min(other_count, 1), other_count)
    else:
        piles = [obs[:num_cards], obs[num_cards : 2 * num_cards]]
        mine = [int(v) - 1 for v in piles[0] if v > 0]
        theirs = [int(v) - 1 for v in piles[1] if v > 0]
        _pile(pic, 60, f"your pile ({len(mine)})", mine)
        _pile(pic, 110, f"player {other} ({len(theirs)})", theirs)
    pic.line(16, 160, width - 16, 160, stroke=_SOFT)
    pots = np.asarray(info["pots"])
    for row, (label, p) in enumerate((("you played", seat), (f"player {other} played", other))):
        played = [int(r) for r in pots[p] if r >= 0]
        _pile(pic, 172 + row * 46, label, played)
    left = [r for r in range(ranks) for _ in range(int(pot[r]))]
    _pile(pic, 272, "pot to place", left)
    if info.get("game_over"):
        pic.text(width - 16, 318, "game over", size=14, fill=PAPER, align="end")
    return pic


def _pile(pic: Picture, y: float, label: str, cards: list[int | None], count: int | None = None) -> None:
    """A row of cards (a rank, or None face down) under ``label``; ``count`` written on a stack."""
    pic.text(16, y + 21, label, size=13, fill=PAPER)
    if not cards:
        pic.text(150, y + 21, "(none)", size=12, fill=_SOFT)
    for i, rank in enumerate(cards):
        pic.card(150 + i * _STEP, y, RANK_CHARS[rank] if rank is not None else "", _W, _H,
                 face_up=rank is not None, size=13)
    if count is not None and cards:
        pic.text(150 + _W + 8, y + 21, f"x {count}", size=13, fill=PAPER)


_PICKUPS_SHOWN = 16


def draw_plan(deal: str, result: OracleResult, rules: WarRules, horizon: int | None = None) -> Picture:
    """An oracle's plan as the pickups it orders: the plan is player 0's order of each pot it wins
    where the order can matter, so each row is one such pickup (the trick, the cards player 0 holds
    then as a bar, the pot's cards in the order they go under the pile), replayed through the engine;
    past ``_PICKUPS_SHOWN`` rows the rest is counted. The headline says the result and what it is
    worth: a bound that is not proven says "bound"."""
    from tabletop_gym.envs.war.table import episode_rules  # the horizon is the engine's trick limit

    game = WarGame(parse_deal(deal, rules), episode_rules(rules, horizon), controlled=0)
    pickups: list[tuple[int, int, list[int]]] = []  # (trick, cards held, the order placed)
    pots: list[Counter[int]] = []
    for rank in result.plan:
        trick = game.state.tricks
        if not pickups or pickups[-1][0] != trick:
            pickups.append((trick, game.state.cards_held(0), []))
            pots.append(Counter(game.state.to_place))
        pickups[-1][2].append(int(rank))
        game.apply(rank)
    for (_, _, order), pot in zip(pickups, pots, strict=True):
        # Once one rank is left the engine places the rest itself: copies of that one rank.
        order.extend(sorted((pot - Counter(order)).elements()))
    total = rules.num_cards
    if horizon is None:
        word = {1: "forced win", 0: "draw at best", -1: "forced loss"}[int(result.score)]
        headline = f"{word} in {result.stats.get('tricks', game.state.tricks)} tricks"
    else:
        headline = f"{result.score:g} cards after {horizon} tricks"
    status = plan_status(result.optimal, result.bound, "" if horizon is None else " cards")
    shown = pickups[:_PICKUPS_SHOWN]
    longest = max((len(order) for _, _, order in shown), default=1)
    bar = 120
    width = max(250 + (longest - 1) * _STEP + _W + 16, 560)
    more = len(pickups) > len(shown)
    pic = Picture(width, 84 + max(len(shown), 1) * 40 + (24 if more else 0), background=FELT)
    pic.text(16, 28, f"{headline}  ({status})", size=17, fill=PAPER)
    pic.text(16, 52, "each pickup of the plan: the trick, your cards then, the pot in the order placed",
             size=12, fill=_SOFT)
    if not pickups:
        pic.text(16, 94, "no pickup where the order matters: every order gives the same game", size=13,
                 fill=PAPER)
    for i, (trick, held, order) in enumerate(shown):
        y = 70 + i * 40
        pic.text(16, y + 21, f"trick {trick}", size=13, fill=PAPER)
        pic.rect(90, y + 8, bar, 14, fill="#24542f", stroke=_SOFT)
        pic.rect(90, y + 8, bar * held / total, 14, fill=PAPER)
        pic.text(90 + bar + 8, y + 21, f"{held}", size=12, fill=PAPER)
        for j, rank in enumerate(order):
            pic.card(250 + j * _STEP, y, RANK_CHARS[rank], _W, _H, size=13)
    if len(pickups) > len(shown):
        pic.text(16, 70 + len(shown) * 40 + 16, f"... and {len(pickups) - len(shown)} more pickups", size=13,
                 fill=_SOFT)
    return pic
