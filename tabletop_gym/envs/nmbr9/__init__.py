"""Nmbr9: place number-shaped tiles in levels; a tile scores its value times its level."""

ENV_ID = "tabletop/Nmbr9-v0"
ENTRY_POINT = "tabletop_gym.envs.nmbr9.env:Nmbr9Env"
VECTOR_ENTRY_POINT = "tabletop_gym.envs.nmbr9.vector:Nmbr9VectorEnv"
