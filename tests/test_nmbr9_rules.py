"""Nmbr9 engine: tiles, rotations, every placement rule on hand-built boards, scoring, deal strings."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.nmbr9.rules import (
    TILE_ROWS,
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    decode_action,
    distinct_rotations,
    encode_action,
    footprint,
    parse_deal,
    random_deal,
    replay,
    tile_area,
    tile_picture,
    tile_rotations,
    translate_plan,
)

G = 8  # grid of the hand-built boards


def act(rotation: int, row: int, col: int, grid: int = G) -> int:
    return encode_action(rotation, row, col, grid)


def state(cards: str, grid: int = G, levels: int | None = None) -> Nmbr9State:
    return Nmbr9State(Deal(tuple(int(c) for c in cards)), grid, levels)


def picture(cells) -> list[str]:
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    return ["".join("#" if (r, c) in cells else "." for c in range(cols)) for r in range(rows)]


# --- tiles -----------------------------------------------------------------------------------------


def test_areas_match_the_rules_file() -> None:
    assert [tile_area(v) for v in range(10)] == [10, 5, 9, 9, 8, 10, 9, 7, 8, 10]


def test_zero_has_a_hole_that_is_not_part_of_the_tile() -> None:
    cells = set(tile_rotations(0)[0])
    assert (1, 1) not in cells and (2, 1) not in cells
    assert len(cells) == 10


def test_rotation_is_a_clockwise_quarter_turn() -> None:
    # The 2 turned once clockwise, drawn by hand from the rules file's picture.
    assert picture(set(tile_rotations(2)[1])) == ["##..", "####", "#.##"]
    assert picture(set(tile_rotations(7)[2])) == ["..#", ".##", ".#.", "###"]


def test_distinct_rotations() -> None:
    for v in range(10):
        expected = 2 if v in (0, 8) else 4
        assert len(distinct_rotations(v)) == expected
        shapes = {tile_rotations(v)[r] for r in range(4)}
        assert len(shapes) == expected


def _mirror(cells):
    width = max(c for _, c in cells)
    return tuple(sorted((r, width - c) for r, c in cells))


def test_rotations_never_mirror() -> None:
    # A tile whose mirror image is not one of its four turns must never be placeable mirrored.
    chiral = 0
    for v in range(10):
        base = tuple(
            sorted((r, c) for r, row in enumerate(TILE_ROWS[v]) for c, ch in enumerate(row) if ch == "#")
        )
        mirrored = _mirror(base)
        turns = set(tile_rotations(v))
        assert base in turns
        footprints = set()
        s = state(str(v))
        for a in s.legal_actions():
            rotation, row, col = decode_action(a, G)
            footprints.add(tuple(sorted((r - row, c - col) for r, c in footprint(v, a, G))))
        assert footprints == {tile_rotations(v)[r] for r in distinct_rotations(v)}
        if mirrored not in turns:
            chiral += 1
            assert mirrored not in footprints
    assert chiral >= 6  # 1, 2, 3, 4, 5, 6, 7, 9 are not mirror-symmetric


def test_first_tile_goes_anywhere_on_the_grid() -> None:
    for v in range(10):
        expected = 0
        for r in distinct_rotations(v):
            cells = tile_rotations(v)[r]
            h = max(a for a, _ in cells) + 1
            w = max(b for _, b in cells) + 1
            expected += (G - h + 1) * (G - w + 1)
        assert int(state(str(v)).action_mask().sum()) == expected


# --- placement rules, each violated once ----------------------------------------------------------


def test_level0_must_touch_an_edge_not_a_corner() -> None:
    s = state("99")
    s.apply(act(0, 0, 0))  # 9 upright in the top-left corner: rows 0-3, cols 0-2
    mask = s.action_mask()
    assert mask[act(0, 0, 3)]  # right next to it, sharing edges
    assert not mask[act(0, 4, 4)]  # far away: no shared edge
    # A 9 whose only contact is a corner: the 9's cell (3,1) vs the new tile's (4,2).
    diagonal = act(0, 4, 2)
    cells = set(footprint(9, diagonal, G))
    assert (4, 2) in cells and (4, 1) not in cells and (3, 2) not in cells
    assert not mask[diagonal]
    with pytest.raises(IllegalActionError, match="share an edge"):
        s.copy().apply(diagonal)


def test_level0_cannot_overlap() -> None:
    s = state("99")
    s.apply(act(0, 0, 0))
    assert not s.action_mask()[act(0, 1, 1)]  # half on the 9, half on the table


def test_upper_tile_must_rest_on_two_tiles() -> None:
    s = state("999")
    s.apply(act(0, 0, 0))
    s.apply(act(0, 0, 3))
    assert not s.action_mask()[act(0, 0, 0)]  # exactly on one 9
    with pytest.raises(IllegalActionError, match="two different tiles"):
        s.copy().apply(act(0, 0, 0))
    # Straddling both 9s: rows 0-1 are full (###|###); a 9 turned once (####/####/..##) at col 1
    # covers (0..1, 1..4) and (2, 3..4), all on the second 9's foot or the two top rows.
    straddle = act(1, 0, 1)
    assert {s.top[r, c] for r, c in footprint(9, straddle, G)} == {0, 1}
    assert all(s.height[r, c] == 1 for r, c in footprint(9, straddle, G))
    assert s.action_mask()[straddle]
    assert s.apply(straddle) == 9  # level 1


def test_upper_tile_cannot_overhang() -> None:
    s = state("995")
    s.apply(act(0, 0, 0))
    s.apply(act(0, 0, 3))
    # A 5 (###,###,..#,###) at row 1, col 2 covers (2,2), which is empty (the 9's foot is ##.)
    overhang = act(0, 1, 2)
    heights = {int(s.height[r, c]) for r, c in footprint(5, overhang, G)}
    assert heights == {0, 1}
    assert not s.action_mask()[overhang]
    with pytest.raises(IllegalActionError, match="different heights"):
        s.copy().apply(overhang)


def test_upper_tile_cannot_rest_over_the_hole_of_a_zero() -> None:
    # Two 0s side by side: a 1 (##, .#, .#, .#) whose stem goes down the hole of the left 0 is unsupported.
    s = state("001")
    s.apply(act(0, 0, 0))
    s.apply(act(0, 0, 3))
    over_hole = act(0, 0, 0)  # the 1's stem at col 1, rows 1-3: (1,1) and (2,1) are the hole
    assert s.height[1, 1] == 0 and s.height[2, 1] == 0
    assert not s.action_mask()[over_hole]
    # The 1 turned once (...# / ####) lying along the bottom row straddles both 0s: legal.
    assert picture(set(tile_rotations(1)[1])) == ["...#", "####"]
    assert s.action_mask()[act(1, 2, 2)]
    assert s.apply(act(1, 2, 2)) == 1


def test_second_tile_of_a_level_must_touch_the_first() -> None:
    s = state("999991")
    s.apply(act(1, 0, 0))  # 9 turned once: 3 rows x 4 cols
    s.apply(act(1, 0, 4))
    s.apply(act(1, 3, 0))
    s.apply(act(1, 3, 4))
    # Level 0 is now a solid-ish 6x8 block. First level-1 tile needs no neighbour on level 1.
    first = next(a for a in s.legal_actions() if s.level_of(a) == 1)
    s.apply(first)
    level1 = {a: s.level_of(a) for a in s.legal_actions()}
    assert all(v in (0, 1) for v in level1.values())
    cells_first = set(footprint(9, first, G))
    for a in range(s.num_actions):
        cells = footprint(1, a, G)
        if any(not (0 <= r < G and 0 <= c < G) for r, c in cells):
            continue
        if decode_action(a, G)[0] not in distinct_rotations(1):
            continue
        if {int(s.height[r, c]) for r, c in cells} != {1}:
            continue
        if len({int(s.top[r, c]) for r, c in cells}) < 2:
            continue
        touches = any(
            (r + dr, c + dc) in cells_first for r, c in cells for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
        )
        assert bool(s.action_mask()[a]) == touches, (a, touches)


def test_level_limit() -> None:
    s = state("999", levels=1)
    s.apply(act(0, 0, 0))
    s.apply(act(0, 0, 3))
    assert all(s.level_of(a) == 0 for a in s.legal_actions())
    with pytest.raises(IllegalActionError, match="level limit"):
        s.apply(act(1, 0, 1))  # the straddle that is legal without the limit


def test_tile_with_no_placement_is_discarded() -> None:
    # On a 4x4 grid a 0 fills three columns; the 1 needs two columns side by side and cannot go up.
    s = Nmbr9State(Deal((0, 1, 9)), grid=4)
    s.apply(encode_action(0, 0, 0, 4))
    assert s.done and s.discarded == 2 and s.placements[1:] == [None, None]
    assert s.score == 0


def test_illegal_and_finished() -> None:
    s = state("9")
    with pytest.raises(IllegalActionError) as err:
        s.apply(act(0, G - 1, G - 1))
    assert err.value.action == act(0, G - 1, G - 1) and len(err.value.legal) == int(s.action_mask().sum())
    with pytest.raises(IllegalActionError):
        s.apply(-1)
    with pytest.raises(IllegalActionError):
        s.apply(4 * G * G)
    with pytest.raises(IllegalActionError, match="half turn"):
        state("8").apply(act(2, 0, 0))
    s.apply(act(0, 0, 0))
    with pytest.raises(GameOverError):
        s.apply(act(0, 0, 3))


# --- scoring and replay ---------------------------------------------------------------------------


def test_score_is_value_times_level() -> None:
    s = state("9987")
    s.apply(act(0, 0, 0))
    s.apply(act(0, 0, 3))
    up = next(a for a in s.legal_actions() if s.level_of(a) == 1)
    flat = next(a for a in s.legal_actions() if s.level_of(a) == 0)
    assert s.copy().apply(flat) == 0
    assert s.points_if_placed(up) == 8
    assert s.apply(up) == 8
    assert s.score == 8 and s.placements[-1].level == 1
    s.apply(next(a for a in s.legal_actions() if s.level_of(a) == 0))
    assert s.score == 8 and s.done


def test_random_plays_match_an_independent_slow_checker() -> None:
    rng = np.random.default_rng(5)
    for game in range(6):
        grid = 7 + game % 3
        s = Nmbr9State(random_deal(game, Variant(9, 2, 12)), grid)
        while not s.done:
            assert np.array_equal(s.action_mask(), _slow_mask(s)), (game, s.turn)
            s.apply(int(rng.choice(s.legal_actions())))
        # Heights are the number of tiles covering each cell; score is the sum of value x level.
        cover = np.zeros((grid, grid), dtype=int)
        for p in s.placements:
            if p is not None:
                for r, c in footprint(p.value, p.action, grid):
                    cover[r, c] += 1
        assert np.array_equal(cover, s.height)
        assert s.score == sum(p.value * p.level for p in s.placements if p is not None)


def _slow_mask(s: Nmbr9State) -> np.ndarray:
    """Legality straight from the rules text, one placement at a time, from the placed tiles alone."""
    grid = s.grid
    value = s.card
    placed = [(i, set(footprint(p.value, p.action, grid)), p.level) for i, p in enumerate(s.placements) if p]
    mask = np.zeros(4 * grid * grid, dtype=bool)
    for a in range(4 * grid * grid):
        rotation = a // (grid * grid)
        if rotation not in distinct_rotations(value):
            continue
        cells = set(footprint(value, a, grid))
        if any(not (0 <= r < grid and 0 <= c < grid) for r, c in cells):
            continue
        for level in range(len(placed) + 1):
            if any(lv == level and cells & fp for _, fp, lv in placed):
                continue  # overlaps a tile on this level
            if level > 0:
                below = [i for i, fp, lv in placed if lv == level - 1 and cells & fp]
                support = set().union(*[fp for _, fp, lv in placed if lv == level - 1]) if below else set()
                if not cells <= support or len(below) < 2:
                    continue
            # Nothing above this level over these cells either (no tile can float).
            if any(lv > level and cells & fp for _, fp, lv in placed):
                continue
            same = [fp for _, fp, lv in placed if lv == level]
            if same:
                ring = {(r + dr, c + dc) for r, c in cells for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
                if not any(ring & fp for fp in same):
                    continue
            mask[a] = True
    return mask


def test_replay_and_translate() -> None:
    deal = random_deal(1, Variant(9, 2, 8))
    rng = np.random.default_rng(0)
    s = Nmbr9State(deal, 10)
    while not s.done:
        s.apply(int(rng.choice(s.legal_actions())))
    plan = [p.action for p in s.placements if p is not None]  # discarded cards have no action
    assert replay(Nmbr9Rules(grid=10), deal, plan).score == s.score
    moved = translate_plan(deal, plan, 10, 16)
    assert replay(Nmbr9Rules(grid=16), deal, moved).score == s.score


# --- deals and variants -----------------------------------------------------------------------------


def test_deal_strings() -> None:
    deal = parse_deal("90817263549081726354")
    assert deal.cards[:3] == (9, 0, 8) and str(deal) == "90817263549081726354"
    assert str(random_deal(3)) == str(random_deal(3))
    assert sorted(random_deal(3).cards) == sorted(Variant().full_deck)
    small = parse_deal("601", Variant(6, 2, 3))
    assert small.cards == (6, 0, 1)


@pytest.mark.parametrize(
    ("text", "variant", "match"),
    [
        ("9081726354908172635", Variant(), "has 19 cards"),
        ("9081726354908172635x", Variant(), "character 'x'"),
        ("99981726354018172635", Variant(), "value 9 3 times"),
        ("7", Variant(6, 2, 1), "not a card value"),
        (12, Variant(), "must be a string"),
    ],
)
def test_bad_deal_strings(text, variant, match) -> None:
    with pytest.raises(InvalidDealError, match=match):
        parse_deal(text, variant)


def test_bad_variants() -> None:
    with pytest.raises(InvalidDealError, match=r"cards \(k\) must be from 1 to 14, got 15"):
        Variant(6, 2, 15)
    with pytest.raises(InvalidDealError, match=r"max_value \(m, 0-9\)"):
        Variant(10, 2, 5)
    with pytest.raises(InvalidDealError, match=r"copies \(c, 1-10\)"):
        Variant(6, 0, 5)
    with pytest.raises(InvalidDealError):
        Variant.parse("9-2")
    assert Variant.parse("F-6-2-5") == Variant(6, 2, 5)
    with pytest.raises(ValueError, match="grid"):
        Nmbr9State(Deal((1,)), grid=2)


def test_a_variant_never_asks_for_a_huge_deck() -> None:
    # 9-1000000000-20 used to build a deck of 10^10 cards before drawing 20 of them.
    with pytest.raises(InvalidDealError, match=r"copies \(c, 1-10\) must be at most 10, got 1000000000"):
        Variant.parse("9-1000000000-20")
    with pytest.raises(InvalidDealError, match="m is 0-9, c is 1-10"):
        Variant.parse("9-" + "9" * 5000 + "-20")  # no int() of 5000 digits, a short message
    with pytest.raises(InvalidDealError, match="written m-c-k"):
        Variant.parse("9-2-²")  # '²'.isdigit() is True, int('²') fails
    with pytest.raises(InvalidDealError, match="must be an integer"):
        Variant(9, 2.0, 20)
    with pytest.raises(InvalidDealError, match="must be an integer"):
        Variant(9, True, 20)
    assert Variant(np.int64(9), np.int32(2), np.int64(20)) == Variant()
    assert type(Variant(np.int64(9), 2, 20).max_value) is int


def test_grid_and_levels_are_checked_by_name() -> None:
    assert Nmbr9State(Deal((1,)), np.int64(8), np.int64(2)).grid == 8
    with pytest.raises(ValueError, match=r"grid \(cells per side, 4-64\) must be at most 64"):
        Nmbr9State(Deal((1,)), grid=65)
    with pytest.raises(ValueError, match="levels .* must be at least 1, got 0"):
        Nmbr9State(Deal((1,)), levels=0)
    with pytest.raises(ValueError, match="levels .* must be an integer"):
        Nmbr9State(Deal((1,)), levels=2.5)


def test_deal_errors_quote_a_bounded_prefix() -> None:
    huge = "9" * 1_000_000
    with pytest.raises(InvalidDealError) as error:
        parse_deal(huge)
    assert len(str(error.value)) < 300 and "1000000 characters" in str(error.value)
    with pytest.raises(InvalidDealError) as error:
        parse_deal("x" * 10_000)
    assert len(str(error.value)) < 300


def test_render_has_coordinates_and_a_legend() -> None:
    s = state("3", grid=12)
    s.apply(encode_action(0, 8, 9, 12))
    lines = s.render().splitlines()
    assert lines[1].split() == ["11", "11"] and "012345678901" in lines[2]  # column numbers: tens, then units
    row8 = next(line for line in lines if line.startswith(" 8 ")).split()
    assert row8 == ["8", ".........333", "8", ".........111"]  # top tiles' values, then heights
    text = "\n".join(lines)
    assert "lands on level h" in text and "game over  score 0" in text
    assert tile_picture(7, 0) == ("###", ".#.", "##.", "#..")
    assert tile_picture(1, 1) == ("...#", "####")
