"""Oracles for War: exact simulation, exact best pickup play on small decks, the horizon search
(``horizon``) and the CP-SAT models of the first T tricks and of free deals (``cpsat``).

The simulation's names are loaded on first use (its numba kernels take a while to import), so that
``limits`` and ``search`` come without them."""

from tabletop_gym.oracles import lazy_exports

__all__ = ["Simulation", "random_decks", "simulate", "simulate_many"]

__getattr__, __dir__ = lazy_exports(__name__, {"simulation": __all__})
