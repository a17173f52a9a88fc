"""Oracles for War: exact simulation, exact best pickup play on small decks, the horizon search
(``horizon``) and the CP-SAT models of the first T tricks and of free deals (``cpsat``)."""

from tabletop_gym.oracles.war.simulate import Simulation, random_decks, simulate, simulate_many

__all__ = ["Simulation", "random_decks", "simulate", "simulate_many"]
