"""Oracles for Modern Art: the most one seat can score when every player plays to help it.

With all hands and draws known and every player's plays chosen for the seat, no opponent behaviour can
give the seat more, so this is an upper bound on what any agent scores in that deal.

Two parts, reported separately and never mixed up:

- **plan** (``score``): beam searches through the engine itself over every player's decisions (a
  portfolio of ways to value the seat's cards in hand, ``PORTFOLIO``), ranked by the seat's points so
  far plus what the current round would pay it if it ended now; and the model's best solutions (see
  below) played out through the engine by ``realize``, which searches an order for each round's
  plays (depth first, then in seeded shuffled restarts). Where it stops early, the game model is
  solved again once with the rounds played fixed and its solutions realized from there
  (``replanned``); a beam goes on from where that stops. Where no solution needed that, its budget
  plans the plan's later rounds again the same way, from each round's start with the rounds
  before fixed to the plan's (a smaller search than the whole game's: on the two-round bench deal 0
  of 2 players the plan goes from 109 to 113 with a ``time_limit`` of 30). What realizing and
  planning again leave of their budget goes to ``lns_plan``: CP-SAT's neighbourhood search alone on
  the game model, from the best plan, with a pool of its last solutions played out best first (that
  deal: 113 to 118, at the same total work). The best plan is replayed through the engine to its
  score before it is returned.
- **bound**: ``build_model``, a CP-SAT model of the whole game at the level of rounds with every
  player: per round, player and card kind the turn cards, second cards and face-down cards; the cards
  each player receives, exactly by deck position (deals from the starter after the draws so far, the
  draws as the next positions); turn order with the empty-hand exception; every symbol; the round end
  with its overshoot; the exact ranking with board-order ties; values, awards and pay. Each constraint
  and its argument is in ``build_model``'s docstring; every real game is a solution of it with the
  seat's real score as objective (tests fix real games in it and check this), so CP-SAT's proven
  bound on its optimum bounds the seat's score. It leaves out the order of plays inside a round, so
  it is a relaxation: ``optimal`` is true only when the bound meets the plan.
  The plan hints the search, so CP-SAT starts from a real game. Where CP-SAT proves nothing in time,
  ``seat_round_bound`` (the first, seat-only round model: weaker, but fast) gives the bound.
  ``artist_path_bound`` is a third relaxation, an LP solved in about a second by column
  generation: each artist follows a path of values, the seat's cards and its own displayed cards
  through the rounds, so one artist's value pays for that artist's cards only. Per deal, each path
  also keeps the seat's cards of its artist within what the game model lets the seat display over
  the whole game (``_seat_supply``: a short CP-SAT proof per artist). The game model's LP
  instead pools the seat's cards across artists (a value token split over several artists pays for
  cards of all of them), which is why its bound stays high; the path LP cuts it by a third to
  two fifths. The reported bound is the smaller of the two.

On one-round games (``ModernArtRules(deals=(13,))``, ``--rounds 1``) the game model meets the plans:
with 2 and 3 players CP-SAT proves its optimum in seconds and a solution at it is played out, so the
plan is proven optimal (the bench: 8 of 8 deals each). With two rounds or more the proofs mostly
do not finish, and plans and bounds are still far from meeting on full deals (see the bench).
Fixing every round's ranking and award tokens makes the game model's LP tight (CP-SAT then proves
the restricted optimum in seconds), but with them free no formulation tried here comes near the
plans, and proofs need search the time limits do not allow.

Over all deals (``free_deal``) the same model with free cards gives the bound, and its solutions
give plans: ``realize_free`` decides the deck as the realization reaches each position (the cards a
solution has a player receive are dealt or drawn to it when play needs them), so a solution becomes
a deal and a game of it, replayed through the engine like every plan.

``brute_force`` searches every line of play exhaustively (with memory of positions); it is exact and
only meant for tiny decks, to check the other two in tests.

Where a proof does not finish, the bound and the plan depend on how much search was done. So no
limit here is a clock: CP-SAT runs on deterministic time with its search interleaved
(``WORK_PER_SECOND``), realizations count positions (``POSITIONS_PER_SECOND``), the path LP
counts rounds. The same deal, seat, rules and ``time_limit`` give the same bound and plan on every
run and machine (with the same OR-Tools), so scores measured against the bound can be compared
between users; a faster machine only finishes sooner.

The code, one module per part: ``model`` (``build_model``, from the rule families in
``model_cards``, ``model_turns`` and ``model_rounds`` on ``model_base``), ``bounds`` (the CP-SAT
bounds), ``paths`` (the artist-path LP), ``solutions`` (between games and model solutions),
``realization`` (solutions played out through the engine), ``lns`` (plans from CP-SAT's
neighbourhood search on the game model), ``beam`` (beam and portfolio plans),
``brute`` (exhaustive search), ``oracle`` (``solve``), ``free`` (the free-deal oracle) and ``limits``
(``ModernArtLimits``, the command line's width and work limit).
"""

from __future__ import annotations

from tabletop_gym.oracles import lazy_exports
from tabletop_gym.oracles.modern_art.common import (
    GAME,
    MAX_FREE_DEALS,
    MAX_TIME_LIMIT,
    MAX_WIDTH,
    MAX_WORKERS,
    ORACLE_REVISION,
    POSITIONS_PER_SECOND,
    SUPPLY_WORK_PER_SECOND,
    WORK_PER_SECOND,
)
from tabletop_gym.oracles.modern_art.limits import ModernArtLimits

# The solvers (CP-SAT models, searches) are imported on first use: the limits, a cached answer and
# its check need none of them.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "beam": ("PORTFOLIO", "_key", "_promise", "beam_search", "portfolio_search"),
        "bounds": (
            "_complete_hint",
            "_seat_supply",
            "_solve_for",
            "_solve_relaxation",
            "relaxation_bound",
            "seat_round_bound",
        ),
        "brute": ("brute_force",),
        "free": ("free_deal", "free_deal_bound", "free_deal_search", "stacked_deal"),
        "lns": ("lns_plan",),
        "model": ("_deck_tables", "_received_by", "_seat_reach", "build_model"),
        "oracle": ("check", "solve", "solve_cached"),
        "paths": ("_ArtistPaths", "_path_bound_or_none", "_path_master", "artist_path_bound"),
        "realization": (
            "FIXED_ORDER_SHARE",
            "RESTART_NODES",
            "_Positions",
            "_sources_left",
            "_turns_can_alternate",
            "realize",
            "realize_free",
            "replanned",
        ),
        "solutions": ("_Collector", "_hint", "_plan_values", "plan_plays", "solution_plays"),
    },
)

# The package's API as the single module had it (tests reach some private helpers through it too).
__all__ = [
    "beam_search", "portfolio_search", "brute_force", "build_model", "relaxation_bound", "seat_round_bound",
    "artist_path_bound",
    "solve", "solve_cached", "check", "free_deal_bound", "free_deal_search", "stacked_deal", "free_deal",
    "realize", "realize_free", "replanned", "plan_plays", "solution_plays", "lns_plan",
    "ModernArtLimits",
    "GAME", "ORACLE_REVISION", "MAX_WIDTH", "MAX_TIME_LIMIT", "MAX_WORKERS", "MAX_FREE_DEALS", "PORTFOLIO",
    "POSITIONS_PER_SECOND", "WORK_PER_SECOND", "SUPPLY_WORK_PER_SECOND", "FIXED_ORDER_SHARE", "RESTART_NODES",
    "_ArtistPaths", "_Collector", "_Positions", "_complete_hint", "_deck_tables", "_hint", "_key",
    "_path_bound_or_none", "_path_master", "_plan_values", "_promise", "_received_by", "_seat_reach",
    "_seat_supply", "_solve_for", "_solve_relaxation", "_sources_left", "_turns_can_alternate",
]  # fmt: skip
