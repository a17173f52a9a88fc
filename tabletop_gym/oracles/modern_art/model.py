"""The game-level CP-SAT relaxation, ``build_model``: one function per rule family, in
``model_cards``, ``model_turns`` and ``model_rounds``, applied in a fixed order."""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from tabletop_gym.envs.modern_art.rules import ModernArtRules
from tabletop_gym.oracles.modern_art.common import _require_modelled
from tabletop_gym.oracles.modern_art.model_base import _deck_tables, _Game, _received_by, _seat_reach
from tabletop_gym.oracles.modern_art.model_cards import (
    _cards_held,
    _cards_played,
    _cards_received,
    _extra_cards,
    _first_draws,
    _starters_and_draws,
)
from tabletop_gym.oracles.modern_art.model_rounds import _pay, _ranking, _round_end
from tabletop_gym.oracles.modern_art.model_turns import _draw_order, _symbols, _turn_counts

__all__ = ["build_model", "_deck_tables", "_received_by", "_seat_reach"]


def build_model(
    rules: ModernArtRules,
    cards: Sequence[int] | None,
    seat: int = 0,
    scoring: bool = True,
    draw_order: bool = True,
) -> tuple[cp_model.CpModel, dict]:
    """The CP-SAT relaxation of the whole game for ``seat`` (``cards=None``: over every deal).
    With ``scoring=False`` the model stops before the ranking and pay (no objective): what is left
    still holds in every real game, and proofs about the cards played come faster; with
    ``draw_order=False`` the order of a round's draws is left out too (a weaker model, still valid).

    Variables, per round ``r``, player ``p`` and card kind ``k``: turn cards, face-up second cards
    (double or simultaneous) and face-down cards; per round the starter, the draws, the award tokens
    placed and the ranking. Every constraint holds in every real game, so the optimum (or CP-SAT's
    proven bound on it) bounds the seat's score. Each with its argument:

    - *Cards*: what a player displays by the end of round ``r`` it received by then. Fixed deal: its
      first hand, its share of each later deal (dealt one at a time from the starter, starting after
      the cards drawn so far, so a table indexed by the draws so far and the seat's offset from the
      starter gives it exactly) and the cards drawn: round ``r``'s draws are exactly the next deck
      positions after that round's deal, shared among the players who drew, each drawing at most once
      per draw card it played as a turn card and, where the deck cannot run out, drawing for every
      such card but the one that ended the round; a hand grows in a round only by its own draws, so
      the first draw card a player plays in a round was in its hand at the round's start: some kind
      it plays as a draw turn card it held then (cards of a kind are alike). The draws come in turn
      order: a player's turns are the first laps of the round (an emptied hand stays empty), each draw
      index is drawn in one of its drawer's turns and after the index before it (lap x players + place
      from the starter), a player draws first no later than its held cards without a draw symbol
      allow, a turn card of a kind it did not hold at the round's start was drawn at an earlier
      turn of its own, and a player's draws up to each index are no more than the draw cards it held
      at the round's start plus those it drew at earlier indices (each draw spends a draw card in
      hand, and the card drawn at an index is not in hand before it). Free deal: any cards, as
      many as the deck holds of each kind, each player receiving exactly its dealt count plus its
      draws.
    - *Turns*: players take turns in order from the starter, one turn card each, skipping only a
      player whose hand is empty, and an emptied hand stays empty for the round (cards arrive only by
      drawing, which needs a turn). So a player earlier in the order than another takes at least as
      many turns, a later one at most one fewer, unless its hand is empty at the round's end. A hand
      is empty at the round's end exactly when all its cards were played.
    - *Who ends*: the player whose turn it was, so no one took a turn after its last (in the order
      from the starter, players before it took at most as many turns, players after it at most one
      fewer). The next round starts to its left. With no hand empty,
      everyone from the starter to the ender took one turn more than everyone after the ender. Unless
      every hand is empty, the ender displayed a card of an artist at the limit or played a
      simultaneous card.
    - *The last display*: it is the ender's turn card (with a double's second card or one
      simultaneous card per other player). Every artist is below the limit before it, so of one
      artist at most one turn card (the last) lies above ``limit - 1``; the cards above ``limit - 1``
      are the last turn card, a double's second card of its artist, or (when the last turn card is
      simultaneous) one card per other player, each a second card of the same artist in this round
      of a player other than the ender that answers a simultaneous card (not a double's second
      card), and no player answers twice (one card each, of one artist);
      and only then can more than one artist pass ``limit - 1``. Unless every hand is empty there is
      a last turn card, and when it is an award card its display reached the limit, so it places no
      award token. A draw card that does not draw (where the deck cannot run out) is that last turn
      card.
    - *Symbols*: a double's second card is of its artist, a hidden card brings at most one face-down
      card, each simultaneous turn card at most one card from every other player, award tokens need
      award turn cards and there are only so many; second cards bring no symbol of their own.
    - *Round end*: the round ends when an artist reaches the limit of face-up cards (the extra card
      counts) or when every hand is empty. Until the last display every artist is below the limit; the
      last display (a double with its second card, or a simultaneous card with every other player's
      card) adds at most ``max(2, players)`` cards above ``limit - 1`` in all (plus one per player and
      artist with end-of-round plays). If no artist reached the limit every hand is empty.
    - *Ranking and pay*: the artists rank by cards this round (face-down and extra included), ties
      to board order, exactly as the engine ranks; tokens go to the placing artists, award tokens
      stay, and the seat is paid value x own cards only for placing artists. Of one artist the seat
      has at most the face-up limit's worth plus the hidden cards it can hold by then, and no more
      than it can have received by then under any starters and draws (``_seat_reach``).

    Left out (so the optimum may be above the best real play): the order of plays inside a round
    beyond the order of draws (a second card may be any held card, and when in the round it is
    played), and that the triggering card's symbol is not resolved (but for draws, hidden cards and
    awards).
    """
    _require_modelled(rules)
    g = _Game(rules, cards, draw_order)
    # The order of the families is the order of the variables and constraints (CP-SAT's search
    # depends on it): keep it.
    _cards_played(g)
    _starters_and_draws(g)
    _extra_cards(g)
    _cards_received(g)
    _cards_held(g)
    _first_draws(g)
    _turn_counts(g)
    _draw_order(g)
    _symbols(g)
    _round_end(g)
    handles = {
        "turn": g.turn, "sec": g.sec, "down": g.down, "aw": g.aw, "st": g.st, "dr": g.dr, "recv": g.recv,
        "extra": g.extra, "took": g.took, "played": g.played, "draw_lap": g.draw_lap,
    }  # fmt: skip
    if not scoring:
        return g.m, handles
    _ranking(g)
    _pay(g, seat)
    handles["place"] = g.place
    return g.m, handles
