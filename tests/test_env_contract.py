"""What every registered game's environment keeps, whatever the game: each test runs over
every game of ``spinner_env.games.GAMES`` (as PettingZoo's own tests run over its
``all_modules``), so a game added to the registry is held to all of it. What only one
game has (its action layout, its observation, its variants, its rendering) is tested in
``tests/test_<game>_env.py``."""

from __future__ import annotations

import dataclasses
import inspect
import random
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.env_registry.registration import aec_registry
from pettingzoo.test import api_test, render_test, seed_test
from spinner_env.train import vec_env as vec_envs
from spinner_env.train.vec_env import BatchedVecEnv

from spinner_env.aec import DominoAECEnv
from spinner_env.batched.core import BatchedEngine, CompiledRules
from spinner_env.batched.rollout import BatchedRollouts
from spinner_env.core.agent import GameView, ScoringAgent
from spinner_env.core.encoding import Encoding
from spinner_env.core.game import HAND_WRITTEN_ROLES
from spinner_env.core.match import MatchState
from spinner_env.core.text import counted
from spinner_env.core.valuation import Feature
from spinner_env.games import GAMES, CompiledPlayer, GameSpec, game_of, game_spec

ADDING_A_GAME = Path(__file__).parent.parent / "docs" / "adding_a_game.md"
ENV_MODULE_NAMES = (
    "env",
    "MAX_PLAYERS",
    "raw_env",
    "ENCODING",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "OBSERVATION_SLICES",
    "ACTIONS",
    "DRAW_ACTION",
    "PASS_ACTION",
    "action_to_move",
    "move_to_action",
)
"""What docs/adding_a_game.md says a game's env module defines."""

SPECS = list(GAMES.values())
PLAYER_COUNTS = [2, 3, 5, 8]


def each_game(test):
    """Run ``test`` once per registered game (its first argument, ``game``)."""
    return pytest.mark.parametrize("game", SPECS, ids=lambda g: g.name)(test)


def play_random(env, seed: int, rng_seed: int = 0) -> dict[str, float]:
    """Masked random play of a wrapped env to the end; each agent's final reward."""
    rng = np.random.default_rng(rng_seed)
    env.reset(seed=seed)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            finals[agent] = reward
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return finals


def random_steps(env, rng: np.random.Generator) -> None:
    """Masked random actions on a raw env until the episode ends."""
    while not all(env.terminations.values()):
        env.step(int(rng.choice(env.legal_actions())))


@each_game
def test_a_registered_game_provides_every_piece(game: GameSpec):
    """docs/adding_a_game.md, piece by piece: the record's ids are registered, and every
    loader imports and returns what the other layers use."""
    assert game_spec(game.name) is game and game.gym_id in gymnasium.registry
    assert game.aec_id in aec_registry
    assert issubclass(game.raw_env, DominoAECEnv) and isinstance(game.encoding, Encoding)
    assert issubclass(game.state_class, MatchState)
    module = game.env_module
    assert [name for name in ENV_MODULE_NAMES if not hasattr(module, name)] == []
    assert module.ENCODING is game.encoding and module.raw_env is game.raw_env
    for n in range(2, 9):
        rules = game.random_rules(random.Random(n), n)
        assert isinstance(rules, game.rules_class) and rules.num_players == n
        assert game_of(rules) is game and isinstance(
            game.raw_env(num_players=n).rules, game.rules_class
        )
    rules = game.rules_class(num_players=3)

    engine = game.engine()
    assert issubclass(engine, BatchedEngine) and engine.encoding is game.encoding
    assert engine.num_actions == module.NUM_ACTIONS == game.encoding.num_actions
    assert engine.rules_class is game.rules_class and engine(2, rules).params.num_players == 3
    other = next(g for g in GAMES.values() if g is not game).rules_class()
    with pytest.raises(ValueError, match=f"rules must be {game.rules_class.__name__}"):
        engine(2, other)

    opponents = game.opponents()
    assert callable(opponents.compiled_action)
    points = opponents.greedy_points(rules)
    assert isinstance(points, np.ndarray) and points.shape == (module.NUM_ACTIONS,)
    assert isinstance(opponents.NUM_WEIGHTS, int) and opponents.NUM_WEIGHTS > 0
    policy = opponents.heuristic_policy(np.zeros(opponents.NUM_WEIGHTS), "heuristic", rules)
    assert callable(policy.act_batch)
    twin = policy.compiled_twin(rules)
    assert isinstance(twin, CompiledPlayer) and twin.kind == "heuristic"

    rollouts = game.rollouts()
    assert issubclass(rollouts, BatchedRollouts) and rollouts.engine is engine
    assert rollouts.engine.rules_class is game.rules_class
    assert isinstance(rollouts.compiled, CompiledRules)
    state = game.new_state(3, seed=0)
    record = np.zeros(1, engine.game_dtype)[0]
    rollouts.load_state(record, state)
    read = rollouts.state_of(record, state.rules)  # validated: a hand in play of the rules
    assert [set(hand) for hand in read.hands] == [set(hand) for hand in state.hands]

    vec_env = vec_envs.PER_GAME[game.class_prefix + "VecEnv"]
    assert issubclass(vec_env, BatchedVecEnv) and vec_env.rules_class is game.rules_class

    env = game.raw_env(num_players=3)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    view = GameView(env.game, game.encoding)
    for role in HAND_WRITTEN_ROLES:
        player = game.hand_written(role)(0, None)
        assert isinstance(player, ScoringAgent) and player.name == role
        assert dataclasses.is_dataclass(player.weights)
        assert mask[player.act(None, mask, view)] == 1
        other_rules = next(g for g in GAMES.values() if g is not game).rules_class()
        assert player.compiled_twin(other_rules) is None
    for feature in game.features():
        assert isinstance(feature, Feature) and feature.game == game.encoding.game_name
        obs = env.observe(env.agent_selection)["observation"][None]
        assert feature.compute(obs).shape == (1, feature.size)


def test_the_adding_a_game_page_names_every_field_of_the_record():
    page = ADDING_A_GAME.read_text()
    missing = [f.name for f in dataclasses.fields(GameSpec) if f"| `{f.name}` |" not in page]
    assert missing == []
    assert all(f"`{name}`" in page for name in ENV_MODULE_NAMES if name not in ("env", "raw_env"))


@each_game
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.filterwarnings("ignore:unknown reset option")  # api_test's options={"options": 1}
def test_pettingzoo_api_test(game: GameSpec, num_players):
    api_test(game.env_module.env(num_players=num_players), num_cycles=500)


@each_game
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(game: GameSpec, num_players):
    seed_test(lambda: game.env_module.env(num_players=num_players), num_cycles=200)


@each_game
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_render_test(game: GameSpec, num_players, capsys):
    render_test(
        lambda render_mode=None: game.env_module.env(
            num_players=num_players, render_mode=render_mode
        )
    )


@each_game
def test_registered_in_pettingzoo_registry(game: GameSpec):
    env = pettingzoo.make("aec", game.aec_id, num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.num_players == 3
    assert env.unwrapped.metadata["name"] == game.env_name


@each_game
def test_spaces_are_the_same_object_every_call(game: GameSpec):
    env = game.raw_env(num_players=4)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    module = game.env_module
    assert env.action_space("player_0").n == module.NUM_ACTIONS == game.encoding.num_actions
    assert env.observation_space("player_0")["observation"].shape == (module.OBSERVATION_SIZE,)


@each_game
def test_action_ids_round_trip_and_end_with_draw_and_pass(game: GameSpec):
    module = game.env_module
    for action in range(module.NUM_ACTIONS):
        assert module.move_to_action(module.action_to_move(action)) == action
    assert (module.DRAW_ACTION, module.PASS_ACTION) == (
        module.NUM_ACTIONS - 2,
        module.NUM_ACTIONS - 1,
    )
    assert str(module.ACTIONS[module.DRAW_ACTION]) == "draw"
    assert str(module.ACTIONS[module.PASS_ACTION]) == "pass"
    with pytest.raises(ValueError, match="out of range"):
        module.action_to_move(module.NUM_ACTIONS)
    with pytest.raises(ValueError, match=f"not a {game.encoding.game_name} move"):
        module.move_to_action("9-9")


@each_game
@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_mask_is_exactly_the_engine_legal_set_and_others_see_zero(game: GameSpec, num_players):
    env = game.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(1)
    for _ in range(400):
        if all(env.terminations.values()):
            break
        acting = env.agent_selection
        legal = {game.encoding.action_of(m) for m in env.game.legal_moves()}
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8
            if agent == acting:
                assert set(np.flatnonzero(mask)) == legal
            else:
                assert not mask.any()
        env.step(int(rng.choice(sorted(legal))))


@each_game
def test_observe_is_valid_for_every_agent_after_the_end(game: GameSpec):
    env = game.raw_env(num_players=3)
    env.reset(seed=5)
    random_steps(env, np.random.default_rng(0))
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert not obs["action_mask"].any()


@each_game
@pytest.mark.parametrize("num_players", [2, 3, 5, 6])
def test_match_reward_is_zero_sum_and_goes_to_the_lowest_total(game: GameSpec, num_players):
    """S7.2 / M6.3: the zero-sum match outcome reaches every agent, the lowest total wins
    (shared among equals) and every other seat gets -1/(n-1)."""
    env = game.env_module.env(num_players=num_players)
    finals = play_random(env, seed=11)
    assert sorted(finals) == sorted(env.possible_agents)
    assert sum(finals.values()) == pytest.approx(0.0)
    totals = env.unwrapped.game.totals
    for seat, agent in enumerate(env.possible_agents):
        if totals[seat] == min(totals):
            assert finals[agent] >= 0
        else:
            assert finals[agent] == pytest.approx(-1 / (num_players - 1))


@each_game
def test_hand_score_reward_is_paid_every_hand_and_sums_to_zero(game: GameSpec):
    """S7 / M6.2: after each hand every seat is paid its point difference (the others'
    mean points minus its own, per 100), zero-sum."""
    env = game.raw_env(num_players=3, reward="hand_score")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    paid = {agent: 0.0 for agent in env.possible_agents}
    hands_seen = 0
    while not all(env.terminations.values()):
        hand_before = env.game.hand_number
        env.step(int(rng.choice(env.legal_actions())))
        if env.game.hand_number != hand_before or all(env.terminations.values()):
            result = env.game.results[-1]
            hands_seen += 1
            assert sum(env.rewards.values()) == pytest.approx(0.0)
            for seat, agent in enumerate(env.possible_agents):
                others = [p for s, p in enumerate(result.points) if s != seat]
                expected = (sum(others) / 2 - result.points[seat]) / 100
                assert env.rewards[agent] == pytest.approx(expected)
        for agent, r in env.rewards.items():
            paid[agent] += r
    assert hands_seen == env.game.num_hands
    assert sum(paid.values()) == pytest.approx(0.0)


@each_game
def test_hand_episode_ends_after_one_hand(game: GameSpec):
    env = game.raw_env(num_players=4, episode="hand")
    env.reset(seed=9)
    start_hand = env.game.hand_number
    random_steps(env, np.random.default_rng(0))
    assert [r.hand_number for r in env.game.results] == [start_hand]


@each_game
def test_state_holds_every_hand_and_the_boneyard(game: GameSpec):
    """The global state: the observation, then one row of tiles per seat (of the most
    seats), then the boneyard."""
    env = game.raw_env(num_players=2)
    env.reset(seed=3)
    state = env.state()
    assert env.state_space.contains(state)
    size, tiles = game.encoding.obs_size, game.encoding.num_tiles
    rows = game.env_module.MAX_PLAYERS
    hands = state[size : size + rows * tiles].reshape(rows, tiles)
    for seat in range(2):
        assert hands[seat].sum() == len(env.game.hands[seat]) > 0
    assert not hands[2:].any()
    assert state[size + rows * tiles :].sum() == len(env.game.boneyard)


@each_game
def test_match_episode_plays_every_hand(game: GameSpec):
    """S2.2 / M2.2: a match is every hand of the rules, in order."""
    env = game.raw_env(num_players=2)
    env.reset(seed=4)
    random_steps(env, np.random.default_rng(0))
    assert [r.hand_number for r in env.game.results] == list(range(env.game.num_hands))
    assert env.game.match_over


@each_game
def test_same_seed_same_match_different_seed_different_match(game: GameSpec):
    def trajectory(seed):
        env = game.raw_env(num_players=3, episode="hand")
        env.reset(seed=seed)
        moves = []
        while not all(env.terminations.values()):
            action = env.legal_actions()[0]
            moves.append(action)
            env.step(action)
        return moves, env.game.totals

    assert trajectory(7) == trajectory(7)
    assert trajectory(7) != trajectory(8)


@each_game
def test_illegal_and_out_of_range_actions_raise_and_change_nothing(game: GameSpec):
    env = game.raw_env(num_players=3)
    env.reset(seed=1)
    before = env.game.to_dict()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {illegal} .* is illegal"):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(game.encoding.num_actions)
    with pytest.raises(ValueError, match="integer action id"):
        env.step("draw")
    assert env.game.to_dict() == before


@each_game
def test_wrapped_env_ends_the_game_on_an_illegal_action(game: GameSpec):
    env = game.env_module.env(num_players=3)
    env.reset(seed=1)
    offender = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)


@each_game
def test_wrapped_env_enforces_order(game: GameSpec):
    env = game.env_module.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


@each_game
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"reward": "points"}, "reward"),
        ({"episode": "round"}, "episode"),
        ({"render_mode": "rgb"}, "render_mode"),
    ],
)
def test_bad_constructor_arguments_are_rejected(game: GameSpec, kwargs, message):
    with pytest.raises(ValueError, match=message):
        game.raw_env(**kwargs)


@each_game
def test_unknown_argument_is_rejected_by_name(game: GameSpec):
    with pytest.raises(ValueError, match=r"unknown argument.*double_nine.*takes num_players"):
        game.raw_env(double_nine=True)


@each_game
def test_reset_from_a_game_rejects_mismatches(game: GameSpec):
    env = game.raw_env(num_players=2)
    with pytest.raises(ValueError, match="players"):
        env.reset(options={"game": game.new_state(3, seed=0)})
    with pytest.raises(ValueError, match=game.state_class.__name__):
        env.reset(options={"game": {"hands": []}})


@each_game
def test_env_shows_the_raw_envs_arguments(game: GameSpec):
    """``help(env)`` lists the arguments, not ``**kwargs``."""
    module = game.env_module
    raw = inspect.signature(module.raw_env).parameters
    shown = inspect.signature(module.env).parameters
    assert list(shown) == [name for name in raw if name != "unknown"]
    assert "num_players" in shown and "render_mode" in shown
    assert "Args:" in module.env.__doc__ and "num_players" in module.env.__doc__


def test_the_batched_package_exports_lazily():
    code = (
        "import sys, spinner_env.batched as b\n"
        "assert 'numba' not in sys.modules\n"
        "from spinner_env.batched import SpinnerVectorEnv, BatchedSpinner\n"
        "assert 'numba' in sys.modules and SpinnerVectorEnv.__name__ == 'SpinnerVectorEnv'\n"
        "assert 'SpinnerVectorEnv' in dir(b)\n"
        "try:\n    b.nothing\nexcept AttributeError:\n    print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout == "ok\n", result.stderr


def test_counts_are_plural_but_for_one():
    assert [counted(n, "tile") for n in (0, 1, 2)] == ["0 tiles", "1 tile", "2 tiles"]
