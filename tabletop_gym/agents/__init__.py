"""Players: the Agent protocol, random and heuristic players, the trained-policy loader and the
pretrained agents shipped with the package.

Game-specific players live in ``tabletop_gym.agents.<game>``; ``PlanAgent`` plays an oracle's plan,
``load_policy`` turns a model saved by ``tabletop-gym train`` into an Agent, and
``pretrained(env_id, **env_kwargs)`` gives the shipped agent of an environment id.
"""

from tabletop_gym.agents.base import Agent, RandomAgent
from tabletop_gym.agents.policy import PlanAgent, PolicyAgent, load_policy
from tabletop_gym.agents.shipped import PretrainedError, pretrained

__all__ = ["Agent", "RandomAgent", "PlanAgent", "PolicyAgent", "load_policy", "pretrained", "PretrainedError"]
