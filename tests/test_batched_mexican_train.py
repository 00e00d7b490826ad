"""The batched Mexican Train engine against the reference: same deals, same decisions.

Each batched game is shadowed by a ``mexican_train_v0.raw_env`` dealt from the same seed
(``play_side_by_side`` of ``tests/test_batched.py``); at every decision both must show
the same player to act, observation and action mask, and after it the same rewards; at
the end of an episode the same final totals and final observation (M1-M7 as implemented
by ``spinner_env.games.mexican_train.rules``). The compiled opponents choose as the agents they play
for, decision by decision, and the adapters of ``spinner_env.batched.vector`` play as the
AEC-based ``SingleAgentEnv`` does.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sb3_contrib import MaskablePPO
from spinner_env.agents.baselines import GreedyAgent
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.train.ppo import OpponentPool
from spinner_env.train.vec_env import make_vec_env
from test_batched import (
    check_learner_batch_against_single_agent_env,
    play_side_by_side,
)

from spinner_env import mexican_train_v0
from spinner_env.batched.core import OPPONENT_EXTERNAL, BatchedEngine, BatchStep, sample_legal
from spinner_env.batched.vector import MexicanTrainVectorEnv, as_batched
from spinner_env.games.mexican_train.batched import BatchedMexicanTrain
from spinner_env.games.mexican_train.batched_players import (
    WEIGHT_NAMES,
    MexicanTrainHeuristicPolicy,
    heuristic_actions,
    heuristic_actions_from_obs,
)
from spinner_env.games.mexican_train.heuristic import (
    MexicanTrainHeuristicAgent,
    MexicanTrainWeights,
)
from spinner_env.games.mexican_train.rules import MexicanTrainRules, MexicanTrainState


@pytest.mark.parametrize("num_players", range(2, 9))
def test_full_matches_agree_for_every_player_count(num_players: int) -> None:
    """M2.1-M6.3: whole 13-round matches, every player count, match reward."""
    rules = MexicanTrainRules(num_players=num_players)
    finished = play_side_by_side(rules, "match", "match", 2, 100 * num_players, 0, None, 2)
    assert finished >= 2


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 8),
    num_rounds=st.integers(1, 13),
    double_blank_50=st.booleans(),
    reward=st.sampled_from(["match", "hand_score"]),
    episode=st.sampled_from(["match", "hand"]),
    learner=st.integers(-1, 7),
    seed=st.integers(0, 2**62),
)
def test_random_games_agree_decision_by_decision(
    num_players: int,
    num_rounds: int,
    double_blank_50: bool,
    reward: str,
    episode: str,
    learner: int,
    seed: int,
) -> None:
    """Both variants (M1.3 ``double_blank_50``, M2.2 ``num_rounds``), both reward schemes
    and episode modes, any learner seat."""
    rules = MexicanTrainRules(
        num_players=num_players, num_rounds=num_rounds, double_blank_50=double_blank_50
    )
    learner_seat = None if learner < 0 else learner % num_players
    play_side_by_side(rules, reward, episode, 4, seed, 150, learner_seat)


@pytest.mark.parametrize("num_players", [2, 4])
def test_blocked_rounds_and_rounds_that_go_on_after_everyone_passed_agree(
    num_players: int,
) -> None:
    """M6.1 as revised: a round with an empty boneyard goes on after every seat passed in
    turn while a seat could place on a train the passes marked (M4.3), and ends blocked
    once none could. Both happen in these games, and both engines agree on them."""
    blocked: set[tuple[int, int]] = set()
    went_on: set[tuple[int, int]] = set()
    rng = np.random.default_rng(0)

    def choose(engine: BatchedEngine, step: BatchStep, envs: list) -> np.ndarray:
        for env in envs:
            game = env.game
            blocked.update((game.seed, r.hand_number) for r in game.results if r.blocked)
            if not game.boneyard and game.passes_in_row >= num_players:
                went_on.add((game.seed, game.hand_number))
        return sample_legal(step.mask, rng.random(len(envs)))

    rules = MexicanTrainRules(num_players=num_players)
    play_side_by_side(rules, "hand_score", "match", 8, 3, 400, choose=choose)
    assert blocked
    assert went_on


def test_double_blank_50_scores_agree_when_it_is_left_in_hand() -> None:
    """M1.3 variant: games in which 0-0 is left in a hand at a round's end, so that its
    50 points decide the rewards of both engines."""
    rules = MexicanTrainRules(num_players=3, num_rounds=13, double_blank_50=True)
    left_in_hand = 0
    rng = np.random.default_rng(0)

    def choose(engine: BatchedEngine, step: BatchStep, envs: list) -> np.ndarray:
        nonlocal left_in_hand
        for env in envs:
            last = env.game.results[-1:] if env.game.results else []
            if last and any(p >= 50 for p in last[0].points):
                left_in_hand += 1
        return sample_legal(step.mask, rng.random(len(envs)))

    play_side_by_side(rules, "hand_score", "match", 8, 11, 300, choose=choose)
    assert left_in_hand > 0


def test_deal_is_the_reference_shuffle() -> None:
    """M2.3, M2.4: round r of seed s deals ``shuffled`` of the 90 tiles other than the
    engine, hands by seat in order, the rest the boneyard top first."""
    rules = MexicanTrainRules(num_players=5)
    engine = BatchedMexicanTrain(6, rules, episode="hand")
    engine.reset(2**62 - 3)
    k = rules.hand_size
    for b in range(6):
        game = engine.games[b]
        reference = MexicanTrainState.new(rules, int(game["seed"]), int(game["hand_number"]))
        for seat in range(5):
            assert game["hands"][seat, :k].tolist() == [t.index for t in reference.hands[seat]]
        assert game["deck"][game["top"] :].tolist() == [t.index for t in reference.boneyard]
        assert reference.engine.index not in game["deck"].tolist()


def test_bad_arguments_raise_value_errors() -> None:
    with pytest.raises(ValueError, match="num_games"):
        BatchedMexicanTrain(0)
    with pytest.raises(ValueError, match="learner_seat"):
        BatchedMexicanTrain(2, MexicanTrainRules(num_players=3), learner_seat=3)
    with pytest.raises(ValueError, match="reward"):
        BatchedMexicanTrain(2, reward="points")
    with pytest.raises(ValueError, match="seed"):
        BatchedMexicanTrain(2).reset(-1)


# ---------------------------------------------------------------- compiled opponents
WEIGHT_SETS = {
    "default": MexicanTrainWeights(),
    # Whole numbers everywhere: many equal scores, so the first-maximum rule is exercised.
    "ties": MexicanTrainWeights(1.0, 1.0, 2, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    "odd": MexicanTrainWeights(0.3, 2.7, 7, -1.25, 3.1, 0.45, 5.5, 0.1, 9.0),
}


def test_weight_names_are_the_mexican_train_weights_fields() -> None:
    weights = WEIGHT_SETS["odd"]
    assert sorted(WEIGHT_NAMES) == sorted(weights.__dataclass_fields__)
    assert weights.as_array().tolist() == [getattr(weights, n) for n in WEIGHT_NAMES]


@pytest.mark.parametrize("weights", WEIGHT_SETS.values(), ids=WEIGHT_SETS.keys())
@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_compiled_heuristic_chooses_as_the_agent(
    num_players: int, weights: MexicanTrainWeights
) -> None:
    """Every decision of round episodes (all rounds, M2.2), played on by the heuristic
    itself with a random move one time in three, for positions of every kind (M3.3
    markers, M5 doubles, M7 voids; ``0-0`` at 50 points with 4 players, M1.3)."""
    rules = MexicanTrainRules(num_players=num_players, double_blank_50=num_players == 4)
    agent = MexicanTrainHeuristicAgent(weights=weights)
    w = weights.as_array()
    rng = np.random.default_rng(num_players)
    choices = 0

    def choose(engine: BatchedEngine, step: BatchStep, envs: list) -> np.ndarray:
        nonlocal choices
        compiled = heuristic_actions(engine.games, engine.params, step.mask, w)
        from_obs = heuristic_actions_from_obs(step.obs, step.mask, w, rules.double_blank_50)
        for b, env in enumerate(envs):
            view = env.observe(env.agent_selection)
            expected = agent.act(view["observation"], view["action_mask"], env)
            assert (compiled[b], from_obs[b]) == (expected, expected)
            choices += int(view["action_mask"].sum() > 1)
        explore = rng.random(len(envs)) < 1 / 3
        return np.where(explore, sample_legal(step.mask, rng.random(len(envs))), compiled)

    play_side_by_side(rules, "hand_score", "hand", 8, 1000 * num_players, 100, choose=choose)
    assert choices > 200


class PythonPolicy:
    """A batched policy behind a wrapper: the compiled loop hands its seats to Python."""

    def __init__(self, policy: object) -> None:
        self.policy = policy

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.policy.act_batch(obs, mask)


@pytest.mark.parametrize(
    ("opponent", "agents"),
    [
        ("greedy", [GreedyAgent()]),
        ("python heuristic", [HeuristicAgent()]),
        (None, [HeuristicAgent(), MexicanTrainHeuristicAgent(weights=WEIGHT_SETS["odd"])]),
    ],
    ids=["compiled greedy", "python heuristic", "heuristics"],
)
@pytest.mark.parametrize(
    ("num_players", "reward", "episode", "double_blank_50"),
    [
        (2, "hand_score", "hand", False),
        (3, "match", "match", True),
        (5, "hand_score", "match", False),
    ],
)
def test_learner_batch_matches_single_agent_env(
    num_players: int,
    reward: str,
    episode: str,
    double_blank_50: bool,
    opponent: str | None,
    agents: list,
) -> None:
    """The adapters' core on Mexican Train: compiled greedy and heuristic seats (two
    weight sets in one pool), and the heuristic's ``act_batch`` from observations."""
    rules = MexicanTrainRules(
        num_players=num_players, num_rounds=2, double_blank_50=double_blank_50
    )
    if opponent == "greedy":
        batched: object = as_batched("greedy", rules)
    elif opponent == "python heuristic":
        batched = PythonPolicy(as_batched("heuristic", rules))
    else:
        batched = None
    check_learner_batch_against_single_agent_env(rules, reward, episode, batched, agents)


def test_heuristic_agents_and_the_name_map_to_compiled_weights() -> None:
    rules = MexicanTrainRules(num_players=3, double_blank_50=True)
    default = as_batched("heuristic", rules)
    assert isinstance(default, MexicanTrainHeuristicPolicy) and default.double_blank_50
    np.testing.assert_array_equal(default.weights, MexicanTrainWeights().as_array())
    odd = WEIGHT_SETS["odd"]
    for agent in (
        MexicanTrainHeuristicAgent(weights=odd),
        HeuristicAgent(weights={"mexican_train": odd}),
    ):
        np.testing.assert_array_equal(as_batched(agent, rules).weights, odd.as_array())
    with pytest.raises(ValueError, match="shape"):
        MexicanTrainHeuristicPolicy(np.zeros(3))


def test_maskable_ppo_trains_on_the_mexican_train_vec_env() -> None:
    """``make_vec_env(game="mexican_train")`` with a pool of random, greedy and heuristic
    agents, all played in compiled code: what ``spinner_env.train.ppo`` builds for
    ``backend: batched``."""
    pool = OpponentPool({"random": 0.25, "greedy": 0.5, "heuristic": 6})
    venv = make_vec_env(
        8, 4, pool, game="mexican_train", skip_forced=True, reward="hand_score", episode="hand"
    )
    venv.seed(3)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    assert len(model.ep_info_buffer) > 0
    batch = venv.batch
    assert (batch._kinds != OPPONENT_EXTERNAL).all()  # no seat went back to Python
    with pytest.raises(ValueError, match="game"):
        make_vec_env(8, 4, game="dominoes")


def test_gymnasium_vector_env_same_step_autoreset() -> None:
    env = MexicanTrainVectorEnv(4, MexicanTrainRules(num_players=3), episode="hand")
    obs, infos = env.reset(seed=1)
    assert obs.shape == (4, mexican_train_v0.OBSERVATION_SIZE)
    ended = 0
    for _ in range(150):
        obs, _, terminations, _, infos = env.step(np.argmax(infos["action_mask"], axis=1))
        if terminations.any():
            ended += int(terminations.sum())
            # M6.1: at the end nobody is to act in the final observation.
            to_act = mexican_train_v0.OBSERVATION_SLICES["to_act"]
            assert not infos["final_obs"][terminations][:, to_act].any()
    assert ended > 0
    with pytest.raises(ValueError, match="rules must be MexicanTrainRules"):
        MexicanTrainVectorEnv(2, rules=object())
