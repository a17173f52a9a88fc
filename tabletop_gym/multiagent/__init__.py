"""The multi-player games as PettingZoo environments: every seat a learner.

``from tabletop_gym.multiagent import war_v0`` then ``war_v0.env(**settings)`` (wrapped as
PettingZoo's classic games are) or ``war_v0.raw_env(**settings)``. Agents are ``player_0`` ..
``player_{n-1}`` in seat order; each observation is ``{"observation": ..., "action_mask": ...}``.
They play the same ``Table`` as the single-agent environments (``tabletop_gym.core.Table``), so a
seed deals the same game in both. Needs the ``multiagent`` extra: ``pip install
'tabletop-gym[multiagent]'``.
"""

try:
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the install
    raise ImportError(
        "tabletop_gym.multiagent needs PettingZoo: pip install 'tabletop-gym[multiagent]'"
    ) from error

from tabletop_gym.multiagent import dominion_v0, modern_art_v0, war_v0  # noqa: E402,F401
