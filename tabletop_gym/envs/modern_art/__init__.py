"""Modern Art: Masters Gallery (Reiner Knizia, 2009), 2-5 players."""

ENV_ID = "tabletop/ModernArt-v0"
ENTRY_POINT = "tabletop_gym.envs.modern_art.env:ModernArtEnv"
