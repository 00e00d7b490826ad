"""MaskablePPO self-play training: a smoke run saves a checkpoint that loads and plays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from safetensors.torch import load_file
from spinner_env.agents import RandomAgent, make_agent
from spinner_env.agents.policy import PolicyAgent, ValueTarget
from spinner_env.train.config import TrainConfig
from spinner_env.train.evaluate import tournament
from spinner_env.train.ppo import (
    OpponentPool,
    init_weights,
    load_config,
    main,
    make_model,
    make_pool,
    make_training_env,
    train,
)


def tiny_config(**overrides) -> dict:
    config = {
        "name": "smoke",
        "game": "spinner",
        "num_players": 2,
        "env": {"num_hands": 1, "reward": "hand_score", "episode": "hand"},
        "skip_forced": True,
        "total_timesteps": 256,
        "seed": 0,
        "n_envs": 2,
        "ppo": {
            "n_steps": 64,
            "batch_size": 64,
            "n_epochs": 1,
            "policy_kwargs": {"net_arch": [32]},
        },
        "opponents": {
            "baselines": {"random": 1, "greedy": 1, "heuristic": 1},
            "snapshot_weight": 2,
            "snapshot_every": 128,
            "max_snapshots": 2,
        },
        "checkpoint_every": 128,
        "eval": {"every": 128, "matches": 1, "against": ["random"]},
    }
    config.update(overrides)
    return config


def test_a_smoke_run_saves_a_checkpoint_that_loads_and_plays(tmp_path):
    policy_path = train(tiny_config(), tmp_path, progress_bar=False)
    assert policy_path.is_file() and (tmp_path / "final.zip").is_file()
    assert list((tmp_path / "checkpoints").glob("model_*_steps.zip"))
    assert list((tmp_path / "tb").iterdir())
    for agent in (
        make_agent(str(policy_path)),
        PolicyAgent.load_trusted_sb3(tmp_path / "final.zip"),
    ):
        report = tournament([agent, RandomAgent()], 2, 4, rules={"num_hands": 1}, progress=False)
        assert report.matches == 4


def test_a_mexican_train_smoke_run_trains_and_plays(tmp_path):
    """The same commands serve Mexican Train, selected by ``game`` in the config."""
    config = tiny_config(
        game="mexican_train",
        num_players=4,
        env={"num_rounds": 1, "reward": "hand_score", "episode": "hand"},
        eval={"every": 128, "matches": 1, "against": ["heuristic"]},
    )
    policy_path = train(config, tmp_path, progress_bar=False)
    agent = make_agent(str(policy_path))
    # Its value head says what it predicts: the config's reward and episode, PPO's gamma.
    assert agent.value_target == ValueTarget("hand_score", "hand", 0.99)
    report = tournament(
        [agent, RandomAgent(), RandomAgent(), RandomAgent()],
        4,
        4,
        game="mexican_train",
        rules={"num_rounds": 1},
        progress=False,
    )
    assert report.matches == 4


def assert_trains_the_same_weights_twice(config: dict, tmp_path: Path) -> None:
    first = train(config, tmp_path / "a", progress_bar=False)
    second = train(config, tmp_path / "b", progress_bar=False)
    a = PolicyAgent.load(first).policy.state_dict()
    b = PolicyAgent.load(second).policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_the_same_seed_trains_the_same_weights(tmp_path):
    assert_trains_the_same_weights_twice(tiny_config(total_timesteps=128, eval={}), tmp_path)


def test_the_pool_keeps_the_latest_snapshots_and_draws_by_weight():
    pool = OpponentPool({"random": 1.0, "greedy": 3.0}, snapshot_weight=4.0, max_snapshots=2)
    for name in ("s1", "s2", "s3"):
        snapshot = RandomAgent()
        snapshot.name = name
        pool.add_snapshot(snapshot)
    agents, p = pool.members()
    assert [a.name for a in agents] == ["random", "greedy", "s2", "s3"]
    np.testing.assert_allclose(p, [1 / 8, 3 / 8, 2 / 8, 2 / 8])
    with pytest.raises(ValueError, match=r"opponents\.baselines: unknown agent 'grandmaster'"):
        OpponentPool({"grandmaster": 1.0})


def test_shipped_configs_load(tmp_path):
    shipped = ("quick", "spinner_2p", "spinner_4p", "mexican_train_4p", "spinner_2p_clone")
    for name in (*shipped, "league_2p"):
        config = load_config(f"configs/{name}.yaml")
        assert config.num_players in (2, 4) and config.name == name
    assert load_config("configs/league_2p.yaml").league is not None
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(tiny_config(total_timesteps=64, eval={}, checkpoint_every=0)))
    assert main(
        ["--config", str(path), "--out-dir", str(tmp_path / "run"), "--no-progress"]
    ).is_file()


def test_init_from_a_policy_file_starts_from_its_weights(tmp_path):
    config = tiny_config(total_timesteps=64, eval={})
    policy_path = train(config, tmp_path / "a", progress_bar=False)
    config = TrainConfig.from_dict(tiny_config(total_timesteps=64))
    env = make_training_env(config, make_pool(config, 0))
    model = make_model(config, env, tmp_path / "tb", seed=1)
    init_weights(model, policy_path, config)
    saved = load_file(policy_path)
    assert all(torch.equal(saved[k], v) for k, v in model.policy.state_dict().items())
    wider = TrainConfig.from_dict(tiny_config(ppo={"policy_kwargs": {"net_arch": [64]}}))
    model = make_model(wider, env, tmp_path / "tb", seed=1)
    with pytest.raises(ValueError, match=r"holds another network than ppo\.policy_kwargs"):
        init_weights(model, policy_path, wider)
    with pytest.raises(ValueError, match="does not fit Mexican Train"):
        init_weights(model, policy_path, wider.replace(game="mexican_train", env={}))
