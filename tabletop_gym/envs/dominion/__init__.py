"""Dominion (base game, 2nd edition): the multiplayer game against bots and the solitaire benchmark."""

ENV_ID = "tabletop/Dominion-v0"
ENTRY_POINT = "tabletop_gym.envs.dominion.env:DominionEnv"
EXTRA_ENVS = {"tabletop/DominionSolitaire-v0": "tabletop_gym.envs.dominion.env:DominionSolitaireEnv"}
