"""Players: the Agent protocol, random and heuristic players, and the trained-policy loader."""

from tabletop_gym.agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
