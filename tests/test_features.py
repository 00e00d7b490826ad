"""Observation features (spinner_env.agents.features): Mexican Train's ``plan`` holds the
expert's chain (M3.2) read from the observation alone, and a policy that reads features
keeps them through its file, its agent and its training."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents import make_agent
from spinner_env.agents.features import ObservationFeatures
from spinner_env.agents.policy import PolicyAgent, load_policy, save_policy
from spinner_env.agents.policy import main as policy_main
from spinner_env.train.ppo import make_pool, make_training_env, train
from test_imitate import mexican_train_config
from test_policy_files import small_policy

from spinner_env import mexican_train_v0, spinner_v0
from spinner_env.games.mexican_train.batched_plan import PLAN_SIZE, PLAN_SLICES, plan_features
from spinner_env.games.mexican_train.encoding import NUM_SLOTS, OBSERVATION_SLICES
from spinner_env.games.mexican_train.expert import CHAIN_SEARCH_NODES, longest_chain
from spinner_env.games.mexican_train.rules import ALL_TILES, NUM_VALUES, MexicanTile, parse

MEXICAN_TRAIN = mexican_train_v0.ENCODING
OPEN_ENDS = OBSERVATION_SLICES["open_ends"]


def observation(hand: list[MexicanTile], ends: list[int], playable: list[int]) -> np.ndarray:
    """An observation with this hand, these open ends by train slot (own train first) and
    these playable slots; the rest of it is noise the feature must not read."""
    obs = np.random.default_rng(len(hand)).integers(0, 2, MEXICAN_TRAIN.obs_size)
    obs = obs.astype(np.float32)
    obs[OBSERVATION_SLICES["hand"]] = 0
    for tile in hand:
        obs[OBSERVATION_SLICES["hand"].start + tile.index] = 1
    one_hot = np.zeros((NUM_SLOTS, NUM_VALUES), np.float32)
    one_hot[np.arange(NUM_SLOTS), ends] = 1
    obs[OPEN_ENDS] = one_hot.ravel()
    obs[OBSERVATION_SLICES["playable"]] = 0
    obs[OBSERVATION_SLICES["playable"].start + np.asarray(playable, np.int64)] = 1
    return obs


def part(features: np.ndarray, name: str) -> np.ndarray:
    return features[PLAN_SLICES[name]]


def expected_fits(hand: list[MexicanTile], ends: list[int], playable: list[int]) -> set[int]:
    elsewhere = {ends[slot] for slot in playable if slot != 0}
    return {t.index for t in hand if t.low in elsewhere or t.high in elsewhere}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ALL_TILES), max_size=24, unique=True),
    st.lists(st.integers(0, NUM_VALUES - 1), min_size=NUM_SLOTS, max_size=NUM_SLOTS),
    st.sets(st.integers(0, NUM_SLOTS - 1)),
)
def test_plan_holds_the_experts_chain_and_the_tiles_that_fit_elsewhere(hand, ends, playable):
    """M3.2: the chain is ``longest_chain`` of the hand in tile order from the own train's
    open end, tile for tile and in order; its length; the tiles fitting another open train."""
    playable = sorted(playable)
    features = plan_features(observation(hand, ends, playable)[None])[0]
    chain = longest_chain(sorted(hand, key=lambda t: t.index), ends[0])
    assert np.flatnonzero(part(features, "planned")).tolist() == sorted(t.index for t in chain)
    order = part(features, "plan_order")
    assert [order[t.index] for t in chain] == pytest.approx([1 - k / 16 for k in range(len(chain))])
    assert part(features, "plan_length")[0] == pytest.approx(len(chain) / 16)
    fits = set(np.flatnonzero(part(features, "fits_elsewhere")).tolist())
    assert fits == expected_fits(hand, ends, playable)


def test_plan_of_a_known_hand():
    """M3.2: from an open 5, 5-7 7-7 7-2 2-9 is the longest chain; 3-4 and 12-12 are not
    on it, and 3-4 fits the Mexican train's open 4."""
    hand = [parse(t) for t in ("7-2", "5-7", "3-4", "2-9", "7-7", "12-12")]
    ends = [5] + [0] * (NUM_SLOTS - 2) + [4]
    features = plan_features(observation(hand, ends, [0, NUM_SLOTS - 1])[None])[0]
    order = part(features, "plan_order")
    laid = sorted(np.flatnonzero(order), key=lambda i: -order[i])
    assert [str(ALL_TILES[i]) for i in laid] == ["5-7", "7-7", "2-7", "2-9"]
    assert np.flatnonzero(part(features, "fits_elsewhere")).tolist() == [parse("3-4").index]


def test_the_search_stops_where_the_experts_does():
    """A hand of every tile has more chains than the node budget: the feature keeps the
    best chain found within the budget, as the expert's search does."""
    hand = list(ALL_TILES)
    chain = longest_chain(hand, 6)
    features = plan_features(observation(hand, [6] * NUM_SLOTS, [0])[None])[0]
    assert np.flatnonzero(part(features, "planned")).tolist() == sorted(t.index for t in chain)
    assert CHAIN_SEARCH_NODES < 10**6 and len(chain) > 20


def test_plan_reads_the_observers_own_train_in_real_games():
    """In random games of the AEC env, each observation's plan is the chain from the acting
    player's own train (relative slot 0), whoever acts."""
    env = mexican_train_v0.env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    checked = 0
    for agent in env.agent_iter(max_iter=300):
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        game = env.unwrapped.game
        me = game.current
        hand = sorted(game.hands[me], key=lambda t: t.index)
        chain = longest_chain(hand, game.trains[me].open_end)
        planned = part(plan_features(obs["observation"][None])[0], "planned")
        assert np.flatnonzero(planned).tolist() == sorted(t.index for t in chain), agent
        checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 100


def test_observation_features_append_to_rows_and_single_observations():
    features = ObservationFeatures(["plan"], MEXICAN_TRAIN)
    assert features.size == MEXICAN_TRAIN.obs_size + PLAN_SIZE
    rows = np.random.default_rng(0).integers(0, 2, (5, MEXICAN_TRAIN.obs_size)).astype(np.float32)
    out = features(rows)
    assert out.shape == (5, features.size) and np.array_equal(out[:, : rows.shape[1]], rows)
    np.testing.assert_array_equal(features(rows[2]), out[2])
    spinner_rows = rows[:, : spinner_v0.ENCODING.obs_size]
    np.testing.assert_array_equal(
        ObservationFeatures([], spinner_v0.ENCODING)(spinner_rows), spinner_rows
    )


@pytest.mark.parametrize(
    ("names", "encoding", "message"),
    [
        (["chain"], MEXICAN_TRAIN, "no observation feature 'chain'; the features are expert, plan"),
        (["plan"], spinner_v0.ENCODING, "'plan' reads Mexican Train observations, not Spinner"),
        (["plan", "plan"], MEXICAN_TRAIN, "named twice"),
    ],
)
def test_a_bad_feature_list_is_named(names, encoding, message):
    with pytest.raises(ValueError, match=message):
        ObservationFeatures(names, encoding)


def feature_policy() -> tuple[MaskableActorCriticPolicy, ObservationFeatures]:
    """A small untrained policy that reads the Mexican Train observation and ``plan``."""
    features = ObservationFeatures(["plan"], MEXICAN_TRAIN)
    policy = MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (features.size,), np.float32),
        spaces.Discrete(MEXICAN_TRAIN.num_actions),
        lr_schedule=lambda _: 3e-4,
        net_arch={"pi": [16, 8], "vf": [12]},
    )
    return policy, features


def test_a_policy_file_keeps_its_features_and_its_agent_reads_them(tmp_path):
    policy, features = feature_policy()
    path = save_policy(policy, tmp_path / "planner.safetensors", MEXICAN_TRAIN, ["plan"])
    header = load_policy(path, MEXICAN_TRAIN)[1]
    assert header.features == ("plan",) and header.obs_size == features.size
    assert header.format_version >= 2  # the format that added features, or a later one
    agent = make_agent(str(path), encoding=MEXICAN_TRAIN)
    assert isinstance(agent, PolicyAgent) and agent.features.names == ("plan",)
    assert agent.obs_size == MEXICAN_TRAIN.obs_size
    rows = np.random.default_rng(1).integers(0, 2, (4, MEXICAN_TRAIN.obs_size)).astype(np.float32)
    np.testing.assert_allclose(
        agent.logits(rows), PolicyAgent(policy).logits(features(rows)), rtol=1e-5, atol=1e-6
    )
    with pytest.raises(ValueError, match=r"game 'Mexican Train' \(the game needs 'Spinner'\)"):
        load_policy(path, spinner_v0.ENCODING)


def test_convert_writes_the_features_a_model_was_trained_with(tmp_path, capsys):
    policy, _ = feature_policy()
    source, target = tmp_path / "sb3.pt", tmp_path / "safe.safetensors"
    policy.save(str(source))
    convert = ["convert", "--trust-pickle", str(source), str(target), "--game", "mexican_train"]
    with pytest.raises(SystemExit) as exit_info:
        policy_main(convert)
    assert exit_info.value.code == 2
    assert "obs_size 1551 (the game needs 1277)" in capsys.readouterr().err
    policy_main([*convert, "--features", "plan"])
    assert PolicyAgent.load(target, MEXICAN_TRAIN).features.names == ("plan",)


def test_an_agent_whose_features_do_not_fit_its_network_is_refused():
    with pytest.raises(ValueError, match=r"reads 1277 numbers.*features \['plan'\] are 1551"):
        PolicyAgent(
            small_policy(MEXICAN_TRAIN), features=ObservationFeatures(["plan"], MEXICAN_TRAIN)
        )


def test_format_1_files_without_features_still_load():
    for name in ("spinner_2p_clone", "spinner_4p_clone"):
        header = load_policy(f"agents/checkpoints/{name}.safetensors")[1]
        assert header.features == () and header.format_version in (1, 2)


def test_the_training_env_appends_the_features_to_every_observation():
    config = mexican_train_config(n_envs=4, features=["plan"])
    venv = make_training_env(config, make_pool(config, seed=0))
    assert venv.observation_space.shape == (MEXICAN_TRAIN.obs_size + PLAN_SIZE,)
    venv.seed(0)
    obs = venv.reset()
    features = ObservationFeatures(["plan"], MEXICAN_TRAIN)
    np.testing.assert_array_equal(obs, features(obs[:, : MEXICAN_TRAIN.obs_size]))
    ended = 0
    for _ in range(60):
        masks = np.stack(venv.env_method("action_masks"))
        actions = [int(np.flatnonzero(m)[0]) for m in masks]
        obs, _, dones, infos = venv.step(np.array(actions))
        for b in np.flatnonzero(dones):
            terminal = infos[b]["terminal_observation"]
            assert terminal.shape == obs[b].shape
            ended += 1
    assert ended > 0


def test_a_run_with_features_saves_a_policy_that_reads_them(tmp_path):
    config = mexican_train_config(
        features=["plan"],
        total_timesteps=64,
        pretrain={"imitate": "heuristic", "samples": 500, "epochs": 1, "batch_size": 256},
    )
    path = train(config, tmp_path, progress_bar=False)
    agent = make_agent(str(path), encoding=MEXICAN_TRAIN)
    assert agent.features.names == ("plan",)
    restart = mexican_train_config(init_from=str(path), total_timesteps=64)
    with pytest.raises(ValueError, match=r"reads the features \['plan'\], the config \[\]"):
        train(restart, tmp_path / "again", progress_bar=False)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"features": ["chain"]}, "features: no observation feature 'chain'"),
        ({"features": "plan"}, "features: expected"),
        ({"game": "spinner", "num_players": 2, "features": ["plan"]}, "not Spinner"),
    ],
)
def test_a_bad_features_key_is_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        mexican_train_config(**changes)
