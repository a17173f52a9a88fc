"""Players: the Agent protocol, random and heuristic players, and the trained-policy loader.

Game-specific players live in ``tabletop_gym.agents.<game>``; ``PlanAgent`` plays an oracle's plan
and ``load_policy`` turns a model saved by ``tabletop-gym train`` into an Agent.
"""

from tabletop_gym.agents.base import Agent, RandomAgent
from tabletop_gym.agents.policy import PlanAgent, PolicyAgent, load_policy

__all__ = ["Agent", "RandomAgent", "PlanAgent", "PolicyAgent", "load_policy"]
