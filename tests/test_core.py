"""Shared pieces: OracleResult, the cache's atomic writes, environment registration."""

import os
import stat

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401
from tabletop_gym.core import (
    CacheError,
    IllegalActionError,
    OracleCache,
    OracleResult,
    ReturnedArrays,
    atomic_output,
    atomic_write_text,
    check_float,
    check_int,
    quote_input,
)
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


def test_cache_solves_again_a_bound_written_before_interrupts_were_told_from_limits(tmp_path) -> None:
    # Format-1 entries may hold a solve that a Ctrl-C cut short, stored as if its limit had run out.
    import json

    cache = OracleCache(tmp_path)
    for deal, result in (("a", OracleResult(score=3, bound=5, plan=(0,))), ("b", OracleResult(4, 4, (1,)))):
        cache.store("g", "v", deal, result)
        path = cache.path("g", "v", deal)
        entry = json.loads(path.read_text())
        assert entry["format"] == OracleCache.FORMAT and cache.load("g", "v", deal) == result
        path.write_text(json.dumps({**entry, "format": 1}))
    assert cache.load("g", "v", "a") is None  # a bound: it might be a cut-short one
    assert cache.load("g", "v", "b") == OracleResult(4, 4, (1,))  # a proven optimum holds however it ended


def test_every_game_module_registers_its_environment() -> None:
    for name in game_names():
        spec = get_game(name)
        assert spec.env_id in gym.registry, f"{name}: {spec.env_id} is not registered"
    with pytest.raises(ValueError, match="unknown game"):
        get_game("chess")


def _forge(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(
    "text", ["[1, 2, 3]", "null", "42", '"text"', "[" * 100_000 + "]" * 100_000, '{"result": 5}', "{bad"]
)
def test_any_unreadable_cache_entry_is_recomputed_not_a_crash(tmp_path, text) -> None:
    cache = OracleCache(tmp_path)
    _forge(cache.path("g", "v", "d"), text)
    assert cache.load("g", "v", "d") is None and cache.rejected == 1
    fresh = OracleResult(score=3, bound=3, plan=(1,))
    assert cache.solve("g", "v", "d", lambda: fresh) == fresh
    assert cache.load("g", "v", "d") == fresh  # the recomputed entry replaced the bad one


def test_cache_refuses_a_fifo_a_folder_and_a_root_that_is_a_file(tmp_path) -> None:
    cache = OracleCache(tmp_path / "cache")
    entry = cache.path("g", "v", "d")
    entry.parent.mkdir(parents=True)
    os.mkfifo(entry)  # reading it would block forever
    with pytest.raises(CacheError, match="not a regular file"):
        cache.load("g", "v", "d")
    entry.unlink()
    entry.mkdir()
    with pytest.raises(CacheError, match="not a regular file"):
        cache.solve("g", "v", "d", lambda: OracleResult(score=1, bound=1, plan=()))
    (tmp_path / "file").write_text("")
    with pytest.raises(CacheError, match="not a folder"):
        OracleCache(tmp_path / "file").load("g", "v", "d")


def test_a_read_only_cache_keeps_the_result_and_warns_once(tmp_path, monkeypatch, capsys) -> None:
    def read_only(path, text):
        raise OSError(30, "Read-only file system", str(path))

    # Permissions do not stop root (CI runs as root), so the file system's refusal is simulated.
    monkeypatch.setattr("tabletop_gym.core.atomic_write_text", read_only)
    cache = OracleCache(tmp_path)
    result = OracleResult(score=2, bound=2, plan=(0,))
    assert cache.solve("g", "v", "d", lambda: result) == result
    assert cache.solve("g", "v", "e", lambda: result) == result
    assert capsys.readouterr().err.count("oracle cache not written (") == 1


def test_written_files_follow_the_umask_and_temporary_names_are_unique(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "report.json", "{}")
        assert stat.S_IMODE((tmp_path / "report.json").stat().st_mode) == 0o644
        with atomic_output(tmp_path / "model.zip") as first, atomic_output(tmp_path / "model.zip") as second:
            assert first != second and first.suffix == second.suffix == ".zip"
            first.write_text("a")
            second.write_text("b")
        assert (tmp_path / "model.zip").read_text() == "a"  # the outer write lands last
        assert stat.S_IMODE((tmp_path / "model.zip").stat().st_mode) == 0o644
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.zip", "report.json"]


def test_numbers_are_checked_with_the_parameter_named() -> None:
    assert check_int("horizon", np.int64(5), 1) == 5 and type(check_int("horizon", np.int32(5), 1)) is int
    assert check_int("horizon", None, 1, optional=True) is None
    for bad, match in ((0, "horizon must be at least 1"), (True, "must be an integer"), (2.0, "integer")):
        with pytest.raises(ValueError, match=match):
            check_int("horizon", bad, 1)
    assert check_float("time_limit", np.float32(1.5), 0, low_open=True) == 1.5
    for bad in (float("nan"), float("inf"), 0.0, -1, "5"):
        with pytest.raises(ValueError, match="time_limit"):
            check_float("time_limit", bad, 0, low_open=True)


def test_long_input_is_quoted_with_a_bounded_prefix() -> None:
    text = quote_input("A" * 10_000_000)
    assert len(text) < 200 and "10000000 characters" in text
    assert quote_input("short") == "'short'"


def _package_exceptions() -> list[type[BaseException]]:
    import importlib
    import inspect
    import pkgutil

    classes = {}
    for module in pkgutil.walk_packages(tabletop_gym.__path__, "tabletop_gym."):
        if module.name.startswith("tabletop_gym.training"):
            continue  # the command line's imports (torch, SB3) are not what this checks
        for _, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__.startswith("tabletop_gym"):
                classes[cls.__qualname__, cls.__module__] = cls
    return list(classes.values())


def _example(cls: type[BaseException]) -> BaseException:
    import inspect

    parameters = [
        p
        for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
        if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    if not parameters:
        return cls("what went wrong")
    values = {"action": 3, "legal": [1, 4], "needed": 2.5, "left": 0.5}
    return cls(*(values.get(p.name, "x") for p in parameters))


def test_every_error_of_the_package_survives_pickle_and_copy() -> None:
    # Errors cross process boundaries (async vector environments, SubprocVecEnv, Ray workers): one
    # that cannot be rebuilt arrives as a TypeError or an EOFError with its message lost.
    import copy
    import pickle

    classes = _package_exceptions()
    assert IllegalActionError in classes and len(classes) >= 8
    for cls in classes:
        error = _example(cls)
        for twin in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
            assert type(twin) is cls and str(twin) == str(error), cls
    illegal = pickle.loads(pickle.dumps(IllegalActionError(np.int64(3), [1, 4], "not on the board")))
    assert (illegal.action, illegal.legal, illegal.why) == (3, [1, 4], "not on the board")
    assert "not on the board" in str(illegal)


def test_every_public_error_survives_being_rebuilt_from_itself() -> None:
    # Gymnasium's async vector environment re-raises a worker's error as ``type(error)(error)``: an
    # error whose constructor cannot take that arrives as a TypeError, its message lost.
    for cls in _package_exceptions():
        if cls.__name__.startswith("_"):
            continue  # private: caught inside its module, never raised to a caller
        error = _example(cls)
        twin = cls(error)
        assert type(twin) is cls and str(twin) == str(error), cls
    twin = IllegalActionError(IllegalActionError(3, [1, 4], "not on the board"))
    assert (twin.action, twin.legal, twin.why) == (3, [1, 4], "not on the board")


def test_returned_arrays_are_reused_only_once_nobody_holds_them() -> None:
    import copy
    import pickle

    returned = ReturnedArrays(keep=2)
    first = returned.take("mask", (3, 4), np.int8)
    address = first.ctypes.data
    del first
    again = returned.take("mask", (3, 4), np.int8)
    assert again.ctypes.data == address  # nobody held it: the same array
    view = again[1:]  # a view holds the array as the array itself does
    del again
    held = [returned.take("mask", (3, 4), np.int8) for _ in range(3)]  # all held: a new one each time
    assert len({a.ctypes.data for a in held} | {view.base.ctypes.data}) == 4
    assert returned.take("mask", (2, 4), np.int8).shape == (2, 4)  # another shape is never mixed up
    source = np.arange(12, dtype=np.int8).reshape(3, 4)
    out = returned.copy_of("mask", source)
    assert np.array_equal(out, source) and out is not source and not np.shares_memory(out, view)
    for twin in (copy.deepcopy(returned), pickle.loads(pickle.dumps(returned))):
        assert twin.take("mask", (3, 4), np.int8).ctypes.data not in {a.ctypes.data for a in held}
