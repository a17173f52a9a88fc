"""The docs: the site builds in strict mode, strict mode catches what it is meant to, and the README's
links and examples hold.

The strict build runs here rather than as a Makefile step so that `make test` and a plain `pytest`
both run it, and so that the test beside it can show that the same configuration fails on a broken
link, a broken heading anchor and a page left out of the nav.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner about its successor
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
         "--site-dir", str(site)],
        capture_output=True, text=True, env=env, timeout=600,
    )


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    built = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr + built.stdout
    pages = sorted(path.relative_to(ROOT / "docs") for path in (ROOT / "docs").rglob("*.md"))
    for page in pages:
        html = page.with_suffix("") / "index.html" if page.name != "index.md" else page.with_suffix(".html")
        assert (tmp_path / "site" / html).is_file(), page
    # The API reference is generated from the docstrings, not left empty.
    core = (tmp_path / "site" / "api" / "core" / "index.html").read_text(encoding="utf-8")
    assert "OracleResult" in core and "IllegalActionError" in core


def test_strict_mode_fails_on_a_broken_link_anchor_or_page_left_out(tmp_path: Path) -> None:
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    (tmp_path / "tabletop_gym").symlink_to(ROOT / "tabletop_gym")  # the API reference reads it
    index = tmp_path / "docs" / "index.md"
    text = index.read_text(encoding="utf-8")
    page, heading = "(games/war.md)", "(getting-started.md#using-an-environment)"
    assert page in text and heading in text
    text = text.replace(page, "(games/no-such-game.md)", 1)
    text = text.replace(heading, "(getting-started.md#no-such-heading)", 1)
    index.write_text(text, encoding="utf-8")
    (tmp_path / "docs" / "orphan.md").write_text("# Not in the nav\n", encoding="utf-8")

    built = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    log = built.stderr + built.stdout
    assert built.returncode != 0, log
    assert "Aborted with" in log and "in strict mode" in log, log
    assert "games/no-such-game.md" in log, log
    assert "no-such-heading" in log, log
    assert "orphan.md" in log, log


def _readme_links() -> list[str]:
    text = re.sub(r"```.*?```", "", README.read_text(encoding="utf-8"), flags=re.S)
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in link]


def test_the_readme_links_point_at_files_and_headings_that_exist() -> None:
    links = _readme_links()
    assert any(link.startswith("docs/games/") for link in links)
    for link in links:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.exists(), link
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), flags=re.M)
            assert anchor in {slugify(heading, "-") for heading in headings}, link


def test_the_readme_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Python block of the README, in order, as a reader would paste them into one session."""
    from sb3_contrib import MaskablePPO

    import tabletop_gym  # noqa: F401  (registers the ids the model below is made for)

    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    # The README loads the model that `tabletop-gym train cribbage` writes; an untrained one stands in.
    import gymnasium as gym

    model_dir = tmp_path / "runs" / "train" / "cribbage"
    model_dir.mkdir(parents=True)
    MaskablePPO("MlpPolicy", gym.make("tabletop/Cribbage-v0"), n_steps=64).save(model_dir / "model.zip")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 3
    names: dict[str, object] = {"__name__": "readme_example"}
    for index, code in enumerate(blocks):
        exec(compile(code, f"README example {index}", "exec"), names)


def _shown_commands() -> list[tuple[str, str]]:
    """Every `tabletop-gym ...` line of a bash block in the README and the docs pages, placeholders
    (GAME, [--deal D | --seed S]) left out."""
    commands = []
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command.startswith("tabletop-gym ") and "GAME" not in command and "[" not in command:
                    commands.append((page.relative_to(ROOT).as_posix(), command))
    return commands


def test_every_command_shown_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line as the pages show it: every option they write exists and takes that value."""
    import shlex

    from tabletop_gym.training.cli import build_parser

    commands = _shown_commands()
    assert len(commands) >= 20
    monkeypatch.chdir(tmp_path)
    # Scaling out solves "a file of deal strings, one a line" (checked as the command line is read).
    (tmp_path / "deals.txt").write_text("46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ\n")
    parser = build_parser()
    for page, command in commands:
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit as stop:
            raise AssertionError(f"{page}: {command}: {capsys.readouterr().err}") from stop
