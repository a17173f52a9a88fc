"""Exact oracle for solitaire Dominion: the fewest turns in which any play of a seed owns the target.

Clairvoyant optimum. The seed fixes every shuffle through the project's randomness model
(``rules.shuffle_cards``: a function of seed, player, shuffle count and the multiset shuffled), so the
game is deterministic once the decisions are; the oracle finds the fewest turns over *all* decision
sequences, a bound that no policy can beat on that seed.

The treasure-and-victory game (no kingdom cards) has one decision a turn: which card to buy, if any
(Treasures are played automatically; one Buy). Every affordable card is a real option here, even a
Curse: a card changes the multiset of the next shuffle and so the order of every later draw.

The search works on the position at the start of a turn's buy: (draw pile in order, discard pile,
hand, shuffles made) as counts of the seven base cards; everything else follows from it. It is an
iterative deepening on the turn count T (T = lower bound, lower bound + 1, ...), each a depth-first
search with
- a proven lower bound on the turns still needed: the hands drawn from the current draw pile are
  already fixed (bought cards go to the discard pile), so the turns in which a Province is
  affordable are known until the next shuffle; after that, one Province a turn at most. And a
  Province needs $8 in a 5-card hand: the best 5 Treasures owned after the buys so far (at most one
  card a turn, and a card bought this pass through the draw pile is seen only after the next
  shuffle) must reach $8;
- transpositions: a table of positions proven unable to finish within a number of turns (valid
  across iterations).
An iteration that fails proves the optimum exceeds T, so an interrupted search still returns a
proven lower bound on the turns. Every plan is replayed through the engine
(``tabletop_gym.envs.dominion.rules.replay``) to the claimed turn count before it is reported.

With kingdom cards (``solve(..., kingdom="smithy,village")``, any of the ten First Game cards, all
ten together included) a second search, ``_KingdomSearch``, expands each turn into every distinct
outcome: every order of playing Actions, every answer to the choices inside them (the multiset
Cellar discards, the Treasure Mine trashes and the one it gains, the card Remodel trashes and the
one it gains, Workshop's gain) and every multiset of buys; identical cards are one choice and
outcomes that lead to the same turn start are merged. It proves its own lower bound, valid whatever
is played (see its docstring: a dynamic programme over the known draw pile in which each turn may
draw what its Actions can, then a cap on Provinces per turn from the deck's coins, Buys and
Remodels). The best of several plans bounds it from above: the money bots'; and, when a first
share of the work does not settle it, beam searches over whole turns and the plans of sub-kingdoms
solved exactly (a kingdom's optimum is never worse than a sub-kingdom's: the treasure game and, with
two cards or more, each card alone, every one stopped as soon as it cannot beat the best plan so
far); then the search goes on with the rest of the work. It is cross-checked against a
breadth-first search through the engine itself (every legal answer to every decision, Cellar, Mine,
Remodel and Workshop included), and on the empty kingdom against the treasure search.

Every limit is work, not seconds: ``work_limit`` counts the positions the searches generate, shared
by the seed plans and the exact search, so the same call gives the same answer on every machine (a
wall-clock ``time_limit`` is available, off by default). Tractability, measured by ``tabletop-gym
bench dominion`` (README): the treasure game and Smithy to 4 Provinces are proven in seconds; the
First Game kingdom to 4 Provinces is not proven within the default work (its lower bound stays far
below the plans found: its cheap relaxation lets every card gained be a Gold, a Market and a Remodel
at once, and each deeper iteration costs 10-20 times the one before), while 1 Province usually is.

Scores follow the package convention (higher is better, ``bound`` an upper bound on any play):
``score = -turns of the plan``, ``bound = -proven lower bound on turns``; ``optimal`` when they meet.

The code, one module per part: ``treasure`` (the treasure game's search), ``kingdom`` (the search
with kingdom cards: its model of a turn and its iteration), ``bounds`` (the kingdom search's lower
bound, from what the engine's tables say each card can do), ``plans`` (the bots' and the beams'
plans), ``oracle`` (``solve``: the searches seeded by the plans, results replayed, the cache),
``limits`` (``DominionLimits``: the work and wall-clock time a deal may take, as the command line
offers them) and ``common`` (what they share). What each card does is read from the engine
(``rules.PLUS_CARDS``, ``rules.PLUS_ACTIONS``, ``rules.PLUS_BUYS``, ``rules.PLUS_COINS``,
``rules.COINS``, ...), never written here a second time.
"""

from tabletop_gym.oracles.dominion.common import (
    DEFAULT_WORK_LIMIT,
    GAME,
    SUPPORTED_KINGDOM,
    Plan,
    oracle_kingdom,
    replay_turns,
)
from tabletop_gym.oracles.dominion.kingdom import _KingdomSearch
from tabletop_gym.oracles.dominion.limits import DominionLimits
from tabletop_gym.oracles.dominion.oracle import (
    _seed_plans,
    _solve_kingdom,
    cache_variant,
    check,
    solve,
    solve_cached,
)
from tabletop_gym.oracles.dominion.plans import beam_plan

# The package's API as the single module had it (tests reach some private helpers through it too).
__all__ = [
    "DEFAULT_WORK_LIMIT", "GAME", "SUPPORTED_KINGDOM", "DominionLimits", "Plan",
    "beam_plan", "cache_variant", "check", "oracle_kingdom", "replay_turns", "solve", "solve_cached",
    "_KingdomSearch", "_seed_plans", "_solve_kingdom",
]  # fmt: skip
