"""How far War's oracles go: the sizes past which they are refused rather than left to eat time and
memory. A module of its own so the command line can state the ranges without loading a solver."""

MAX_SEARCH_HORIZON = 2000
"""The longest horizon the horizon search covers: it recurses once per trick and its table keeps
each position's line of play, so memory grows with the square of the horizon (about 0.2 GB at 3,000
tricks, 1.3 GB at 10,000 on a 12-card deck)."""

MAX_MODEL_TRICKS = 200
"""The most tricks a CP-SAT model covers (a horizon, a pattern's length, ``--most-wars``). A model
grows with the square of its turns: on the full deck 200 tricks build in about 0.4 s, 1,000 in 15 s,
2,000 in over a minute. Its building counts against ``time_limit`` by its terms (``cpsat.model_terms``),
never by a clock."""

MAX_MODEL_TURNS = 1000
"""The most turns (cards each player puts on the table) a CP-SAT model holds."""
