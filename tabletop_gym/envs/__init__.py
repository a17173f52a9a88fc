"""One package per game: ``rules.py`` (the engine) and ``env.py`` (the Gymnasium environment)."""
