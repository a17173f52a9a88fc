"""tabletop-gym: Gymnasium environments for tabletop games with exact rules and exact oracles.

Importing the package registers every environment (``tabletop/<Game>-v0``) with Gymnasium. Each game
package under ``tabletop_gym.envs`` declares ``ENV_ID`` and ``ENTRY_POINT`` in its ``__init__``, and
``EXTRA_ENVS`` ({id: entry point}) when it has more than one environment, and
``VECTOR_ENTRY_POINT`` where ``ENV_ID`` has a native vector environment (what ``gym.make_vec`` returns),
``VECTOR_ENTRY_POINTS`` ({id: entry point}) where another of its ids has one.
"""

from __future__ import annotations

import importlib
import pkgutil

import gymnasium as gym

from tabletop_gym import envs as _envs

__version__ = "0.1.0"


def _register_all() -> None:
    for module in pkgutil.iter_modules(_envs.__path__):
        game = importlib.import_module(f"{_envs.__name__}.{module.name}")
        entries = dict(getattr(game, "EXTRA_ENVS", {}))
        if hasattr(game, "ENV_ID"):
            entries[game.ENV_ID] = game.ENTRY_POINT
        vector = dict(getattr(game, "VECTOR_ENTRY_POINTS", {}))
        if hasattr(game, "VECTOR_ENTRY_POINT"):
            vector[game.ENV_ID] = game.VECTOR_ENTRY_POINT
        for env_id, entry_point in entries.items():
            if env_id not in gym.registry:
                gym.register(id=env_id, entry_point=entry_point, vector_entry_point=vector.get(env_id))


_register_all()
