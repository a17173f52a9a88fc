"""Oracles for War: exact simulation, exact best pickup play on small decks, CP-SAT models."""

from tabletop_gym.oracles.war.simulate import Simulation, random_decks, simulate, simulate_many

__all__ = ["Simulation", "random_decks", "simulate", "simulate_many"]
