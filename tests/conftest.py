"""Set-up shared by every test module."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_the_sessions_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests that train with stable-baselines3 directly, as a user would, get SB3's default logger,
    which makes an SB3-<time> folder in the system's temporary folder at every run: keep those in the
    test session's own temporary folder instead of leaving them behind."""
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if before is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = before
