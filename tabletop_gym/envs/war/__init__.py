"""War: two piles, one real decision (the order in which a won pot goes under the pile)."""

ENV_ID = "tabletop/War-v0"
ENTRY_POINT = "tabletop_gym.envs.war.env:WarEnv"
VECTOR_ENTRY_POINT = "tabletop_gym.envs.war.vector:WarVectorEnv"
