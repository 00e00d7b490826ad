"""Action priors (spinner_env.agents.features.ActionPrior): Mexican Train's ``expert``
feature scores each legal placement as the expert does (M7: from the observation alone),
and a policy that adds it to its logits starts as the expert, keeps its prior through its
file, its agent and its training."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from gymnasium import spaces
from spinner_env.agents import make_agent
from spinner_env.agents.features import (
    ADVANTAGE_POINTS,
    ActionPrior,
    ObservationFeatures,
)
from spinner_env.agents.policy import (
    FORMAT_VERSION,
    PolicyAgent,
    PriorPolicy,
    ValueTarget,
    load_policy,
    save_policy,
)
from spinner_env.agents.search import VALUE_TARGETS
from spinner_env.train.ppo import train
from test_imitate import mexican_train_config
from test_search import decision

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.batched.core import sample_legal
from spinner_env.games.mexican_train.batched_expert import legal_masks
from spinner_env.games.mexican_train.expert import MexicanTrainExpertAgent
from spinner_env.games.mexican_train.features import (
    expert_advantages as mexican_train_expert_advantages,
)
from spinner_env.games.mexican_train.rules import MexicanTrainRules
from spinner_env.games.spinner.batched import BatchedSpinner
from spinner_env.games.spinner.batched_heuristic import heuristic_actions, legal_masks_from_obs
from spinner_env.games.spinner.expert import SpinnerExpertAgent
from spinner_env.games.spinner.features import expert_advantages as spinner_expert_advantages
from spinner_env.games.spinner.rules import SpinnerRules

MEXICAN_TRAIN = mexican_train_v0.ENCODING
EXPERT_PRIOR = ActionPrior("expert", 30.0)


def positions(num_players: int, seed: int, count: int, game=mexican_train_v0):
    """``count`` decisions with a choice from random games of the ``game``'s AEC env, each
    with its observation, mask and env (the game at that decision)."""
    env = game.raw_env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = 0
    for _ in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if mask.sum() > 1:
            yield obs["observation"], mask, env
            found += 1
            if found == count:
                return
        env.step(int(rng.choice(np.flatnonzero(mask))))


GAMES = {
    "mexican_train": (
        mexican_train_v0, MexicanTrainExpertAgent, legal_masks, mexican_train_expert_advantages
    ),
    "spinner": (spinner_v0, SpinnerExpertAgent, legal_masks_from_obs, spinner_expert_advantages),
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_the_expert_feature_is_the_experts_value_against_its_best(game, num_players):
    """M3-M5 and S4-S6: the legal actions read from the observation are the env's mask;
    each legal placement's feature is the game's expert's value of it less its best, over
    30 points, in [-1, 0]; the expert's own move scores 0, and every action it may not
    take -1."""
    module, expert_class, masks_of, feature_of = GAMES[game]
    expert = expert_class()
    for obs, mask, env in positions(num_players, num_players, 150, module):
        np.testing.assert_array_equal(masks_of(obs[None])[0], mask)
        feature = feature_of(obs[None])[0]
        legal = np.flatnonzero(mask)
        scores = np.array(expert.legal_scores(legal, env))
        best = scores.max()
        if np.isinf(best):
            expected = np.where(scores == best, 0.0, -1.0)
        else:
            expected = np.clip((scores - best) / ADVANTAGE_POINTS, -1, 0)
        np.testing.assert_allclose(feature[legal], expected, atol=1e-6)
        assert feature[expert.act(obs, mask, env)] == 0
        others = np.ones(module.ENCODING.num_actions, bool)
        others[legal] = False
        assert (feature[others] == -1).all()


def prior_policy(
    prior: ActionPrior = EXPERT_PRIOR, encoding=MEXICAN_TRAIN, names=("plan", "expert")
) -> tuple[PriorPolicy, ObservationFeatures]:
    """A small untrained policy of ``encoding``'s game that reads the observation and the
    features ``names``, with ``prior`` on its logits."""
    features = ObservationFeatures(names, encoding)
    where = prior.check_fits(features, encoding.num_actions)
    policy = PriorPolicy(
        spaces.Box(-np.inf, np.inf, (features.size,), np.float32),
        spaces.Discrete(encoding.num_actions),
        lr_schedule=lambda _: 3e-4,
        net_arch={"pi": [16], "vf": [12]},
        prior=prior,
        prior_slice=(where.start, where.stop),
    )
    return policy, features


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("num_players", [3, 4])
def test_an_untrained_policy_with_the_expert_prior_plays_the_experts_moves(game, num_players):
    module, expert_class, _, _ = GAMES[game]
    policy, features = prior_policy(encoding=module.ENCODING, names=("expert",))
    agent = PolicyAgent(policy, features=features)
    expert = expert_class()
    moves = [(agent.act(obs, mask), expert.act(obs, mask, env)) for obs, mask, env in
             positions(num_players, 10 + num_players, 200, module)]  # fmt: skip
    assert [mine for mine, _ in moves] == [theirs for _, theirs in moves]


def test_a_prior_policy_file_keeps_its_prior_and_its_logits(tmp_path):
    policy, features = prior_policy()
    with torch.no_grad():  # a trained actor: the prior plus something of its own
        policy.action_net.weight.normal_(0, 0.3)
    path = save_policy(policy, tmp_path / "prior.safetensors", MEXICAN_TRAIN, features.names)
    header = load_policy(path, MEXICAN_TRAIN)[1]
    assert (header.prior, header.format_version) == (EXPERT_PRIOR, FORMAT_VERSION)
    agent = make_agent(str(path), encoding=MEXICAN_TRAIN)
    assert isinstance(agent.policy, PriorPolicy)
    obs = np.stack([o for o, _, _ in positions(4, 3, 30)])
    logits = agent.logits(obs)
    x = torch.as_tensor(features(obs))
    with torch.no_grad():
        expected = policy.get_distribution(x).distribution.logits.numpy()
    # The numpy forward's logits are the torch policy's up to a constant per row.
    np.testing.assert_allclose(
        logits - logits.max(axis=1, keepdims=True),
        expected - expected.max(axis=1, keepdims=True),
        atol=1e-4,
    )
    copy = PolicyAgent.frozen_copy(policy, "copy", features)
    np.testing.assert_allclose(copy.logits(obs), logits, atol=1e-5)
    shifted = PolicyAgent(policy, features=features).logits(obs) - prior_free_logits(policy, x)
    np.testing.assert_allclose(shifted, 30.0 * x.numpy()[:, features.slice_of("expert")], atol=1e-4)


def prior_free_logits(policy: PriorPolicy, x: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(x))
        return policy.action_net(latent).numpy()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"features": ["plan"]}, r"prior: the prior 'expert' is not among the features \['plan'\]"),
        (
            {"prior": {"feature": "plan", "scale": 1.0}},
            r"prior: the prior 'plan' has 274 values, not one per action \(821\)",
        ),
        ({"prior": {"feature": "expert", "scale": 0}}, "prior.scale must be a positive number"),
        ({"prior": {"feature": "chain", "scale": 1.0}}, "prior.feature must be an observation"),
        ({"prior": "expert"}, "prior: expected"),
    ],
)
def test_a_bad_prior_is_refused(changes, message):
    config = {"features": ["plan", "expert"], "prior": {"feature": "expert", "scale": 30.0}}
    with pytest.raises(ValueError, match=message):
        mexican_train_config(**{**config, **changes})


def test_a_run_with_a_prior_saves_a_policy_that_adds_it(tmp_path):
    config = mexican_train_config(
        features=["plan", "expert"],
        prior={"feature": "expert", "scale": 30.0},
        total_timesteps=64,
        opponents={"baselines": {"expert": 1}},
    )
    path = train(config, tmp_path, progress_bar=False)
    agent = make_agent(str(path), encoding=MEXICAN_TRAIN)
    assert isinstance(agent.policy, PriorPolicy) and agent.policy.prior == EXPERT_PRIOR
    restart = mexican_train_config(
        features=["plan", "expert"],
        prior={"feature": "expert", "scale": 10.0},
        init_from=str(path),
        total_timesteps=64,
    )
    with pytest.raises(ValueError, match=r"has the prior .*scale=30.0.*the config .*scale=10.0"):
        train(restart, tmp_path / "again", progress_bar=False)


def test_a_value_head_alone_learns_from_the_teacher_and_no_ppo_follows(tmp_path, capsys):
    """``pretrain.actor: false`` fits the critic alone and ``total_timesteps: 0`` runs no PPO:
    the saved policy is the prior's player, its actor untouched, its critic fitted."""
    settings = {"features": ["expert"], "prior": dict(feature="expert", scale=30.0)}
    fitted = train(
        mexican_train_config(
            **settings,
            total_timesteps=0,
            pretrain={"imitate": "expert", "samples": 2000, "epochs": 2, "actor": False},
        ),
        tmp_path / "fitted",
        progress_bar=False,
    )
    assert "fitted the value head to 'expert'" in capsys.readouterr().out
    fresh = train(
        mexican_train_config(**settings, total_timesteps=0), tmp_path / "fresh", progress_bar=False
    )
    policy, start = (PolicyAgent.load(path).policy for path in (fitted, fresh))
    for name, tensor in start.state_dict().items():  # the same seed: the same start
        changed = not torch.equal(policy.state_dict()[name], tensor)
        assert changed == (name.startswith(("value_net", "mlp_extractor.value_net"))), name


def test_a_row_without_a_table_has_nothing_legal_and_every_action_at_minus_one():
    """A row of zeros (no seat has a player: padding, not an observation) is no error."""
    rows = np.zeros((2, MEXICAN_TRAIN.obs_size), np.float32)
    assert not legal_masks(rows).any()
    assert (mexican_train_expert_advantages(rows) == -1).all()


@pytest.mark.parametrize(("name", "num_players"), [("spinner_2p", 2), ("spinner_4p", 4)])
def test_a_policy_that_is_its_priors_player_has_it_as_compiled_twin(name, num_players):
    """The committed policy-iteration networks (output layer zero, the expert prior with
    learned weights) declare the compiled heuristic with those weights, and it makes their
    moves decision by decision, read from the game records, through hand episodes where
    a random move is played one time in three."""
    agent = make_agent(name)
    rules = SpinnerRules(num_players=num_players)
    twin = agent.compiled_twin(rules)
    assert twin is not None and twin.kind == "heuristic"
    np.testing.assert_array_equal(twin.weights, agent.features.weights["expert"])
    assert agent.compiled_twin(MexicanTrainRules()) is None
    engine = BatchedSpinner(48, rules, reward="hand_score", episode="hand", learner_seat=None)
    step = engine.reset(num_players)
    rng = np.random.default_rng(num_players)
    choices = 0
    for _ in range(150):
        compiled = heuristic_actions(engine.games, num_players, step.mask, twin.weights)
        np.testing.assert_array_equal(agent.act_batch(step.obs, step.mask), compiled)
        choices += int((step.mask.sum(axis=1) > 1).sum())
        explore = rng.random(len(compiled)) < 1 / 3
        step = engine.step(np.where(explore, sample_legal(step.mask, rng.random(48)), compiled))
    assert choices > 2000


def test_only_a_policy_that_plays_its_priors_best_move_has_a_compiled_twin():
    """A trained output layer, sampling, no prior, or a prior no compiled player scores
    (Mexican Train's expert, which plays through its batched twin): no twin."""
    policy, features = prior_policy(encoding=spinner_v0.ENCODING, names=("expert",))
    rules = SpinnerRules()
    assert PolicyAgent(policy, features=features).compiled_twin(rules) is not None
    assert PolicyAgent(policy, deterministic=False, features=features).compiled_twin(rules) is None
    with torch.no_grad():
        policy.action_net.bias[3] = 0.5
    assert PolicyAgent(policy, features=features).compiled_twin(rules) is None
    assert make_agent("spinner_2p_clone").compiled_twin(rules) is None
    policy, features = prior_policy(names=("expert",))
    agent = PolicyAgent(policy, features=features)
    assert agent.compiled_twin(MexicanTrainRules(num_players=4)) is None


def test_search_rolls_out_a_policy_that_is_its_priors_player_compiled(tmp_path):
    """Compiled rollouts, no forward pass, unless a cutoff asks for the value head."""
    policy, features = prior_policy(encoding=spinner_v0.ENCODING, names=("expert",))
    target = ValueTarget(*VALUE_TARGETS["points"], 1.0)
    path = save_policy(policy, tmp_path / "p.safetensors", spinner_v0.ENCODING, features, target)
    state, _ = decision("spinner", 2, seed=5)
    for spec, by_policy in ((f"rollout={path}", False), (f"rollout={path},cutoff=2", True)):
        agent = make_agent(f"pimc:iterations=1,{spec}", seed=0)
        agent._play_out(state, spinner_v0.ENCODING, random.Random(0))
        assert agent._by_policy(state) is by_policy
