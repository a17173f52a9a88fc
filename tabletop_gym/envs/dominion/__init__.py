"""Dominion (base game, 2nd edition): the multiplayer game against bots and the solitaire benchmark."""

ENV_ID = "tabletop/Dominion-v0"
ENTRY_POINT = "tabletop_gym.envs.dominion.env:DominionEnv"
SOLITAIRE_ENV_ID = "tabletop/DominionSolitaire-v0"
EXTRA_ENVS = {SOLITAIRE_ENV_ID: "tabletop_gym.envs.dominion.env:DominionSolitaireEnv"}
VECTOR_ENTRY_POINTS = {SOLITAIRE_ENV_ID: "tabletop_gym.envs.dominion.vector:DominionSolitaireVectorEnv"}
