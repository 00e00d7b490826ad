"""Both games as OpenSpiel games (spinner_env.openspiel): OpenSpiel's own random simulation
test, clones, pickles and serializations at every step, agreement with our environments
decision by decision on the same deals, refused input, and resampling by the belief sampler.
"""

from __future__ import annotations

import importlib
import pickle
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from test_belief import (  # noqa: E402
    SAMPLES_PER_DEAL,
    as_deal,
    assert_uniform,
    every_deal,
    location_deal,
    small_position,
)

from spinner_env import openspiel  # noqa: E402
from spinner_env.core.match import shuffled  # noqa: E402
from spinner_env.games import GAMES  # noqa: E402

SHORT = {"spinner": "num_hands=2", "mexican_train": "num_rounds=2"}


def load(game: str, players: int, extra: str = "") -> pyspiel.Game:
    params = ",".join(p for p in (f"players={players}", extra) if p)
    return pyspiel.load_game(f"{openspiel.GAME_NAMES[game]}({params})")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4, 8])
def test_openspiels_random_simulation_test_passes(game: str, players: int) -> None:
    pyspiel.random_sim_test(
        load(game, players, SHORT[game]), num_sims=2, serialize=True, verbose=False
    )


def test_the_variants_are_parameters_and_unknown_ones_are_refused() -> None:
    game = load("spinner", 3, "num_hands=1,draw_until_playable=True,shortened=True")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    with pytest.raises(pyspiel.SpielError, match="num_hands"):
        pyspiel.load_game("python_spinner(hands=3)")
    with pytest.raises(pyspiel.SpielError, match="num_rounds"):
        pyspiel.load_game("python_mexican_train(seeded_first_dealer=True)")
    with pytest.raises(ValueError, match="num_players"):
        pyspiel.load_game("python_spinner(players=9)")


@pytest.mark.parametrize("game", GAMES)
def test_clones_pickles_and_serializations_round_trip_at_every_step(game: str) -> None:
    os_game = load(game, 3, SHORT[game])
    rng = random.Random(0)
    state = os_game.new_initial_state()
    assert pickle.loads(pickle.dumps(os_game)) == os_game
    while not state.is_terminal():
        for copy in (
            state.clone(),
            pickle.loads(pickle.dumps(state)),
            pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(os_game, state))[1],
        ):
            assert str(copy) == str(state) and copy.history() == state.history()
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            assert probabilities == pytest.approx([1 / len(outcomes)] * len(outcomes))
            state.apply_action(rng.choice(outcomes))
        else:
            clone = state.clone()
            state.apply_action(rng.choice(state.legal_actions()))
            assert str(clone) != str(state) or state.is_chance_node()


def play_side_by_side(game: str, players: int, seed: int, **rules) -> int:
    """Our AEC env and the OpenSpiel game, fed the env's own deals and draws as chance
    outcomes, random moves for both: every decision has the same seat to act and legal ids,
    every hand the same results and totals, the match the same rewards. Returns the
    decisions compared."""
    env = GAMES[game].raw_env(num_players=players, **rules)
    env.reset(seed=seed)
    params = ",".join(f"{k}={v}" for k, v in rules.items())
    state = load(game, players, params).new_initial_state()
    rng = random.Random(seed)
    rewards = np.zeros(players)
    deal = iter(shuffled(env.game.hand_tiles(), env.game.seed, env.game.hand_number))
    drawn = None
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            tile = drawn if state.phase == openspiel.DRAW_TILE else next(deal)
            state.apply_action(tile.index)
            continue
        engine = env.game
        assert state.current_player() == engine.current
        assert state.legal_actions() == env.legal_actions()
        assert state.match.totals == engine.totals
        action = rng.choice(state.legal_actions())
        hand = engine.hand_number
        drawn = engine.boneyard[0] if engine.boneyard else None
        env.step(action)
        state.apply_action(action)
        decisions += 1
        rewards += [env.rewards[agent] for agent in env.possible_agents]
        if env.game.hand_number != hand:  # the env dealt the next hand from its seed
            assert state.phase == openspiel.DEAL
            assert state.match.results == env.game.results
            deal = iter(shuffled(env.game.hand_tiles(), env.game.seed, env.game.hand_number))
    assert all(env.terminations.values())
    assert state.match.results == env.game.results and state.match.totals == env.game.totals
    assert state.returns() == pytest.approx(list(rewards))
    return decisions


@pytest.mark.parametrize(
    ("game", "players", "rules"),
    [
        ("spinner", 2, {"num_hands": 3}),
        ("spinner", 4, {"num_hands": 2, "draw_until_playable": True}),
        ("spinner", 3, {"num_hands": 2, "shortened": True}),
        ("mexican_train", 2, {"num_rounds": 2}),
        ("mexican_train", 5, {"num_rounds": 2, "double_blank_50": True}),
    ],
)
def test_decisions_agree_with_our_environment_on_the_same_deals(game, players, rules) -> None:
    for seed in range(3):
        assert play_side_by_side(game, players, seed, **rules) > 20


def test_an_illegal_action_is_refused_with_the_legal_ids_and_changes_nothing() -> None:
    state = load("spinner", 2).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before, history = str(state), state.history()
    illegal = next(
        a for a in range(state.get_game().num_distinct_actions()) if a not in state.legal_actions()
    )
    with pytest.raises(pyspiel.SpielError, match=r"is illegal for player \d; legal ids: \["):
        state.apply_action(illegal)
    with pytest.raises(ValueError, match="is illegal"):
        state.apply_action(10_000)
    assert str(state) == before and state.history() == history
    assert state.legal_actions(1 - state.current_player()) == []


def test_observations_are_our_encoders() -> None:
    game = load("mexican_train", 4, "num_rounds=1")
    encoding = GAMES["mexican_train"].encoding
    assert game.observation_tensor_size() == encoding.obs_size
    assert game.information_state_tensor_size() == encoding.obs_size
    state = game.new_initial_state()
    rng = random.Random(1)
    while not state.is_terminal():
        if not state.is_chance_node():
            seat = state.current_player()
            expected = encoding.observation(state.match, seat)
            np.testing.assert_array_equal(state.observation_tensor(seat), expected)
            np.testing.assert_array_equal(state.information_state_tensor(seat), expected)
            assert state.observation_string(seat).startswith(f"player_{seat} sees")
        state.apply_action(rng.choice(state.legal_actions()))


def decision_states(game: str, players: int, seed: int, every: int = 5):
    state = load(game, players, SHORT[game]).new_initial_state()
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            decisions += 1
            if decisions % every == 0:
                yield state
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize(
    ("game", "players"), [("spinner", 2), ("spinner", 4), ("mexican_train", 3)]
)
def test_resampled_states_hold_what_the_seat_knows(game: str, players: int) -> None:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for state in decision_states(game, players, seed=players):
        seat = state.current_player()
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.legal_actions() == state.legal_actions()
        real, sampled = state.match, world.match
        sampled.validate()
        assert sampled.hands[seat] == real.hands[seat]
        assert [len(h) for h in sampled.hands] == [len(h) for h in real.hands]
        assert len(sampled.boneyard) == len(real.boneyard)
        assert sampled.voids == real.voids
        for other, hand in enumerate(sampled.hands):
            if other != seat:
                assert not any(
                    t.low in real.voids[other] or t.high in real.voids[other] for t in hand
                )


def test_resampled_deals_are_uniform_over_the_consistent_ones() -> None:
    position = small_position("spinner", 2)
    observer = position.current
    game = load("spinner", 2)
    state = game.state_from(position)
    deals = every_deal(*location_deal(position, observer))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = Counter(
        as_deal(world.match.hands, world.match.boneyard, observer)
        for world in (
            state.resample_from_infostate(observer, sampler)
            for _ in range(SAMPLES_PER_DEAL * len(deals))
        )
    )
    assert_uniform(samples, deals)


def test_resampling_needs_a_hand_in_play() -> None:
    state = load("spinner", 2).new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="hand in play"):
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_importing_spinner_env_does_not_import_pyspiel() -> None:
    code = "import sys, spinner_env, spinner_env.agents; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_openspiels_ismcts_plays_against_our_heuristic_through_evaluate_bots() -> None:
    from open_spiel.python.algorithms import evaluate_bots
    from spinner_env.agents import make_agent
    from spinner_env.agents.openspiel import AgentBot, make_openspiel_bot

    for game in GAMES:
        os_game = load(game, 2, SHORT[game].replace("2", "1"))
        bot = make_openspiel_bot("ismcts,simulations=10", os_game, seed=0)
        heuristic = AgentBot(make_agent("heuristic", seed=0))
        rng = np.random.RandomState(0)
        returns = evaluate_bots.evaluate_bots(os_game.new_initial_state(), [bot, heuristic], rng)
        assert sum(returns) == pytest.approx(0.0) and max(returns) == pytest.approx(1.0)


def test_an_openspiel_bot_is_one_of_our_agents() -> None:
    from spinner_env.agents import make_agent

    from spinner_env.core.agent import choose_move

    spec = GAMES["mexican_train"]
    state = spec.new_state(3, seed=4, num_rounds=1)
    agent = make_agent("openspiel:ismcts,simulations=8,uct_c=1.5", seed=1)
    assert agent.name == "openspiel:ismcts,simulations=8,uct_c=1.5"
    moves = 0
    while not state.hand_over:
        move = choose_move(agent, state, spec.encoding)
        assert move in state.legal_moves()
        state.play_legal(move)
        moves += 1
    assert moves > 10


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openspiel:mcts", "not one of ismcts"),
        ("openspiel:ismcts,depth=3", "unknown openspiel:ismcts option"),
        ("openspiel:ismcts,simulations=many", "must be a int"),
        ("openspiel:ismcts,simulations=0", "at least 1"),
        ("openspiel:ismcts,simulations", "is not key=value"),
    ],
)
def test_bad_openspiel_specs_are_refused(spec: str, message: str) -> None:
    from spinner_env.agents import make_agent

    with pytest.raises(ValueError, match=message):
        make_agent(spec)


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch):
    examples_dir = Path(__file__).resolve().parent.parent / "examples"
    monkeypatch.syspath_prepend(str(examples_dir))
    return importlib.import_module


def test_the_ismcts_example_plays_evaluate_bots_to_the_end(examples) -> None:
    stats = examples("openspiel_ismcts").main(["--matches", "2", "--simulations", "10"])
    assert len(stats["returns"]) == 2 and set(stats["returns"]) <= {-1.0, 0.0, 1.0}
    assert examples("openspiel_ismcts").main(["--matches", "2", "--simulations", "10"]) == stats


def test_the_nfsp_example_trains_and_plays_only_legal_actions(examples) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("tree")
    stats = examples("openspiel_nfsp").main(["--episodes", "20", "--eval-matches", "6"])
    assert stats["illegal"] == 0 and len(stats["returns"]) == 6
