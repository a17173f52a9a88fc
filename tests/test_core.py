"""Shared pieces: OracleResult, the cache's atomic writes, environment registration."""

import gymnasium as gym
import pytest

import tabletop_gym  # noqa: F401
from tabletop_gym.core import IllegalActionError, OracleCache, OracleResult, atomic_write_text
from tabletop_gym.training.games import game_names, get_game


def test_result_refuses_a_score_above_its_bound() -> None:
    with pytest.raises(ValueError, match="exceeds its own bound"):
        OracleResult(score=10, bound=9, plan=())
    result = OracleResult(score=9, bound=12, plan=(1, 2))
    assert not result.optimal and result.gap == 3
    assert OracleResult.from_json(result.to_json()) == result


def test_illegal_action_error_names_action_and_legal_ones() -> None:
    error = IllegalActionError(5, [0, 2], "pile is empty")
    assert isinstance(error, ValueError)
    assert "illegal action 5 (pile is empty); legal actions: [0, 2]" == str(error)


def test_atomic_write_keeps_old_content_on_failure(tmp_path) -> None:
    path = tmp_path / "a" / "entry.json"
    atomic_write_text(path, "old")

    with pytest.raises(TypeError):
        atomic_write_text(path, 123)  # type: ignore[arg-type]
    assert path.read_text() == "old"
    assert [p.name for p in path.parent.iterdir()] == ["entry.json"]  # no temporary file left


def test_cache_ignores_a_check_failure(tmp_path) -> None:
    cache = OracleCache(tmp_path)
    cache.store("g", "v", "d", OracleResult(score=1, bound=1, plan=(0,)))
    assert cache.load("g", "v", "d") is not None
    assert cache.load("g", "v", "d", check=lambda r: False) is None
    assert cache.load("g", "other", "d") is None


def test_every_game_module_registers_its_environment() -> None:
    for name in game_names():
        spec = get_game(name)
        assert spec.env_id in gym.registry, f"{name}: {spec.env_id} is not registered"
    with pytest.raises(ValueError, match="unknown game"):
        get_game("chess")
