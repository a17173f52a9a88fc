"""The rules documents (docs/rules/<game>.md) against the engines.

Every game of the command line's registry has its rules file, and the facts a reader would copy from
it (deck sizes, tile shapes, point tables, card costs, supply sizes, defaults and ranges of the rule
options) are the engine's own: each expected value below is computed from the engine's constants or
functions, so the test fails as soon as the document and the code disagree.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "docs" / "rules"


def _doc(game: str) -> str:
    return (RULES / f"{game.replace('_', '-')}.md").read_text(encoding="utf-8")


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of ``text`` (indented ones included) as rows of stripped cells, the header
    row first and the separator row left out."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in text.splitlines() + [""]:
        line = line.strip()
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _table(text: str, first_header: str) -> list[list[str]]:
    """The body rows of the one table whose header starts with the cell ``first_header``."""
    found = [t for t in _tables(text) if t[0][0] == first_header]
    assert len(found) == 1, f"expected one table headed {first_header!r}, found {len(found)}"
    return found[0][1:]


def _number(cell: str) -> int:
    return int(cell.replace(",", "").replace("`", ""))


def _flat(text: str) -> str:
    """The text with every run of white space (line breaks included) as one space."""
    return " ".join(text.split())


def test_every_game_of_the_registry_has_its_rules_file() -> None:
    from tabletop_gym.training.games import game_names

    names = game_names()
    assert names, "no game found in the registry"
    for name in names:
        assert (RULES / f"{name.replace('_', '-')}.md").is_file(), name
        assert _doc(name).startswith("# "), name


def test_cribbage_cards_and_points_are_the_engines() -> None:
    from tabletop_gym.envs.cribbage import env as cribbage_env
    from tabletop_gym.envs.cribbage.rules import (
        COPIES,
        JACK,
        NUM_PILES,
        PILE_SIZE,
        RANK_CHARS,
        STACK_LIMIT,
        TARGET,
        parse_deal,
        score_card,
        value_of,
    )

    text = _flat(_doc("cribbage"))
    cards = NUM_PILES * PILE_SIZE
    assert f"{cards} cards: {len(RANK_CHARS)} ranks, {COPIES} cards of each" in text
    assert f"dealt into {NUM_PILES} piles of {PILE_SIZE}" in text
    assert f"`{RANK_CHARS}`" in text and f"exactly {COPIES} times" in text
    assert f"stays at {STACK_LIMIT} or below" in text and f"score of {TARGET} or more" in text
    assert f"The most one card can score is {cribbage_env.MAX_POINTS}" in text

    def points(*ranks: int) -> int:
        return score_card(list(ranks), sum(value_of(r) for r in ranks))

    # Each row of the table, by its wording, against the engine's points for a stack that shows it.
    rows = {row[0]: row[1] for row in _table(_doc("cribbage"), "when the card just played ...")}
    expected = {
        "is a Jack": points(JACK),
        "exactly 15": points(5, 10),
        "exactly 31": points(13, 12, 9, 2),
        "makes a pair": points(3, 3),
        "three of a kind": points(3, 3, 3),
        "four of a kind": points(2, 2, 2, 2),
    }
    for words, value in expected.items():
        row = [cell for label, cell in rows.items() if words in label]
        assert row == [str(value)], (words, row)
    run_row = [cell for label, cell in rows.items() if "run of n cards" in label]
    assert run_row == ["n"]
    longest = max(n for n in range(1, 14) if sum(value_of(r) for r in range(1, n + 1)) <= STACK_LIMIT)
    for n in range(3, longest + 1):  # A..n: a run of n, and 15 on the way for n = 5
        total = sum(value_of(r) for r in range(1, n + 1))
        assert points(*range(1, n + 1)) == n + (expected["exactly 15"] if total == 15 else 0), n
    assert f"Runs are at most {longest} cards long" in text
    # The known answer's deal is a valid deal.
    deal = re.search(r"^ +(\S+/\S+/\S+/\S+)$", _doc("cribbage"), re.MULTILINE)
    assert deal is not None
    assert str(parse_deal(deal.group(1))) == deal.group(1)


def test_nmbr9_tiles_and_variants_are_the_engines() -> None:
    from tabletop_gym.envs.nmbr9.rules import (
        DEFAULT_GRID,
        MAX_COPIES,
        MAX_GRID,
        MAX_VALUE,
        MIN_GRID,
        STANDARD,
        distinct_rotations,
        parse_deal,
        tile_area,
        tile_picture,
    )

    doc = _doc("nmbr9")
    values = range(MAX_VALUE + 1)
    pictures = [tile_picture(v) for v in values]
    block = ["value  " + "   ".join(f"{v:<3}" for v in values).rstrip()]
    for r in range(max(len(p) for p in pictures)):
        block.append("       " + "   ".join(p[r].ljust(3) for p in pictures).rstrip())
    assert "\n".join(block) in doc
    rows = {row[0]: row[1:] for row in _table(doc, "tile")}
    assert rows["cells"] == [str(tile_area(v)) for v in values]
    assert rows["distinct rotations"] == [str(len(distinct_rotations(v))) for v in values]
    text = _flat(doc)
    assert f"The published game is **{STANDARD}**" in text
    assert f"m from 0 to {MAX_VALUE}, c from 1 to {MAX_COPIES}" in text
    assert f"(`--grid`, {MIN_GRID} to {MAX_GRID}, default {DEFAULT_GRID}" in text
    deal = re.search(r"e\.g\. `([0-9]+)` for " + re.escape(str(STANDARD)), text)
    assert deal is not None and str(parse_deal(deal.group(1), STANDARD)) == deal.group(1)


def test_war_options_and_deck_are_the_engines() -> None:
    from tabletop_gym.envs.war.rules import (
        DEFAULT_RULES,
        MAX_FACE_DOWN,
        MAX_SUITS,
        MAX_TRICKS_LIMIT,
        PICKUPS,
        RANK_CHARS,
    )

    doc = _doc("war")
    rows = {row[1].strip("`"): row for row in _table(doc, "option (command line)")}
    ranges = {
        "ranks": (1, len(RANK_CHARS)),
        "suits": (1, MAX_SUITS),
        "face_down": (0, MAX_FACE_DOWN),
        "max_tricks": (1, MAX_TRICKS_LIMIT),
    }
    assert set(rows) == set(ranges) | {"pickup"}
    for name, (low, high) in ranges.items():
        option, _, between, default = rows[name]
        assert option == f"`--{name.replace('_', '-')}`"
        assert [_number(c) for c in between.split(" to ")] == [low, high], name
        assert _number(default) == getattr(DEFAULT_RULES, name), name
    assert [c.strip("` ") for c in rows["pickup"][2].split(",")] == list(PICKUPS)
    assert rows["pickup"][3] == f"`{DEFAULT_RULES.pickup}`"
    text = _flat(doc)
    cards = DEFAULT_RULES.num_cards
    assert f"four of each ({cards} cards)" in text and f"{cards // 2} each with the full deck" in text
    assert f"`{RANK_CHARS}`" in text and f"`--ranks 6`: `{RANK_CHARS[:6]}`" in text


def test_dominion_cards_supply_and_kingdom_are_the_engines() -> None:
    from tabletop_gym.envs.dominion import rules as R
    from tabletop_gym.envs.dominion.env import DominionEnv, DominionSolitaireEnv

    doc = _doc("dominion")
    for card, cost, _type, coins, vp in _table_with(doc, "coins"):
        c = R.card_id(card)
        assert (int(cost), int(coins), int(vp)) == (R.COST[c], R.COINS[c], R.VP[c]), card
    base = [row[0] for row in _table_with(doc, "coins")]
    assert base == [R.CARD_NAMES[c] for c in R.BASE_CARDS]
    kingdom = _table_with(doc, "what it does when played")
    assert [row[0] for row in kingdom] == [R.CARD_NAMES[c] for c in R.FIRST_GAME]
    assert all(int(row[1]) == R.COST[R.card_id(row[0])] for row in kingdom)
    assert R.parse_kingdom("first-game") == R.FIRST_GAME
    supply = {row[0]: row[1:] for row in _table(doc, "pile")}
    for players in range(1, R.MAX_PLAYERS + 1):
        sizes = R.supply_sizes(players, R.FIRST_GAME)
        for c in R.BASE_CARDS:
            assert _number(supply[R.CARD_NAMES[c]][players - 1]) == sizes[c], (c, players)
        assert all(_number(supply["each kingdom card in the game"][players - 1]) == sizes[c]
                   for c in R.FIRST_GAME)
    text = _flat(doc)
    assert f"ids 0 to {R.NUM_CARDS - 1} in the order {', '.join(R.CARD_NAMES)}." in text
    assert f"(`--target`, 1 to {R.MAX_TARGET}, default {R.DEFAULT_TARGET})" in text
    assert f"Each player's deck is 7 Coppers and 3 Estates, shuffled; each draws {R.HAND_SIZE} cards" in text
    assert f"discards down to {R.MILITIA_KEEP} cards" in text
    versus = inspect.signature(DominionEnv).parameters["turn_limit"].default
    solitaire = inspect.signature(DominionSolitaireEnv).parameters["turn_limit"].default
    assert f"`turn_limit` turns (default {versus})" in text
    assert f"after `turn_limit` turns (default {solitaire})" in text


def _table_with(text: str, header_cell: str) -> list[list[str]]:
    """The body rows of the one table whose header has the cell ``header_cell``."""
    found = [t for t in _tables(text) if header_cell in t[0]]
    assert len(found) == 1, f"expected one table with the column {header_cell!r}, found {len(found)}"
    return found[0][1:]


def test_modern_art_deck_deals_and_parameters_are_the_engines() -> None:
    from tabletop_gym.envs.modern_art.rules import (
        ARTIST_CHARS,
        ARTISTS,
        DEFAULT_DEALS,
        SYMBOL_CHARS,
        SYMBOLS,
        ModernArtRules,
    )

    doc = _doc("modern-art")
    header = [t[0] for t in _tables(doc) if t[0][0] == "artist"]
    assert header and header[0][3:9] == list(SYMBOLS)
    deck = _table(doc, "artist")
    assert [row[0] for row in deck] == list(ARTISTS)
    rules = ModernArtRules()
    for a, row in enumerate(deck):
        assert row[1] == ARTIST_CHARS[a]
        assert [int(c) for c in row[3:9]] == list(rules.deck[a]), ARTISTS[a]
        assert int(row[9]) == sum(rules.deck[a])
    symbols = _table(doc, "symbol")
    assert [(row[0], row[1].strip("`")) for row in symbols] == list(zip(SYMBOLS, SYMBOL_CHARS, strict=True))
    text = _flat(doc)
    plain = sum(row[0] for row in rules.deck)
    assert f"{rules.num_cards} cards in all" in text
    assert f"{rules.num_cards - plain} symbol cards and {plain} plain ones" in text
    deals = {int(row[0]): row[1:] for row in _table(doc, "players")}
    assert sorted(deals) == sorted(DEFAULT_DEALS)
    for players, row in deals.items():
        game = ModernArtRules(players=players)
        assert [int(c) for c in row[:-1]] == list(game.deals), players
        assert int(row[-1]) == game.round_limit, players
    params = {row[0].strip("`"): row[1] for row in _table(doc, "parameter")}
    fields = [f.name for f in dataclasses.fields(ModernArtRules) if not f.name.startswith("_")]
    assert set(params) == set(fields)
    for name in fields:
        default = getattr(rules, name)
        if isinstance(default, bool):
            assert params[name] == ("on" if default else "off"), name
        elif name == "value_tokens":
            assert params[name] == ", ".join(map(str, default))
        elif isinstance(default, int) and name not in ("players", "round_limit"):
            assert params[name] == str(default), name
    assert params["players"] == str(rules.players)
    two, more = ModernArtRules(players=2).round_limit, ModernArtRules(players=3).round_limit
    assert params["round_limit"] == f"{two} with 2 players, else {more}"
    assert all(ModernArtRules(players=p).round_limit == more for p in DEFAULT_DEALS if p > 3)
    assert f"{rules.award_tokens} award tokens, each adding {rules.award_value}" in text


def test_the_package_points_at_its_own_rules_files() -> None:
    """Each engine's docstring names the rules file that ships in the repository, and nothing in the
    package or the README sends a reader to a rules folder outside it."""
    import importlib

    from tabletop_gym.training.games import game_names

    root = RULES.parent.parent
    for game in game_names():
        rules = importlib.import_module(f"tabletop_gym.envs.{game}.rules")
        assert f"docs/rules/{game.replace('_', '-')}.md" in (rules.__doc__ or ""), game
    for path in [root / "README.md", *sorted((root / "tabletop_gym").rglob("*.py"))]:
        assert "shared/rules" not in path.read_text(encoding="utf-8"), path
