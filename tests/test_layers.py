"""The import layers hold: import-linter checks the contracts in pyproject.toml ([tool.importlinter]):
core, then environments, then agents, then oracles, suites and training, games independent of each
other, no circles anywhere. An import inside a function counts as much as one at the top."""

from __future__ import annotations

import ast
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# In a child process: lint-imports puts its working folder first on sys.path, which is the tree under
# test (the checkout itself, or the copy below), never an installed copy of the package.
_LINT = (
    "from importlinter.cli import lint_imports; "
    "raise SystemExit(lint_imports(no_cache=True, no_logo=True))"
)


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", _LINT], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_package_keeps_every_import_contract():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_upward_import_breaks_the_layers(tmp_path):
    # The contracts must bite: the same package with one engine importing the command line fails.
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(ROOT / "tabletop_gym", tmp_path / "tabletop_gym",
                    ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    engine = tmp_path / "tabletop_gym" / "envs" / "war" / "rules.py"
    lazy_import = "\n\ndef _up():\n    from tabletop_gym.training import cli  # noqa\n"
    engine.write_text(engine.read_text() + lazy_import)
    result = _lint(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "tabletop_gym.envs is not allowed to import tabletop_gym.training" in result.stdout
    assert "tabletop_gym.envs.war.rules -> tabletop_gym.training.cli" in result.stdout


# ---- each game owns its tables ---------------------------------------------------------------------

PACKAGE = ROOT / "tabletop_gym"
GAMES = tuple(sorted(m.name for m in pkgutil.iter_modules([str(PACKAGE / "envs")])))
# A game's suite names and ids are its name, then dash-separated words (war-r6s2, war-r6s2-v0).
GAME_WORD = re.compile(rf"^(?:{'|'.join(GAMES)})(?:-[a-z0-9_]+)*$")
# Gymnasium's own words, which one game also uses as an option name (War's ``observation``): in a shared
# module they mean Gymnasium's thing (the wrappers' dict key, what ``step`` returns first).
GYMNASIUM_WORDS = frozenset({"observation"})
# Names a shared module may still hold, each (module, top-level definition), with the reason.
KNOWN = {
    # command lines that `bench startup` times (a cached solve of the games whose oracles import the
    # heaviest libraries): a sample to measure, not a table that a new game joins
    ("tabletop_gym/training/bench.py", "STARTUP_COMMANDS"),
}


def _game_owned(relative: Path) -> bool:
    """A module of one game: envs/<game>/, oracles/<game>(.py or /), agents/<game>.py, its GameSpec,
    multiagent/<game>_v0.py."""
    parts = relative.parts
    if parts[0] in ("envs", "oracles") and len(parts) > 1:
        return parts[1].removesuffix(".py") in GAMES
    if parts[0] == "agents" or parts[:2] == ("training", "games"):
        return parts[-1].removesuffix(".py") in GAMES
    if parts[0] == "multiagent":  # a game's PettingZoo module: multiagent/<game>_v0.py
        return parts[-1].removesuffix(".py").rpartition("_v")[0] in GAMES
    return False


def _games_own_words() -> tuple[set[str], dict[str, str]]:
    """Every registered environment id of the package, and each environment option that only one
    game's environments take (Dominion's ``province_reward``), with that game."""
    import inspect

    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    import tabletop_gym  # noqa: F401  (registers the ids)

    ids, takers = set(), {}
    for env_id, spec in gym.registry.items():
        if isinstance(spec.entry_point, str) and spec.entry_point.startswith("tabletop_gym.envs."):
            ids.add(env_id)
            game = spec.entry_point.split(".")[2]
            for option in inspect.signature(load_env_creator(spec.entry_point).__init__).parameters:
                takers.setdefault(option, set()).add(game)
    own = {o: g.pop() for o, g in takers.items() if len(g) == 1 and o not in GYMNASIUM_WORDS}
    return ids, own


def _docstrings(tree: ast.AST) -> set[int]:
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, owners) and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)
    }


def _identifier(node: ast.AST) -> str | None:
    for field in ("id", "arg", "attr"):  # a Name, a keyword or argument, an attribute
        if isinstance(getattr(node, field, None), str):
            return getattr(node, field)
    return None


def _game_names_in(
    tree: ast.Module, env_ids: set[str], options: dict[str, str]
) -> list[tuple[int, str, str]]:
    """(line, top-level definition, what) for each game named in code: a string that is a game's
    name, suite name, suite id, environment id or an option only that game's environment takes; an
    identifier that is a game's name; an import of one game's module. Docstrings (and comments, which
    the syntax tree drops) are prose, not tables."""
    docs = _docstrings(tree)
    found = []
    for top in tree.body:
        targets = getattr(top, "targets", None) or [getattr(top, "target", None)]
        owner = getattr(top, "name", None) or next(
            (t.id for t in targets if isinstance(t, ast.Name)), "<module>"
        )
        for node in ast.walk(top):
            what = None
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if GAME_WORD.match(node.value) or node.value in env_ids:
                    what = repr(node.value)
                elif node.value in options:
                    what = f"{node.value!r}, an option of {options[node.value]} only"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                modules += [a.name for a in node.names] + [a.asname or "" for a in node.names]
                what = next((f"an import of {m}" for m in modules if set(m.split(".")) & set(GAMES)), None)
            elif _identifier(node) in GAMES:
                what = f"the name {_identifier(node)}"
            if what is not None:
                found.append((node.lineno, owner, what))
    return found


def shared_modules_naming_games(package: Path = PACKAGE) -> list[str]:
    """Every place a module shared by all games names one of them: 'module:line (definition): what'.
    The registration (``tabletop_gym/__init__.py``, ``envs/__init__.py``) is scanned too: it finds the
    games' packages without naming them."""
    env_ids, options = _games_own_words()
    problems = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if _game_owned(relative):
            continue
        module = f"tabletop_gym/{relative.as_posix()}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, owner, what in _game_names_in(tree, env_ids, options):
            if (module, owner) not in KNOWN:
                problems.append(f"{module}:{line} ({owner}): {what}")
    return problems


def test_shared_modules_hold_no_per_game_entries():
    # Adding a game touches only its own files (docs/adding-a-game.md): a table keyed by games in a
    # shared module is one more place a new game must edit, and one that drifts when it is forgotten.
    problems = shared_modules_naming_games()
    assert not problems, "shared modules naming a game:\n" + "\n".join(problems)


def test_the_scan_finds_a_game_named_in_a_shared_module(tmp_path):
    # The scan must bite: a shared module with a per-game table (a game's name in a branch, as a
    # keyword, a suite id and an environment id as keys, one game's option) is caught line by line;
    # the same words in a docstring are not.
    ignore = shutil.ignore_patterns("__pycache__", "*.json")
    shutil.copytree(PACKAGE, tmp_path / "tabletop_gym", ignore=ignore)
    shared = tmp_path / "tabletop_gym" / "training" / "evaluate.py"
    shared.write_text(
        shared.read_text()
        + '\n\ndef _budget(game):\n    """War and cribbage (cribbage-v0) take fewer steps."""\n'
        + '    if game == "war":\n        return dict(cribbage=1, money_reward=2)\n'
        + '    return {"modern_art-2p-v0": 2, "tabletop/Nmbr9-v0": 3, "money_reward": 4}[game]\n'
    )
    problems = [p for p in shared_modules_naming_games(tmp_path / "tabletop_gym") if "evaluate.py" in p]
    last = len(shared.read_text().splitlines())
    where = "tabletop_gym/training/evaluate.py:{} (_budget): {}"
    assert problems == [
        where.format(last - 2, "'war'"),
        where.format(last - 1, "the name cribbage"),
        where.format(last, "'modern_art-2p-v0'"),
        where.format(last, "'tabletop/Nmbr9-v0'"),
        where.format(last, "'money_reward', an option of dominion only"),
    ]
