"""The import layers hold: import-linter checks the contracts in pyproject.toml ([tool.importlinter]):
core, then environments, then agents, then oracles, suites and training, games independent of each
other, no circles anywhere. An import inside a function counts as much as one at the top."""

from __future__ import annotations

import os
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
