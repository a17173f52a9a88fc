"""Solitaire Cribbage (Möbius Front '83)."""

ENV_ID = "tabletop/Cribbage-v0"
ENTRY_POINT = "tabletop_gym.envs.cribbage.env:CribbageEnv"
VECTOR_ENTRY_POINT = "tabletop_gym.envs.cribbage.vector:CribbageVectorEnv"
