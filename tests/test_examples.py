"""Every script in examples/ runs a few hundred steps with zero illegal moves, and every
seat's credited rewards add up, episode by episode, to its match outcome.

The examples are scripts that import their sibling ``example_kit`` module, so they are
imported here with examples/ on the path. RLlib pins its own gymnasium and runs from
``.venv-rllib`` (``make rllib-venv``), inside the loopback-only network namespace of
``ray_sandbox`` (tests/ray_sandbox.py); without the venv or a namespace the RLlib test is
skipped, except in CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from ray_sandbox import RLLIB_PYTHON, RaySandbox, skip_or_fail

from spinner_env import spinner_v0
from spinner_env.core.encoding import zero_sum_outcome

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))

    def load(name: str) -> ModuleType:
        return importlib.import_module(name)

    return load


def _check_episodes(stats: dict, at_least: int) -> None:
    assert stats["illegal"] == 0
    assert len(stats["outcomes"]) >= at_least
    assert stats["credited"] == pytest.approx(stats["outcomes"], abs=1e-6)
    assert stats["mismatches"] == 0


def test_outcome_reads_every_seats_outcome_from_its_final_observation(examples):
    check = examples("example_kit")
    rng = np.random.default_rng(0)
    for num_players in (2, 3, 5):
        env = spinner_v0.raw_env(num_players=num_players, num_hands=2)
        env.reset(seed=num_players)
        while not all(env.terminations.values()):
            env.step(int(rng.choice(env.legal_actions())))
        expected = zero_sum_outcome(env.game.totals)
        for seat, agent in enumerate(env.possible_agents):
            final = env.observe(agent)["observation"]
            assert check.seat_outcome(final) == pytest.approx(expected[seat])
            relative = [expected[(seat + k) % num_players] for k in range(num_players)]
            assert check.match_outcomes(final) == pytest.approx(relative)


def test_count_mismatches_rejects_lists_of_different_lengths(examples):
    check = examples("example_kit")
    assert check.count_mismatches([1.0, -1.0, 0.0], [1.0, 1.0, 0.0]) == 1
    with pytest.raises(ValueError, match="2 credited returns for 3 outcomes"):
        check.count_mismatches([1.0, -1.0], [1.0, -1.0, 0.0])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--steps", "0"], "--steps must be at least 1, got 0"),
        (["--num-players", "9"], "num_players must be"),
        (["--num-envs", "two"], "invalid int value: 'two'"),
    ],
)
def test_bad_command_lines_exit_2_with_one_line(examples, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        examples("cleanrl_ppo").main(argv)
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert message in error


def test_torchrl_ppo(examples):
    stats = examples("torchrl_ppo").main(["--steps", "300", "--rollout", "150"])
    assert stats["decisions"] == 300
    _check_episodes(stats, at_least=4)  # 2 seats x at least 2 matches


def test_torchrl_batched_random_actions_ignore_the_mask_and_the_masked_actor_does_not(examples):
    """What the TorchRL example's docstring warns of: a batched env's ``rand_action``."""
    torchrl_ppo = examples("torchrl_ppo")
    from torchrl.envs import SerialEnv

    env = SerialEnv(2, lambda: torchrl_ppo.make_env(torchrl_ppo.Args()))
    env.set_seed(0)
    actor = torchrl_ppo.masked_random_actor()
    illegal = {"rand_action": 0, "masked_random_actor": 0}
    for way in illegal:
        td = env.reset()
        for _ in range(40):
            td = env.rand_action(td) if way == "rand_action" else actor(td)
            acting = td["players", "mask"]
            chosen = td[torchrl_ppo.ACTION].unsqueeze(-1)
            legal = td[torchrl_ppo.ACTION_MASK].gather(-1, chosen).squeeze(-1)
            illegal[way] += int((acting & ~legal).sum())
            _, td = env.step_and_maybe_reset(td)
    env.close()
    assert illegal["masked_random_actor"] == 0
    assert illegal["rand_action"] > 40  # most of the 80 actions


def test_cleanrl_ppo(examples):
    args = ["--steps", "512", "--num-envs", "8", "--num-steps", "64"]
    stats = examples("cleanrl_ppo").main(args)
    assert stats["decisions"] == 512
    _check_episodes(stats, at_least=8)


def test_tianshou_single_agent(examples):
    args = ["--steps", "400", "--collect-steps", "200", "--num-envs", "2"]
    stats = examples("tianshou_single_agent").main(args)
    assert stats["decisions"] >= 400
    _check_episodes(stats, at_least=4)


def test_tianshou_multi_agent_path_loses_the_rewards_of_other_seats_moves(examples):
    """Why the example takes the single-agent path: the buffer holds every seat's reward
    (``paid``, all equal to the outcome), but each seat is trained on the rows of its own
    moves only, so whenever the other seat ends the match its final reward is lost."""
    loss = examples("tianshou_single_agent").multi_agent_reward_loss(episodes=10)
    assert len(loss["outcomes"]) == 20
    assert loss["paid_mismatches"] == 0
    assert loss["mismatches"] >= 3  # about half of them: 40 of 80 in 40 matches


def test_pettingzoo_supersuit_wrappers(examples):
    verdicts = examples("pettingzoo_supersuit").main(["--episodes", "2"])
    works = {name for name, verdict in verdicts.items() if verdict == "works"}
    assert works == {
        "spinner_v0.env() (PettingZoo's classic stack)",
        "pettingzoo turn_based_aec_to_parallel",
        "supersuit clip_reward_v0",
        "supersuit reward_lambda_v0 (x10)",
        "supersuit observation_lambda_v0 (with a space function)",
    }
    for name in ("supersuit sticky_actions_v0", "supersuit delay_observations_v0"):
        assert verdicts[name].startswith("breaks the game: 2 of 2 matches end on an illegal")
    for name in ("supersuit normalize_obs_v0", "supersuit frame_stack_v1"):
        assert verdicts[name].startswith("cannot be built")


def test_rllib_ppo_in_its_own_venv(ray_sandbox: RaySandbox, tmp_path: Path):
    """A local Ray (the sandbox drops ``RAY_ADDRESS``), over loopback only: PPO against the
    baselines and its snapshots, then its policy file played by ``spinner-evaluate`` here
    (the main venv)."""
    if not RLLIB_PYTHON.exists():
        skip_or_fail(f"{RLLIB_PYTHON} not found: `make rllib-venv` builds it")
    policy_file = tmp_path / "rllib_ppo.safetensors"
    command = [str(RLLIB_PYTHON), str(EXAMPLES / "rllib_ppo.py"), "--iterations", "2"]
    command += ["--batch", "200", "--snapshot-every", "1", "--pool", "2", "--out", str(policy_file)]
    run = ray_sandbox.run(command, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    record = json.loads(run.stdout.strip().splitlines()[-1])
    assert record["args"]["env_runners"] >= 2
    assert record["decisions"] >= 400
    assert record["episodes"] >= 4
    assert record["illegal"] == 0
    assert record["mismatches"] == 0
    # Baselines and one snapshot per iteration, the oldest dropped past --pool.
    assert record["pool"] == ["heuristic", "greedy", "random", "snapshot", "snapshot"]
    assert record["conversion_error"] < 1e-5

    evaluate = Path(sys.executable).parent / "spinner-evaluate"
    argv = [str(evaluate), "--agents", str(policy_file), "heuristic", "--players", "2"]
    argv += ["--matches", "4", "--rule", "num_hands=1", "--out", str(tmp_path / "eval")]
    played = subprocess.run([*argv, "--no-progress"], capture_output=True, text=True, check=False)
    assert played.returncode == 0, played.stderr
    result = json.loads((tmp_path / "eval.json").read_text())
    assert set(result["agents"]) == {"rllib_ppo", "heuristic"}
    assert result["matches"] == 4


def test_examples_say_how_to_run_them():
    for script in EXAMPLES.glob("*.py"):
        if script.name == "example_kit.py":
            continue
        doc = script.read_text().split('"""')[1]
        assert f"examples/{script.name}" in doc, script.name
