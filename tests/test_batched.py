"""The batched engine against the reference: same deals, same decisions, same everything.

Each batched game is shadowed by a ``spinner_v0.raw_env`` dealt from the same seed; at
every decision both must show the same player to act, observation and action mask, and
after it the same rewards; at the end of an episode the same final totals and final
observation (S1-S7 as implemented by ``spinner_env.games.spinner.rules``). The adapters of
``spinner_env.batched.vector`` must play as the AEC-based ``SingleAgentEnv`` does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sb3_contrib import MaskablePPO
from spinner_env.agents.baselines import GreedyAgent
from spinner_env.train.config import TrainConfig
from spinner_env.train.ppo import make_pool, make_training_env
from spinner_env.train.vec_env import MexicanTrainVecEnv, SpinnerVecEnv
from test_train import assert_trains_the_same_weights_twice, tiny_config

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.batched.core import (
    FIRST_HAND_DRAW,
    LEARNER_DRAW,
    BatchedEngine,
    BatchStep,
    sample_legal,
)
from spinner_env.batched.vector import (
    GreedyPolicy,
    LearnerBatch,
    SpinnerVectorEnv,
    as_batched,
)
from spinner_env.core.agent import Agent
from spinner_env.core.match import MatchState, shuffled
from spinner_env.games import game_of
from spinner_env.games.mexican_train.batched import BatchedMexicanTrain
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState
from spinner_env.games.spinner.batched import BatchedSpinner
from spinner_env.games.spinner.heuristic import SpinnerHeuristicAgent, SpinnerWeights
from spinner_env.games.spinner.rules import ALL_TILES, SpinnerRules
from spinner_env.wrappers import SingleAgentEnv


class Seeded:
    """A raw env whose reset plays a given (seed, first hand) instead of drawing one."""

    def start(self, seed: int, first_hand: int) -> None:
        self._game_args = (seed, first_hand)
        self.reset()

    def _new_game(self, seed: int, hand_number: int) -> MatchState:
        return super()._new_game(*self._game_args)


class SeededEnv(Seeded, spinner_v0.raw_env):
    """``spinner_v0`` dealt from a given seed."""


class SeededMexicanTrainEnv(Seeded, mexican_train_v0.raw_env):
    """``mexican_train_v0`` dealt from a given seed."""


Rules = SpinnerRules | MexicanTrainRules
ENGINE_AND_ENV = {
    SpinnerRules: (BatchedSpinner, SeededEnv),
    MexicanTrainRules: (BatchedMexicanTrain, SeededMexicanTrainEnv),
}
"""The batched engine of each game and its reference env."""


def first_hand(rules: Rules, episode: str, seed: int) -> int:
    if episode == "match":
        return 0
    return shuffled(list(range(rules.num_hands)), seed, FIRST_HAND_DRAW)[0]


def learner_of(seed: int, n: int, learner_seat: int | None) -> int:
    if learner_seat is None:
        return shuffled(list(range(n)), seed, LEARNER_DRAW)[0]
    return learner_seat


def position(state: MatchState) -> dict:
    """What a game record keeps of a reference state (``state_of`` reads it back): all of
    it but the hands' order, the earlier hands' results and, in Mexican Train, the pass
    count no rule reads."""
    data = state.to_dict()
    data["hands"] = [sorted(hand) for hand in data["hands"]]
    del data["results"]
    if isinstance(state, MexicanTrainState):
        del data["passes_in_row"]
    return data


def assert_reads_back(record: np.void, state: MatchState) -> None:
    """The record's reference state, read back and validated, is ``state``."""
    read = game_of(state).rollouts().state_of(record, state.rules)
    assert position(read) == position(state)


def play_side_by_side(
    rules: Rules,
    reward: str,
    episode: str,
    num_games: int,
    seed: int,
    decisions: int,
    learner_seat: int | None = 0,
    min_episodes: int = 0,
    choose: Callable[[BatchedEngine, BatchStep, list], np.ndarray] | None = None,
) -> int:
    """Play the game's batched engine and its reference env with the same random actions
    (or ``choose(engine, step, envs)``'s); return the episodes finished."""
    n = rules.num_players
    engine_class, env_class = ENGINE_AND_ENV[type(rules)]
    engine = engine_class(
        num_games, rules, reward=reward, episode=episode, learner_seat=learner_seat
    )
    step = engine.reset(seed)
    envs = []
    for b in range(num_games):
        env = env_class(**asdict(rules), reward=reward, episode=episode)
        game_seed = seed + b
        assert engine.games["seed"][b] == game_seed
        env.start(game_seed, first_hand(rules, episode, game_seed))
        envs.append(env)
    rng = np.random.default_rng(seed)
    episodes = 0
    made = 0
    seeds = list(range(seed, seed + num_games))
    while made < decisions or episodes < min_episodes:
        for b, env in enumerate(envs):
            seat = env.game.current
            assert engine.current[b] == seat
            assert_reads_back(engine.games[b], env.game)
            view = env.observe(env.agent_selection)
            np.testing.assert_array_equal(step.mask[b], view["action_mask"])
            np.testing.assert_array_equal(step.obs[b], view["observation"])
        if choose is None:
            actions = sample_legal(step.mask, rng.random(num_games))
        else:
            actions = choose(engine, step, envs)
        step = engine.step(actions)
        made += 1
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
            expected = [env.rewards[agent] for agent in env.possible_agents]
            np.testing.assert_array_equal(step.rewards[b, :n], expected)
            assert not step.rewards[b, n:].any()
            ended = all(env.terminations.values())
            assert step.done[b] == ended
            if ended:
                episodes += 1
                learner = learner_of(int(env.game.seed), n, learner_seat)
                np.testing.assert_array_equal(step.final_totals[b, :n], env.game.totals)
                final_view = env.observe(env.possible_agents[learner])["observation"]
                np.testing.assert_array_equal(step.final_obs[b], final_view)
                new_seed = int(engine.games["seed"][b])
                seeds.append(new_seed)
                env.start(new_seed, first_hand(rules, episode, new_seed))
    # A new episode takes the next unused seed.
    assert sorted(seeds) == list(range(seed, seed + len(seeds)))
    return episodes


@pytest.mark.parametrize("num_players", range(2, 9))
def test_full_matches_agree_for_every_player_count(num_players: int) -> None:
    """S2.1-S7.2: whole 10-hand matches, every player count, match reward."""
    rules = SpinnerRules(num_players=num_players)
    finished = play_side_by_side(rules, "match", "match", 3, 100 * num_players, 0, None, 3)
    assert finished >= 3


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 8),
    num_hands=st.integers(1, 10),
    draw_until_playable=st.booleans(),
    shortened=st.booleans(),
    seeded_first_dealer=st.booleans(),
    reward=st.sampled_from(["match", "hand_score"]),
    episode=st.sampled_from(["match", "hand"]),
    learner=st.integers(-1, 7),
    seed=st.integers(0, 2**62),
)
def test_random_games_agree_decision_by_decision(
    num_players: int,
    num_hands: int,
    draw_until_playable: bool,
    shortened: bool,
    seeded_first_dealer: bool,
    reward: str,
    episode: str,
    learner: int,
    seed: int,
) -> None:
    """Every variant flag (S2.2, S2.3, S6.2, S7.3), both reward schemes and episode modes."""
    rules = SpinnerRules(
        num_players=num_players,
        num_hands=num_hands,
        draw_until_playable=draw_until_playable,
        shortened=shortened,
        seeded_first_dealer=seeded_first_dealer,
    )
    learner_seat = None if learner < 0 else learner % num_players
    play_side_by_side(rules, reward, episode, 4, seed, 150, learner_seat)


def test_shortened_and_drawn_sets_agree_over_many_deals() -> None:
    """S3.2 and S7.3: the low hands, where nobody holding d-d or S-S is common."""
    for shortened in (False, True):
        rules = SpinnerRules(num_players=2, num_hands=10, shortened=shortened)
        play_side_by_side(rules, "hand_score", "hand", 16, 7, 120)


def test_deal_is_the_reference_shuffle() -> None:
    """S2.4: hand h of seed s is dealt from ``shuffled(ALL_TILES, s, h)``."""
    engine = BatchedSpinner(5, SpinnerRules(num_players=3), episode="hand")
    engine.reset(2**62 - 3)
    for b in range(5):
        seed, hand = int(engine.games["seed"][b]), int(engine.games["hand_number"][b])
        expected = [t.index for t in shuffled(ALL_TILES, seed, hand)]
        assert engine.games["deck"][b].tolist() == expected


BOTH_GAMES = pytest.mark.parametrize(
    "rules", [SpinnerRules(num_players=4), MexicanTrainRules(num_players=6)], ids=type
)
"""The API tests below run on both batched engines."""


@BOTH_GAMES
def test_illegal_action_raises_and_changes_nothing(rules: Rules) -> None:
    engine_class, _ = ENGINE_AND_ENV[type(rules)]
    engine = engine_class(3, rules)
    step = engine.reset(0)
    before = engine.games.copy()
    actions = sample_legal(step.mask, np.zeros(3))
    illegal = int(np.flatnonzero(step.mask[1] == 0)[0])
    actions[1] = illegal
    with pytest.raises(ValueError, match="illegal in game 1"):
        engine.step(actions)
    actions[1] = engine.num_actions
    with pytest.raises(ValueError, match="illegal in game 1"):
        engine.step(actions)
    actions[1] = -1
    with pytest.raises(ValueError, match="illegal in game 1"):
        engine.step(actions)
    with pytest.raises(ValueError, match="actions must have shape"):
        engine.step(actions[:2])
    for beyond in (2**64, -(2**64), None):  # no int64: a ValueError too, not OverflowError
        with pytest.raises(ValueError, match="actions must be action ids"):
            engine.step([*actions[:2].tolist(), beyond])
    with pytest.raises(ValueError, match="active must have shape"):
        engine.step(sample_legal(step.mask, np.zeros(3)), np.ones(2, bool))
    for name in engine.game_dtype.names:
        np.testing.assert_array_equal(before[name], engine.games[name])


@BOTH_GAMES
def test_inactive_games_do_not_move(rules: Rules) -> None:
    engine_class, _ = ENGINE_AND_ENV[type(rules)]
    engine = engine_class(4, rules)
    step = engine.reset(3)
    obs_before = step.obs.copy()
    hands_before = engine.games["hands"].copy()
    active = np.array([True, False, True, False])
    illegal_for_inactive = np.where(active, sample_legal(step.mask, np.zeros(4)), -1)
    step = engine.step(illegal_for_inactive, active)
    for b in (1, 3):
        np.testing.assert_array_equal(step.obs[b], obs_before[b])
        np.testing.assert_array_equal(engine.games["hands"][b], hands_before[b])
        assert not step.rewards[b].any()


@BOTH_GAMES
def test_observe_any_seat_matches_the_encoding(rules: Rules) -> None:
    """S8, M7: every seat's view, not only the player to act's."""
    n = rules.num_players
    engine_class, env_class = ENGINE_AND_ENV[type(rules)]
    engine = engine_class(2, rules)
    step = engine.reset(11)
    envs = []
    for b in range(2):
        env = env_class(num_players=n)
        env.start(11 + b, 0)
        envs.append(env)
    rng = np.random.default_rng(1)
    for _ in range(60):
        actions = sample_legal(step.mask, rng.random(2))
        step = engine.step(actions)
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
    seats = np.array([2, n - 1])
    got = engine.observe(seats)
    for b, env in enumerate(envs):
        expected = env.encoding.observation(env.game, int(seats[b]))
        np.testing.assert_array_equal(got[b], expected)
    for bad in (seats[:1], np.full_like(seats, n), np.full_like(seats, -1)):
        with pytest.raises(ValueError, match="seats must be"):
            engine.observe(bad)


def test_sample_legal_reaches_every_legal_action_and_nothing_else() -> None:
    mask = np.zeros((1, spinner_v0.NUM_ACTIONS), np.int8)
    legal = [3, 40, 341]
    mask[0, legal] = 1
    chosen = {int(sample_legal(mask, np.array([u]))[0]) for u in np.linspace(0, 0.999, 30)}
    assert chosen == set(legal)


# ---------------------------------------------------------------- the adapters
class PythonGreedy:
    """Greedy play from Python: an opponent the compiled loop hands back to the adapter."""

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return GreedyPolicy().act_batch(obs, mask)


# Two weight sets at alternate seats: one pool, two compiled heuristic kinds.
HEURISTICS = [
    SpinnerHeuristicAgent(),
    SpinnerHeuristicAgent(weights=SpinnerWeights(points=0.5, double=9.0)),
]


@pytest.mark.parametrize(
    ("opponent", "agents"),
    [(GreedyPolicy(), [GreedyAgent()]), (PythonGreedy(), [GreedyAgent()]), (None, HEURISTICS)],
    ids=["compiled", "python", "heuristics"],
)
@pytest.mark.parametrize(
    ("num_players", "reward", "episode"),
    [(2, "hand_score", "hand"), (3, "match", "match"), (5, "hand_score", "match")],
)
def test_learner_batch_matches_single_agent_env(
    num_players: int, reward: str, episode: str, opponent: object, agents: list
):
    rules = SpinnerRules(num_players=num_players, num_hands=2)
    check_learner_batch_against_single_agent_env(rules, reward, episode, opponent, agents)


def check_learner_batch_against_single_agent_env(
    rules: Rules, reward: str, episode: str, opponent: object, agents: list
) -> None:
    """Same deals, same opponents (the batch's ``opponent``, else the ``agents`` seated in
    turn), same learner moves: same obs, masks, rewards, ends."""
    num_players = rules.num_players
    num_envs, seed, learner = 3, 40, 1
    seated = [agents[k % len(agents)] for k in range(num_players - 1)]
    batch = LearnerBatch(
        num_envs,
        rules,
        opponent or (lambda rng, count: seated),
        reward=reward,
        episode=episode,
        learner_seat=learner,
    )
    batch.reset(seed)
    singles = []
    _, env_class = ENGINE_AND_ENV[type(rules)]
    for b in range(num_envs):
        aec = env_class(**asdict(rules), reward=reward, episode=episode)
        env = SingleAgentEnv(aec, seated, learner_seat=learner)
        aec._game_args = (seed + b, first_hand(rules, episode, seed + b))
        env.reset(seed=0)
        singles.append(env)
    episodes = 0
    for _ in range(300):
        for b, env in enumerate(singles):
            obs = env.aec.observe(env.learner)
            np.testing.assert_array_equal(batch.obs[b], obs["observation"])
            np.testing.assert_array_equal(batch.mask[b], obs["action_mask"])
        actions = np.argmax(batch.mask, axis=1)  # the lowest legal id
        batch.step(actions)
        for b, env in enumerate(singles):
            obs, reward_b, terminated, _, _ = env.step(int(actions[b]))
            assert batch.rewards[b] == pytest.approx(reward_b, abs=1e-12)
            assert batch.dones[b] == terminated
            if terminated:
                episodes += 1
                np.testing.assert_array_equal(batch.final_obs[b], obs)
                new_seed = int(batch.engine.games["seed"][b])
                env.aec._game_args = (new_seed, first_hand(rules, episode, new_seed))
                env.reset()
    assert episodes > num_envs


def test_skip_forced_returns_only_decisions():
    batch = LearnerBatch(8, SpinnerRules(num_players=4), "random", skip_forced=True)
    batch.reset(5)
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert ((batch.mask != 0).sum(axis=1) > 1).all()
        assert (batch.engine.current == batch.engine.learner).all()
        legal = [np.flatnonzero(row) for row in batch.mask]
        batch.step(np.array([rng.choice(a) for a in legal]))


def test_maskable_ppo_trains_on_the_sb3_vec_env():
    venv = SpinnerVecEnv(8, SpinnerRules(num_players=2), opponents="greedy", episode="hand")
    venv.seed(3)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    assert len(model.ep_info_buffer) > 0


def test_gymnasium_vector_env_same_step_autoreset():
    env = SpinnerVectorEnv(4, SpinnerRules(num_players=2), opponents="random", episode="hand")
    obs, infos = env.reset(seed=1)
    assert obs.shape == (4, env.single_observation_space.shape[0])
    assert env.observation_space.contains(obs)
    ended = 0
    for _ in range(100):
        actions = np.argmax(infos["action_mask"], axis=1)
        obs, _, terminations, truncations, infos = env.step(actions)
        assert not truncations.any()
        if terminations.any():
            ended += int(terminations.sum())
            assert infos["_final_obs"].tolist() == terminations.tolist()
            # S6.4: at the end nobody is to act in the final observation.
            to_act = spinner_v0.OBSERVATION_SLICES["to_act"]
            assert not infos["final_obs"][terminations][:, to_act].any()
    assert ended > 0


def test_train_ppo_backend_batched_trains_with_snapshot_opponents(tmp_path):
    """``backend: batched`` in a ``spinner-train`` config; the heuristic plays compiled, snapshots
    (sampling ``PolicyAgent``s) through ``act_batch``; the same seed trains the same
    weights, the snapshots' sampling included."""
    base = tiny_config()
    config = tiny_config(
        name="smoke_batched",
        backend="batched",
        total_timesteps=512,
        n_envs=16,
        ppo={**base["ppo"], "n_steps": 16},
        opponents={**base["opponents"], "snapshot_every": 256},
        checkpoint_every=0,
        eval={},
    )
    assert_trains_the_same_weights_twice(config, tmp_path)


def test_learner_batch_keeps_one_weight_row_per_heuristic_weight_set():
    """A sampler that hands out new agent objects every episode does not grow the table."""
    odd = SpinnerWeights(points=2.0)
    batch = LearnerBatch(
        4,
        SpinnerRules(num_players=3),
        lambda rng, count: [SpinnerHeuristicAgent(), SpinnerHeuristicAgent(weights=odd)][:count],
    )
    for seed in range(5):
        batch.reset(seed)
    assert len(batch.heuristic_weights) == 2


def test_train_ppo_backend_batched_builds_the_games_vec_env():
    config = TrainConfig.from_dict(
        tiny_config(game="mexican_train", backend="batched", env={"num_rounds": 1})
    )
    env = make_training_env(config, make_pool(config, 0))
    assert isinstance(env, MexicanTrainVecEnv) and env.num_envs == config.n_envs


def test_what_cannot_play_a_game_is_refused_by_as_batched():
    from spinner_env.games.mexican_train.heuristic import MexicanTrainHeuristicAgent

    with pytest.raises(ValueError, match="plays MexicanTrainState only, not SpinnerState"):
        as_batched(MexicanTrainHeuristicAgent())
    with pytest.raises(ValueError, match="made for a game of 3 actions"):
        as_batched(_ThreeActionAgent())
    with pytest.raises(ValueError, match="neither a batched policy"):
        as_batched(object())


class _ThreeActionAgent(Agent):
    name = "three actions"
    num_actions = 3

    def choose(self, observation, legal, view) -> int:
        return int(legal[0])


def test_stale_numba_caches_are_dropped(tmp_path):
    """numba keys its cache by the defining file only; an edit to any file the compiled
    code is built from must drop the compiled modules' caches (spinner_env.batched.numba_cache)."""
    from types import SimpleNamespace

    from spinner_env.batched.numba_cache import drop_stale_cache

    def cached(name: str, mtime: float) -> Path:
        path = tmp_path / name
        path.write_bytes(b"")
        os.utime(path, (mtime, mtime))
        return path

    def compiled(module: str) -> SimpleNamespace:
        code = SimpleNamespace(co_filename=f"/anywhere/{module}.py")
        return SimpleNamespace(
            _cache=SimpleNamespace(_cache_path=str(tmp_path)),
            py_func=SimpleNamespace(__code__=code),
        )

    fresh = [cached("batched._step-1.py311.nbi", 4e9), cached("batched._step-1.py311.0.nbc", 4e9)]
    drop_stale_cache(compiled("batched"))
    assert all(path.exists() for path in fresh)
    stale = [cached("batched._play-9.py311.nbi", 0), cached("batched._play-9.py311.0.nbc", 0)]
    other = cached("batched_heuristic._choose-3.py311.nbi", 0)
    drop_stale_cache(compiled("batched"))
    assert not any(path.exists() for path in stale + fresh)
    assert other.exists()
