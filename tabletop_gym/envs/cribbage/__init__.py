"""Solitaire Cribbage (Möbius Front '83)."""

ENV_ID = "tabletop/Cribbage-v0"
ENTRY_POINT = "tabletop_gym.envs.cribbage.env:CribbageEnv"
