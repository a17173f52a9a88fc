"""Plans that bound the kingdom search from above: the money bots' and beam searches over whole turns."""

from __future__ import annotations

from tabletop_gym.agents.dominion import BOTS, play_game
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles.dominion.kingdom import _KingdomSearch


def _bot_plan(seed: int, target: int, kingdom: tuple[int, ...] = ()) -> tuple[int, list[int]]:
    """The best of the money bots on this seed: an upper bound and its plan."""
    best: tuple[int, list[int]] | None = None
    names = ["big-money", "big-money-ultimate", "buy-money-and-duchy"]
    if R.SMITHY in kingdom:
        names.append("smithy-big-money")
    for name in names:
        state = play_game([BOTS[name]()], seed, kingdom, target=target, turn_limit=100)
        if state.done and not state.truncated and state.owned[0][R.PROVINCE] >= target:
            turns = state.turns[0]
            if best is None or turns < best[0]:
                best = (turns, [a for _, a in state.history])
    assert best is not None
    return best


def _beam_score(search: _KingdomSearch, pos: tuple) -> float:
    """How promising a turn start is for the beam: Provinces owned first, then the coins a hand of
    this deck is worth (its cards drawing more hands), then Golds."""
    draw, discard, hand = pos[0], pos[1], pos[2]
    owned = [d + h for d, h in zip(discard, hand, strict=True)]
    for c in draw:
        owned[c] += 1
    cards = sum(owned)
    money = sum(o * v for o, v in zip(owned, search.value, strict=True))
    draws = sum(o * p for o, p in zip(owned, search.plus_cards, strict=True))
    drawn = R.HAND_SIZE + R.HAND_SIZE * draws / cards
    return 20 * search.provinces(pos) + money * min(drawn, cards) / cards + 0.2 * owned[search.gold]


def beam_plan(seed: int, target: int, kingdom: tuple[int, ...], width: int = 40,
              work_limit: int | None = None, max_turns: int = 40) -> tuple[int, list[int]] | None:
    """A plan by beam search over whole turns (every outcome of each kept turn start, the ``width``
    most promising kept): fast and usually near the optimum, but no proof. None if none found."""
    return _beam(_KingdomSearch(seed, target, kingdom, work_limit=work_limit), width, max_turns)


def _beam(search: _KingdomSearch, width: int, max_turns: int = 40) -> tuple[int, list[int]] | None:
    level: list[tuple[tuple, list[int]]] = [(search.start(), [])]
    for turn in range(1, max_turns + 1):
        candidates: dict[tuple, list[int]] = {}
        for pos, plan in level:
            for child, steps in search.children(pos):
                if search.provinces(child) >= search.target:
                    return turn, plan + steps
                candidates.setdefault(child, plan + steps)
            if search.work > search.work_limit:
                return None
        ranked = sorted(candidates, key=lambda child: -_beam_score(search, child))
        level = [(child, candidates[child]) for child in ranked[:width]]
    return None
