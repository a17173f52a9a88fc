"""Modern Art players: the greedy player, which the environment seats by default.

It lives beside the environment (``tabletop_gym.envs.modern_art.bots``) so the environment imports its
default opponents without importing this layer; it is offered here too, with every game's players.
"""

from tabletop_gym.envs.modern_art.bots import GreedyAgent, provisional_points

__all__ = ["GreedyAgent", "provisional_points"]
