"""The contract test kit (``tabletop_gym.testing``) over every registered ``tabletop/*`` id, at small
settings, and the kit's own tests: a tiny card game that passes every check, and broken copies of
it, each failing one check, so that every check is seen to fail where it should.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym import testing
from tabletop_gym.core import GameOverError, IllegalActionError, LegalActionSpace, TabletopEnv
from tabletop_gym.envs.dominion.rules import DominionRules, DominionState
from tabletop_gym.envs.modern_art.rules import ModernArtRules
from tabletop_gym.envs.modern_art.rules import random_deal as modern_art_deal

ROOT = str(Path(__file__).resolve().parents[1])

# Small settings of every registered id: each check's episodes stay short. Where an id has more
# than one form of hidden information (War's two observations), each form is a case.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("tabletop/Cribbage-v0", {"pile_size": 3}),
    ("tabletop/War-v0", {"ranks": 6, "suits": 2}),
    ("tabletop/War-v0", {"ranks": 6, "suits": 2, "pickup": "random"}),
    ("tabletop/War-v0", {"ranks": 2, "suits": 6, "observation": "hidden"}),
    ("tabletop/War-v0", {"ranks": 6, "suits": 2, "observation": "hidden"}),
    ("tabletop/War-v0", {"ranks": 13, "suits": 4, "observation": "hidden", "horizon": 12}),
    ("tabletop/Dominion-v0", {"turn_limit": 5}),
    ("tabletop/Dominion-v0", {"opponents": ["big-money", "smithy-big-money"], "seat": 1, "turn_limit": 4}),
    ("tabletop/DominionSolitaire-v0", {"target": 1, "turn_limit": 10}),
    ("tabletop/DominionSolitaire-v0", {"kingdom": "first-game", "target": 1, "turn_limit": 8}),
    ("tabletop/ModernArt-v0", {"rounds": 1}),
    ("tabletop/ModernArt-v0", {"players": 3, "seat": 1, "deals": (3, 2), "round_limit": 2}),
    ("tabletop/ModernArt-v0", {"players": 4, "deals": (2, 2), "round_limit": 2}),
    ("tabletop/Nmbr9-v0", {"max_value": 4, "copies": 2, "cards": 6, "grid": 8}),
    ("tabletop/Nmbr9-v0", {"max_value": 5, "copies": 1, "cards": 5, "grid": 7, "levels": 2}),
]
CASE_IDS = [f"{env_id.split('/')[1]}-{i}" for i, (env_id, _) in enumerate(CASES)]

# How each id's oracle plans play in its environment: as the agent's actions ("agent"), as every
# player's ("every_seat": Modern Art's oracle plans every seat's moves), or not at all (None, with
# the reason) where the package has no per-deal oracle for that environment.
PLANS: dict[str, str | None] = {
    "tabletop/Cribbage-v0": "agent",
    "tabletop/War-v0": "agent",
    "tabletop/Dominion-v0": None,  # the game against bots has no per-deal oracle, so no suite
    "tabletop/DominionSolitaire-v0": "agent",
    "tabletop/ModernArt-v0": "every_seat",
    "tabletop/Nmbr9-v0": "agent",
}

# Under War's random pickup convention player 1's pickups are drawn from the seed's stream after
# the deal (War's docstring says so): the deal string given back plays the deal, not the seed's
# pickups.
DEAL_LEAVES_RANDOMNESS = {"pickup": "random"}

CHECKS = {
    "gymnasium_api": lambda env_id, kwargs: testing.check_gymnasium_api(env_id, kwargs),
    "seed_determinism": lambda env_id, kwargs: testing.check_seed_determinism(
        env_id, kwargs, replays_by_deal=not DEAL_LEAVES_RANDOMNESS.items() <= kwargs.items()
    ),
    "pickle_and_deepcopy": lambda env_id, kwargs: testing.check_pickle_and_deepcopy(env_id, kwargs),
    "masks": lambda env_id, kwargs: testing.check_masks(env_id, kwargs),
    "info_schema": lambda env_id, kwargs: testing.check_info_schema(env_id, kwargs),
    "hidden_information": lambda env_id, kwargs: testing.check_hidden_information(env_id, kwargs),
}


def _registered() -> set[str]:
    return {env_id for env_id in gym.registry if env_id.startswith("tabletop/")}


def test_every_registered_id_is_covered() -> None:
    # A game registered without a case here would escape the kit: this fails until it has one.
    assert {env_id for env_id, _ in CASES} == _registered()
    assert set(PLANS) == _registered()


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("env_id, kwargs", CASES, ids=CASE_IDS)
def test_registered_environment_keeps_the_contract(env_id: str, kwargs: dict[str, Any], check: str) -> None:
    result = CHECKS[check](env_id, kwargs)
    if check == "hidden_information":
        # It compares nothing, and passes, only where the deal is public.
        assert (result == 0) == gym.make(env_id, **kwargs).unwrapped.deal_is_public


def test_war_random_pickups_are_not_in_the_deal() -> None:
    # Why DEAL_LEAVES_RANDOMNESS: without it the check fails there; should the deal string come to
    # replay the pickups too, this fails and the exemption goes.
    kwargs = next(k for env_id, k in CASES if DEAL_LEAVES_RANDOMNESS.items() <= k.items())
    with pytest.raises(AssertionError, match="seed's own deal played differently"):
        testing.check_seed_determinism("tabletop/War-v0", kwargs)


def test_the_kit_needs_no_pytest() -> None:
    code = "import sys; sys.modules['pytest'] = None; import tabletop_gym.testing"
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": ROOT})


@pytest.mark.parametrize("env_id", sorted(PLANS))
def test_oracle_plans_replay_in_the_environment(env_id: str) -> None:
    if PLANS[env_id] is None:
        # Nothing to replay; should a suite ship for it one day, this fails until PLANS says how.
        assert testing.shipped_suites(env_id) == []
        return
    assert testing.check_plans_replay(env_id, every_seat=PLANS[env_id] == "every_seat") >= 2


# -- the engine contract: each engine's state and replay (tabletop_gym.testing.check_engine) -------

# Rules and a deal of each engine, small enough to play to the end quickly.
ENGINES: list[tuple[Any, Any]] = [
    (DominionRules(), "5"),  # the solitaire benchmark: treasure game, 4 Provinces
    (DominionRules(1, "first-game", 1, 12), 7),  # every card's choices, cut at 12 turns
    (DominionRules(3, "first-game", None, 5), "11"),  # three players: Militia's victims, Moat
    # Modern Art, each from the deal of seed 0: one round, three players with the variants, full rules.
    *[
        (ModernArtRules(**params), modern_art_deal(ModernArtRules(**params), 0))
        for params in (
            {"deals": (13,)},
            {"players": 3, "deals": (3, 2), "round_limit": 2, "end_of_round_plays": True,
             "second_card_symbols": True},
            {"players": 2},
        )
    ],
]


@pytest.mark.parametrize(
    "rules, deal", ENGINES, ids=[f"{type(r).__name__}-{i}" for i, (r, _) in enumerate(ENGINES)]
)
def test_engine_keeps_the_contract(rules: Any, deal: Any) -> None:
    assert testing.check_engine(rules, deal) > 0  # actions were played, so every check ran


class _SharedCopy(DominionState):
    def copy(self) -> DominionState:
        return self  # not a copy: what is applied to it happens to the original


def _replay_with(cls: type, skip_illegal: bool = False, drop_last: bool = False) -> Any:
    def replay(rules: DominionRules, deal: Any, plan: list[int]) -> DominionState:
        state = cls(rules.players, rules.kingdom, deal, rules.target, rules.turn_limit)
        for i, action in enumerate(plan):
            legal = action in state.legal_actions()
            if (skip_illegal and not legal) or (drop_last and legal and i == len(plan) - 1):
                continue
            state.apply(action)
        return state

    return replay


@pytest.mark.parametrize(
    ("replay", "message"),
    [
        (_replay_with(_SharedCopy), "on a copy changed the original"),
        (_replay_with(DominionState, skip_illegal=True), "illegal action [0-9]+ did not raise"),
        (_replay_with(DominionState, drop_last=True), "replay of the [0-9]+ actions played differs"),
    ],
)
def test_engine_check_fails_where_the_contract_is_broken(replay: Any, message: str) -> None:
    with pytest.raises(testing.ContractError, match=message):
        testing.check_engine(DominionRules(), "5", replay=replay)


# -- the kit's own tests: a tiny game, and broken copies of it -------------------------------------

CARDS = 6
TAKE, SKIP, DOUBLE = 0, 1, 2


class Toy(TabletopEnv):
    """Six cards, valued 0-5, shuffled by the seed; each turn the top card is shown and the player
    takes it (its value in points), skips it, or, for an even value only, doubles it (twice its
    value). The order of the cards to come is hidden. A deal is the order of the values, e.g.
    ``"302514"``."""

    def __init__(self, render_mode: str | None = None, reveal_deal: bool = False) -> None:
        self._check_render_mode(render_mode)
        self._set_reveal_deal(reveal_deal)
        self.render_mode = render_mode
        self.observation_space = spaces.MultiDiscrete([CARDS + 1, CARDS + 1])
        self.action_space = LegalActionSpace(3, self)
        self.state: Any = None

    def _deal(self, options: Any) -> list[int]:
        deal = self._deal_option(options)
        if deal is not None:
            return [int(c) for c in deal]
        return [int(c) for c in self.np_random.permutation(CARDS)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.state = SimpleNamespace(cards=self._deal(options), turn=0, score=0, done=False)
        return self._observation(), self._info()

    def step(self, action: Any) -> Any:
        state = self._require_state()
        if state.done:
            raise GameOverError("the episode has ended; call reset()")
        action = self._action_index(action)
        if not self.action_masks()[action]:
            raise IllegalActionError(action, np.flatnonzero(self.action_masks()).tolist())
        points = {TAKE: 1, SKIP: 0, DOUBLE: 2}[action] * state.cards[state.turn]
        state.score += points
        state.turn += 1
        state.done = state.turn == CARDS
        return self._observation(), float(points), state.done, False, self._info()

    def action_masks(self) -> np.ndarray:
        state = self._require_state()
        if state.done:
            return np.zeros(3, dtype=bool)
        return np.array([True, True, state.cards[state.turn] % 2 == 0])

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return f"card {self._observation()[0]}, score {self.state.score}"

    def _observation(self) -> np.ndarray:
        state = self.state
        card = CARDS if state.done else state.cards[state.turn]
        return np.array([card, CARDS - state.turn], dtype=np.int64)

    def _info(self) -> dict[str, Any]:
        state = self.state
        info = {"action_mask": self.action_masks().astype(np.int8), "score": state.score}
        return self._add_deal(info, "".join(map(str, state.cards)), state.done)

    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[Toy, np.ndarray, dict[str, Any]]]:
        state = self.state
        future = state.cards[state.turn + 1 :]
        shuffled = [int(c) for c in rng.permutation(future)]
        if shuffled == future:
            return []
        twin = copy.deepcopy(self)
        twin.state.cards = state.cards[: state.turn + 1] + shuffled
        return [(twin, twin._observation(), twin._info())]


def _plan(deal: str) -> tuple[list[int], int]:
    """The best play of a deal (double every even card, take every odd one) and its score."""
    plan = [DOUBLE if int(c) % 2 == 0 else TAKE for c in deal]
    return plan, sum(int(c) * (1 + (int(c) % 2 == 0)) for c in deal)


def _suite(env_id: str, *entries: tuple[str, list[int], int]) -> Any:
    rows = [
        SimpleNamespace(seed=i, deal=deal, plan=plan, score=score)
        for i, (deal, plan, score) in enumerate(entries)
    ]
    return SimpleNamespace(id="toy-v0", env_id=env_id, env_kwargs={}, entries=rows)


def _register(cls: type) -> str:
    env_id = f"kit-toy/{cls.__name__}-v0"
    if env_id not in gym.registry:
        gym.register(id=env_id, entry_point=cls)
    return env_id


TOY = _register(Toy)


def test_the_toy_game_keeps_the_contract() -> None:
    # The broken copies below each break one thing of a game that passes every check.
    suite = _suite(TOY, ("302514", *_plan("302514")), ("015243", *_plan("015243")))
    testing.check_environment(TOY, seeds=range(4), suites=[suite])
    assert testing.check_hidden_information(TOY) > 0


def _fails(env_id: str, check: Any, *match: str, **kwargs: Any) -> None:
    """``check`` on ``env_id`` raises an AssertionError that names the id, the check, and says
    ``match`` (regular expressions, in order)."""
    with pytest.raises(AssertionError, match=".*".join([env_id, f"{check.__name__} failed", *match])):
        check(env_id, **kwargs)


class ObservationOutOfSpace(Toy):
    def _observation(self) -> np.ndarray:
        return super()._observation() + CARDS + 1


def test_gymnasium_api_fails_on_an_observation_outside_its_space() -> None:
    _fails(_register(ObservationOutOfSpace), testing.check_gymnasium_api, "check_env", "observation")


class UnseededDeal(Toy):
    def _deal(self, options: Any) -> list[int]:
        if self._deal_option(options) is not None:
            return super()._deal(options)
        return [int(c) for c in np.random.default_rng().permutation(CARDS)]  # not the episode's seed


class SameDealForEverySeed(Toy):
    def _deal(self, options: Any) -> list[int]:
        return super()._deal(options) if self._deal_option(options) is not None else [3, 0, 2, 5, 1, 4]


class GivenDealIgnored(Toy):
    def _deal(self, options: Any) -> list[int]:
        return [int(c) for c in self.np_random.permutation(CARDS)]  # reset(options={"deal": ...}) ignored


def test_seed_determinism_fails_where_the_seed_does_not_decide_the_deal() -> None:
    _fails(_register(UnseededDeal), testing.check_seed_determinism, "same seed played differently")
    _fails(_register(SameDealForEverySeed), testing.check_seed_determinism, "gave only 1 different deal")
    _fails(_register(GivenDealIgnored), testing.check_seed_determinism, r"options=\{'deal'.*played the deal")


class Unpicklable(Toy):
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.on_step = lambda: None  # a lambda does not pickle
        return super().reset(seed=seed, options=options)


class CopyLosesTheScore(Toy):
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["state"] = SimpleNamespace(**{**vars(self.state), "score": 0}) if self.state else None
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> CopyLosesTheScore:
        other = type(self).__new__(type(self))
        memo[id(self)] = other  # so that the copied action space follows the copy
        other.__setstate__(copy.deepcopy(self.__getstate__(), memo))
        return other


def test_pickle_and_deepcopy_fail_where_a_copy_does_not_play_on() -> None:
    _fails(_register(Unpicklable), testing.check_pickle_and_deepcopy, "seed 0, step 0", "pickle raised")
    _fails(
        _register(CopyLosesTheScore),
        testing.check_pickle_and_deepcopy,
        "step [1-9]",
        "played on differently",
        "score",
    )


class MaskDisagrees(Toy):
    def _info(self) -> dict[str, Any]:
        info = super()._info()
        if not self.state.done:
            info["action_mask"][DOUBLE] = 1  # doubling an odd card looks legal
        return info


class BoolMaskInInfo(Toy):
    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "action_mask": self.action_masks()}


class AcceptsAnIllegalAction(Toy):
    def action_masks(self) -> np.ndarray:
        mask = super().action_masks()
        if not self.state.done:
            mask[SKIP] = self.state.turn % 2 == 0  # skipping is "illegal" on odd turns...
        return mask

    def step(self, action: Any) -> Any:
        state = self.state
        if int(action) == SKIP and not state.done:  # ...yet step takes it
            state.turn += 1
            state.done = state.turn == CARDS
            return self._observation(), 0.0, state.done, False, self._info()
        return super().step(action)


class RaisesAfterChangingTheGame(Toy):
    def step(self, action: Any) -> Any:
        if not self.state.done and action in (TAKE, SKIP, DOUBLE) and not self.action_masks()[action]:
            self.state.score -= 1  # the refused action costs a point
        return super().step(action)


class LegalActionRaises(Toy):
    def step(self, action: Any) -> Any:
        if not self.state.done and int(action) == SKIP and self.state.turn == 3:
            raise RuntimeError("no skipping at turn 3")
        return super().step(action)


class LegalMoveAfterTheEnd(Toy):
    def action_masks(self) -> np.ndarray:
        mask = super().action_masks()
        mask[SKIP] |= self._require_state().done
        return mask


def test_masks_fail_where_the_mask_and_the_actions_disagree() -> None:
    _fails(_register(MaskDisagrees), testing.check_masks, "step 0", "disagree on actions")
    _fails(_register(BoolMaskInInfo), testing.check_masks, "step 0", "np.int8")
    _fails(
        _register(AcceptsAnIllegalAction), testing.check_masks, "step 1", "masked-out action 1 was accepted"
    )
    _fails(_register(RaisesAfterChangingTheGame), testing.check_masks, "plays on differently", "score")
    _fails(_register(LegalActionRaises), testing.check_masks, "step 3", "masked-in action 1 raised Runtime")
    _fails(_register(LegalMoveAfterTheEnd), testing.check_masks, "step 6", "ended but actions")


class KeyOnlyAtTheEnd(Toy):
    def _info(self) -> dict[str, Any]:
        info = super()._info()
        if self.state.done:
            info["winner"] = True
        return info


class DealShownDuringPlay(Toy):
    deal_is_public = True  # wrongly: the order of the cards to come is hidden


class DealNotShownAtTheEnd(Toy):
    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "deal": ""}


def test_info_schema_fails_on_changing_keys_and_a_misplaced_deal() -> None:
    _fails(_register(KeyOnlyAtTheEnd), testing.check_info_schema, "step 6", "winner")
    _fails(_register(DealNotShownAtTheEnd), testing.check_info_schema, "step 6", "not the deal string")
    # Where the deal is (claimed) public, the kit holds the environment to showing it.
    _fails(_register(DealShownDuringPlay), testing.check_info_schema, "deal_is_public, but", "decides more")


class NextCardInInfo(Toy):
    def _info(self) -> dict[str, Any]:
        state = self.state
        return {**super()._info(), "next": state.cards[state.turn + 1] if state.turn + 1 < CARDS else -1}


class NoTwins(Toy):
    hidden_twins = None  # type: ignore[assignment]


class TwinSeenAtOnce(Toy):
    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[Toy, np.ndarray, dict[str, Any]]]:
        twin = copy.deepcopy(self)
        twin.state.cards = list(reversed(twin.state.cards))  # the card shown changes too
        return [(twin, twin._observation(), twin._info())]


class NeverATwin(Toy):
    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[Toy, np.ndarray, dict[str, Any]]]:
        return []


def test_hidden_information_fails_where_info_tells_what_is_hidden() -> None:
    _fails(_register(NextCardInInfo), testing.check_hidden_information, "step 0", r"info\['next'\] differs")
    _fails(_register(NoTwins), testing.check_hidden_information, "no hidden_twins")
    _fails(_register(TwinSeenAtOnce), testing.check_hidden_information, "tells apart at once")
    _fails(_register(NeverATwin), testing.check_hidden_information, "no twin at any position")


def test_plans_replay_fails_where_a_plan_does_not_reach_its_score() -> None:
    plan, score = _plan("302514")
    kit = testing.check_plans_replay
    _fails(
        TOY,
        kit,
        "entry 0",
        "scores 21 in the environment, the oracle states 22",
        suites=[_suite(TOY, ("302514", plan, score + 1))],
    )
    illegal = [DOUBLE, *plan[1:]]  # doubling the 3
    _fails(TOY, kit, "move 0 of the plan, 2, is not legal", suites=[_suite(TOY, ("302514", illegal, score))])
    _fails(TOY, kit, "played but the episode goes on", suites=[_suite(TOY, ("302514", plan[:-1], score))])
    longer = [*plan, TAKE]
    _fails(TOY, kit, "ended after 6 of the plan's 7 moves", suites=[_suite(TOY, ("302514", longer, score))])
    _fails(TOY, kit, "no suite ships")


def test_the_nmbr9_pickle_defect_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The defect as it was: Nmbr9's state pickled its height and top views as arrays of their own,
    # so a copy's board stopped following play. The kit catches it in the copy's first steps.
    from tabletop_gym.envs.nmbr9.rules import Nmbr9State

    def every_slot(self: Nmbr9State) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def as_pickled(self: Nmbr9State, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    monkeypatch.setattr(Nmbr9State, "__getstate__", every_slot)
    monkeypatch.setattr(Nmbr9State, "__setstate__", as_pickled)
    env_id, kwargs = next(case for case in CASES if case[0] == "tabletop/Nmbr9-v0")
    with pytest.raises(
        AssertionError, match=r"Nmbr9-v0.*check_pickle_and_deepcopy failed.*played on differently"
    ):
        testing.check_pickle_and_deepcopy(env_id, kwargs)


def test_war_keeps_the_engine_contract() -> None:
    from tabletop_gym.envs.war.rules import WarRules, random_deal

    rules = WarRules(ranks=6, suits=2, face_down=1, max_tricks=200)
    played = [testing.check_engine(rules, str(random_deal(seed, rules)), seed=seed) for seed in range(4)]
    assert sum(played) > 0  # decisions were made, so copies and applies were checked


# -- the engine contract (check_engine) on each game's engine ---------------------------------------


def _cribbage_engine(pile_size: int) -> tuple[Any, str]:
    from tabletop_gym.envs.cribbage.rules import CribbageRules, random_deal

    return CribbageRules(), str(random_deal(pile_size, pile_size=pile_size))


def _nmbr9_engine(variant: str, grid: int, levels: int | None) -> tuple[Any, str]:
    from tabletop_gym.envs.nmbr9.rules import Nmbr9Rules, random_deal

    rules = Nmbr9Rules(variant, grid, levels)
    return rules, str(random_deal(grid, rules.variant))


SMALL_ENGINES: dict[str, Any] = {
    "Cribbage-full": lambda: _cribbage_engine(13),
    "Cribbage-small": lambda: _cribbage_engine(3),
    "Nmbr9-small": lambda: _nmbr9_engine("4-2-6", 8, None),
    # A small board under a level limit: cards that fit nowhere are discarded by the engine.
    "Nmbr9-levels": lambda: _nmbr9_engine("9-2-8", 6, 2),
}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("engine", SMALL_ENGINES)
def test_small_engine_keeps_the_contract(engine: str, seed: int) -> None:
    rules, deal = SMALL_ENGINES[engine]()
    played = testing.check_engine(rules, deal, seed=seed)
    assert played > 0 and testing.check_engine(rules, deal, seed=seed) == played  # the seed decides the game


def test_check_engine_fails_where_a_copy_shares_the_position() -> None:
    from tabletop_gym.envs.cribbage.rules import CribbageRules, replay

    class Shallow(type(replay(CribbageRules(), "A/2/3/4", []))):
        __slots__ = ()

        def copy(self) -> Any:
            other = super().copy()
            other.heights = self.heights  # the piles' heights shared: a move on the copy moves both
            return other

    def shallow_replay(rules: Any, deal: str, plan: list[int]) -> Any:
        state = replay(rules, deal, [])
        state.__class__ = Shallow
        for action in plan:
            state.apply(action)
        return state

    with pytest.raises(testing.ContractError, match="on a copy changed the original"):
        testing.check_engine(CribbageRules(), "A/2/3/4", replay=shallow_replay)


# ---- the native vector environments' checks ------------------------------------------------------------


def test_vector_step_comparison_fails_on_any_difference() -> None:
    step = (np.zeros((2, 3)), np.zeros(2), np.zeros(2, bool), np.zeros(2, bool), {"score": np.zeros(2, int)})
    testing.assert_same_vector_step(step, step, "here")
    wrong_dtype = (step[0], np.zeros(2, np.float32), *step[2:])
    with pytest.raises(AssertionError, match="reward differs here"):
        testing.assert_same_vector_step(wrong_dtype, step, "here")
    wrong_info = (*step[:4], {"score": np.ones(2, int)})
    with pytest.raises(AssertionError, match="info score differs here"):
        testing.assert_same_vector_step(wrong_info, step, "here")
    with pytest.raises(AssertionError, match="info keys differ"):
        testing.assert_same_vector_step((*step[:4], {}), step, "here")
    board = ({"height": np.zeros((2, 4), int)}, {"info": 1})
    other = ({"height": np.ones((2, 4), int)}, {"info": 1})
    with pytest.raises(AssertionError, match="obs height differs"):
        testing.assert_same_vector_step(other, board, "here")


def test_vector_checks_fail_where_the_native_environment_strays(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop_gym.envs.cribbage.vector import CribbageVectorEnv

    stray = CribbageVectorEnv._step_result

    def rewards_doubled(self: Any, observation: Any, infos: dict[str, Any]) -> tuple:
        obs, rewards, *rest = stray(self, observation, infos)
        return (obs, rewards * 2, *rest)

    monkeypatch.setattr(CribbageVectorEnv, "_step_result", rewards_doubled)
    with pytest.raises(AssertionError, match="reward differs at step"):
        for _ in testing.vector_steps_against_sync("tabletop/Cribbage-v0", 4, 400, 0, pile_size=2):
            pass
    monkeypatch.undo()
    # A copy that forgets the scores so far plays on with other infos.
    forgetful = lambda self: {**self.__dict__, "_score": self._score * 0}  # noqa: E731
    monkeypatch.setattr(CribbageVectorEnv, "__getstate__", forgetful)
    with pytest.raises(AssertionError, match="after unpickling"):
        testing.check_vector_pickle(CribbageVectorEnv(num_envs=3), before=20, after=20)
