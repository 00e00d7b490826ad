"""spinner_env.train.ppo's config schema and command line: bad input fails cleanly and early, run
directories are never silently replaced, ``--resume`` continues a run, saves are atomic."""

from __future__ import annotations

import argparse
import base64
import importlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import cloudpickle
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO
from spinner_env.agents import CHECKPOINTS
from spinner_env.train.config import (
    TrainConfig,
    config_path,
    load_config,
    shipped_configs,
)
from spinner_env.train.ppo import (
    latest_checkpoint,
    main,
    make_pool,
    make_training_env,
    planned_steps,
    save_model,
    train,
)
from stable_baselines3.common.callbacks import BaseCallback
from test_train import tiny_config


def write_config(path: Path, config: dict | str) -> Path:
    path.write_text(config if isinstance(config, str) else yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    "edit, message",
    [
        ({"n_env": 8}, "unknown key 'n_env' (did you mean 'n_envs'?)"),
        ({"backend": "batch"}, "backend: expected 'batched', got 'batch'"),
        ({"backend": "aec"}, "backend: the AEC backend was removed; training plays on the game's"),
        ({"league": {"exploiter_start": "best"}}, "expected one of 'fresh', 'main', got 'best'"),
        ({"ppo": {"n_steps": "many"}}, "ppo.n_steps: expected an integer, got 'many'"),
        ({"ppo": {"n_step": 64}}, "unknown key 'ppo.n_step' (did you mean 'ppo.n_steps'?)"),
        ({"ppo": {"policy_kwargs": {"net_arch": [32, "x"]}}}, "ppo.policy_kwargs.net_arch"),
        ({"skip_forced": "yes"}, "skip_forced: expected true or false, got 'yes'"),
        ({"n_envs": True}, "n_envs: expected an integer, got True"),
        ({"seed": 1.5}, "seed: expected an integer, got 1.5"),
        ({"total_timesteps": -1}, "total_timesteps must be at least 0, got -1"),
        ({"total_timesteps": -5}, "total_timesteps must be at least 0, got -5"),
        ({"total_timesteps": 0, "league": {}}, "total_timesteps must be at least 1, got 0"),
        ({"opponents": {"baselines": {"random": "lots"}}}, "opponents.baselines.random"),
        ({"opponents": {"baselines": {"random": -1}}}, "opponents.baselines.random"),
        ({"eval": {"matches": 0}}, "eval.matches must be at least 1"),
        ({"eval": ["random"]}, "eval: expected a mapping of keys, got ['random']"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"env": {"rewards": "match"}}, "env: unknown argument(s) rewards"),
        ({"env": {"reward": "gold"}}, "env: "),
        ({"num_players": 9}, "num_players must be an integer from 2 to 8, got 9"),
        ({"init_from": "missing.zip"}, "init_from: no such file 'missing.zip'"),
    ],
)
def test_the_schema_names_the_key_that_is_wrong(edit, message):
    with pytest.raises(ValueError) as error:
        TrainConfig.from_dict(tiny_config(**edit))
    assert message in str(error.value)


def test_a_config_file_that_is_empty_broken_or_incomplete_is_refused(tmp_path):
    cases = {
        "": "is empty",
        "- 1\n- 2\n": "expected a mapping of keys, got [1, 2]",
        "num_players: [2\n": "not valid YAML (line 2)",
        "num_players: 2\n": "missing key 'total_timesteps'",
    }
    for i, (text, message) in enumerate(cases.items()):
        path = write_config(tmp_path / f"c{i}.yaml", text)
        with pytest.raises(ValueError, match=f"{re.escape(str(path))}.*{re.escape(message)}"):
            load_config(path)


def test_init_from_takes_a_committed_policy_by_name_or_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert TrainConfig.from_dict(tiny_config(init_from="spinner_2p")).init_file() == (
        CHECKPOINTS / "spinner_2p.safetensors"
    )
    (tmp_path / "mine.zip").write_bytes(b"")
    assert TrainConfig.from_dict(tiny_config(init_from="mine.zip")).init_file() == Path("mine.zip")
    with pytest.raises(ValueError, match="nor a committed policy's name \\(spinner_2p, "):
        TrainConfig.from_dict(tiny_config(init_from="spinner_3p"))


def test_the_config_round_trips_through_yaml(tmp_path):
    config = TrainConfig.from_dict(tiny_config())
    path = write_config(tmp_path / "c.yaml", config.as_dict())
    assert load_config(path) == config
    assert config.ppo.model_kwargs()["policy_kwargs"] == {"net_arch": [32]}
    assert "policy_kwargs" in TrainConfig(2, 10).ppo.model_kwargs()


CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def test_every_config_ships_with_the_package_and_loads_by_name_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the checkout: configs/quick.yaml is not here
    assert sorted(shipped_configs()) == sorted(path.stem for path in CONFIGS.glob("*.yaml"))
    for path in CONFIGS.glob("*.yaml"):
        assert config_path(path.stem).read_text() == path.read_text()
        assert config_path(path.name) == config_path(path.stem)
        load_config(path.stem)  # and runs here: spinner_4p_clone's init_from names a shipped policy
    assert load_config("quick") == load_config(CONFIGS / "quick.yaml")
    assert load_config("exploit.yaml").name == "exploit"
    # A file of the name, where there is one, comes first.
    write_config(tmp_path / "quick", tiny_config(name="mine"))
    assert load_config("quick").name == "mine"


@pytest.mark.parametrize(
    "config, hint",
    [
        ("nowhere", ""),
        ("configs/quick.yaml", " (did you mean 'quick'?)"),
        ("quick.yml", " (did you mean 'quick'?)"),
        ("runs/exploit", " (did you mean 'exploit'?)"),
        ("quik", " (did you mean 'quick'?)"),
    ],
)
def test_a_config_neither_a_file_nor_shipped_lists_the_shipped_names(
    tmp_path, monkeypatch, config, hint
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as error:
        config_path(config)
    assert str(error.value) == (
        f"no config file {config!r} and no shipped config of that name{hint} "
        f"(shipped: {', '.join(sorted(shipped_configs()))})"
    )


def test_every_mistyped_key_is_reported_at_once():
    """Two mistyped keys at the top, two in sections: one message names all four, in the
    config's order."""
    config = tiny_config(n_env=8, sed=1)
    config["ppo"] = {**config["ppo"], "n_step": 64}
    config["pretrain"] = {"imitate_": "heuristic"}
    with pytest.raises(ValueError) as error:
        TrainConfig.from_dict(config)
    assert str(error.value) == (
        "unknown keys 'ppo.n_step' (did you mean 'ppo.n_steps'?), "
        "'n_env' (did you mean 'n_envs'?), 'sed' (did you mean 'seed'?), "
        "'pretrain.imitate_' (did you mean 'pretrain.imitate'?)"
    )


def test_a_mistyped_game_is_answered_with_the_closest():
    with pytest.raises(ValueError, match=r"game: unknown game 'spiner' \(did you mean 'spinner'"):
        TrainConfig.from_dict(tiny_config(game="spiner"))


def test_the_steps_are_rounded_up_to_whole_rollouts_and_said_before_training(tmp_path, capsys):
    """Rollouts of 64 steps x 2 games = 128: 200 steps round up to 256, said before the
    training starts; trained.json has what was asked for and what was trained."""
    config = tiny_config(total_timesteps=200, checkpoint_every=0, eval={}, opponents={})
    assert planned_steps(TrainConfig.from_dict(config)) == 256
    assert planned_steps(TrainConfig.from_dict(config), steps_before=128) == 256
    assert planned_steps(TrainConfig.from_dict({**config, "total_timesteps": 256})) == 256
    assert planned_steps(TrainConfig.from_dict({**config, "total_timesteps": 0})) == 0
    out = tmp_path / "run"
    train(config, out, progress_bar=False)
    said = capsys.readouterr().out
    assert said.index(
        "PPO trains whole rollouts of n_steps x n_envs = 64 x 2 = 128 steps: total_timesteps "
        "200 rounds up to 256"
    ) < said.index("trained 256 steps")
    trained = json.loads((out / "trained.json").read_text())
    assert (trained["total_timesteps"], trained["trained_timesteps"]) == (200, 256)
    assert MaskablePPO.load(out / "final.zip", device="cpu").num_timesteps == 256


def test_a_whole_number_of_rollouts_is_trained_without_a_word(tmp_path, capsys):
    config = tiny_config(total_timesteps=128, checkpoint_every=0, eval={}, opponents={})
    train(config, tmp_path / "run", progress_bar=False)
    assert "rounds up" not in capsys.readouterr().out
    assert json.loads((tmp_path / "run" / "trained.json").read_text())["trained_timesteps"] == 128


def test_the_commands_take_a_shipped_config_by_name_outside_the_checkout(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["--config", "nowhere"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("spinner-train: error: no config file 'nowhere'") and "quick" in err
    assert err.count("\n") == 1
    # The name resolves: the run is refused later, on its overrides.
    with pytest.raises(SystemExit):
        main(["--config", "quick", "--total-timesteps", "-1"])
    assert "total_timesteps must be at least 0, got -1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--total-timesteps", "-1"], "total_timesteps must be at least 0, got -1"),
        (["--total-timesteps", "-3"], "total_timesteps must be at least 0, got -3"),
        (["--init-from", "missing.zip"], "init_from: no such file 'missing.zip'"),
        (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["--resume", "--overwrite"], "not allowed with argument"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(tmp_path, capsys, args, message):
    path = write_config(tmp_path / "c.yaml", tiny_config())
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["--config", str(path), "--out-dir", str(out), "--no-progress", *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("spinner-train: error: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()  # refused before any work


def test_debug_shows_the_error_itself(tmp_path):
    path = write_config(tmp_path / "c.yaml", tiny_config(n_env=8))
    with pytest.raises(ValueError, match="unknown key 'n_env'"):
        main(["--config", str(path), "--debug"])


def test_the_command_prints_no_traceback(tmp_path):
    """The real process: one line on stderr, status 2."""
    path = write_config(tmp_path / "c.yaml", "num_players: 2\ntotal_timesteps: 10\nn_env: 8\n")
    done = subprocess.run(
        [sys.executable, "-m", "spinner_env.train.ppo", "--config", str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"spinner-train: error: {path}: unknown key 'n_env' (did you mean 'n_envs'?)"
    ]


def run_args(path: Path, out: Path, *more: str) -> list[str]:
    return ["--config", str(path), "--out-dir", str(out), "--no-progress", *more]


def test_an_existing_run_is_refused_unless_resumed_or_overwritten(tmp_path, capsys):
    config = tiny_config(total_timesteps=128, checkpoint_every=0, eval={})
    path = write_config(tmp_path / "c.yaml", config)
    out = tmp_path / "run"
    main(run_args(path, out))
    stamp = (out / "final.zip").stat().st_mtime_ns
    with pytest.raises(SystemExit):
        main(run_args(path, out))
    assert "exists: pass --resume to continue it or --overwrite" in capsys.readouterr().err
    assert (out / "final.zip").stat().st_mtime_ns == stamp
    (out / "notes.txt").write_text("mine")
    main(run_args(path, out, "--overwrite"))
    assert not (out / "notes.txt").exists() and (out / "final.zip").stat().st_mtime_ns != stamp
    # --overwrite deletes training runs only, never a folder that holds something else.
    other = tmp_path / "papers"
    other.mkdir()
    (other / "thesis.tex").write_text("x")
    with pytest.raises(SystemExit):
        main(run_args(path, other, "--overwrite"))
    assert "holds no training run" in capsys.readouterr().err
    assert (other / "thesis.tex").is_file()


class RecordStart(BaseCallback):
    """The step count and the weights the learner starts ``learn`` with."""

    def _on_training_start(self) -> None:
        self.steps = self.num_timesteps
        self.weights = {k: v.clone() for k, v in self.model.policy.state_dict().items()}

    def _on_step(self) -> bool:
        return True


def test_resume_continues_from_the_latest_checkpoint(tmp_path, capsys):
    """The resumed run starts from the saved model's step count and weights, keeps its
    checkpoint schedule, and stops at the new total_timesteps."""
    config = tiny_config(total_timesteps=128, checkpoint_every=128, eval={})
    out = tmp_path / "run"
    train(config, out, progress_bar=False)
    first = MaskablePPO.load(out / "final.zip", device="cpu")
    assert first.num_timesteps == 128
    start = RecordStart()
    train(
        {**config, "total_timesteps": 384},
        out,
        progress_bar=False,
        resume=True,
        callbacks=[start],
    )
    assert "from final.zip at 128 steps" in capsys.readouterr().out
    assert start.steps == 128
    saved = first.policy.state_dict()
    assert all(torch.equal(start.weights[k], saved[k]) for k in saved)
    final = MaskablePPO.load(out / "final.zip", device="cpu")
    assert final.num_timesteps == 384
    assert not all(torch.equal(final.policy.state_dict()[k], saved[k]) for k in saved)
    names = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert names == ["model_128_steps.zip", "model_256_steps.zip", "model_384_steps.zip"]
    with pytest.raises(ValueError, match="has trained 384 steps"):
        train({**config, "total_timesteps": 384}, out, progress_bar=False, resume=True)
    with pytest.raises(ValueError, match=r"differs from the run's .* in seed"):
        train({**config, "seed": 5}, out, progress_bar=False, resume=True)


class _Marker:
    """Unpickling this creates the file at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (self.path,))


def test_resume_reads_tensors_and_json_and_never_unpickles(tmp_path, capsys):
    """A run directory from elsewhere can carry a pickle payload in its checkpoint's
    data (SB3 stores some entries pickled); --resume must not run it."""
    config = tiny_config(total_timesteps=128, checkpoint_every=0, eval={})
    out = tmp_path / "run"
    train(config, out, progress_bar=False)
    marker = tmp_path / "payload_ran"
    final = out / "final.zip"
    with zipfile.ZipFile(final) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    payload = base64.b64encode(cloudpickle.dumps(_Marker(marker))).decode()
    data["lr_schedule"][":serialized:"] = payload
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(final, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    tampered = shutil.copy(final, tmp_path / "tampered.zip")
    train({**config, "total_timesteps": 256}, out, progress_bar=False, resume=True)
    assert "from final.zip at 128 steps" in capsys.readouterr().out
    assert not marker.exists()
    MaskablePPO.load(tampered, device="cpu")  # the payload is real: SB3's own load runs it
    assert marker.exists()


def test_resume_without_a_run_or_a_checkpoint_is_refused(tmp_path):
    config = tiny_config()
    with pytest.raises(ValueError, match=r"nothing to resume .* no config\.yaml"):
        train(config, tmp_path / "none", progress_bar=False, resume=True)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(tiny_config(out_dir=str(tmp_path))))
    with pytest.raises(ValueError, match="no checkpoint saved yet"):
        train(config, tmp_path, progress_bar=False, resume=True)


def test_the_latest_checkpoint_is_final_else_the_most_steps(tmp_path):
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    assert latest_checkpoint(tmp_path) is None
    for steps in (64, 1024, 512):
        (folder / f"model_{steps}_steps.zip").write_bytes(b"")
    assert latest_checkpoint(tmp_path) == folder / "model_1024_steps.zip"
    (tmp_path / "final.zip").write_bytes(b"")
    assert latest_checkpoint(tmp_path) == tmp_path / "final.zip"


def test_an_interrupted_save_leaves_the_previous_model_whole(tmp_path):
    config = TrainConfig.from_dict(tiny_config())
    model = MaskablePPO("MlpPolicy", make_training_env(config, make_pool(config, 0)), n_steps=64)
    path = tmp_path / "model.zip"
    save_model(model, path)
    before = path.read_bytes()

    def interrupted(f):
        f.write(b"PK half a zip")
        raise KeyboardInterrupt

    model.save = interrupted
    with pytest.raises(KeyboardInterrupt):
        save_model(model, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.zip"]


def test_evaluating_during_training_leaves_the_training_unchanged(tmp_path):
    """The learning curve's evaluations draw no randomness that training uses."""
    quiet = tiny_config(total_timesteps=256, checkpoint_every=0, eval={})
    watched = {**quiet, "eval": {"every": 128, "matches": 2, "against": ["greedy"]}}
    a = train(quiet, tmp_path / "a", progress_bar=False)
    b = train(watched, tmp_path / "b", progress_bar=False)
    weights_a = MaskablePPO.load(a.parent / "final.zip", device="cpu").policy.state_dict()
    weights_b = MaskablePPO.load(b.parent / "final.zip", device="cpu").policy.state_dict()
    assert all(torch.equal(weights_a[k], weights_b[k]) for k in weights_a)


def parser_of(main, monkeypatch) -> argparse.ArgumentParser:
    """The parser a command's ``main`` builds, caught as it parses."""
    caught = []

    def catch(self, args=None, namespace=None):
        caught.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", catch)
    with pytest.raises(SystemExit):
        main([])
    return caught[0]


COMMANDS = {
    "spinner-train": "spinner_env.train.ppo",
    "spinner-evaluate": "spinner_env.train.evaluate",
    "spinner-exploit": "spinner_env.train.exploit",
    "spinner-league": "spinner_env.train.league",
    "spinner-policy-iteration": "spinner_env.train.policy_iteration",
    "spinner-policy": "spinner_env.agents.policy",
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_flag_of_every_training_command_has_a_help_text(command, monkeypatch):
    parsers = [parser_of(importlib.import_module(COMMANDS[command]).main, monkeypatch)]
    missing = []
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += action.choices.values()
            elif not action.help:
                missing.append(f"{parser.prog}: {'/'.join(action.option_strings) or action.dest}")
    assert not missing


def test_a_choice_that_is_none_is_answered_with_the_closest(capsys):
    from spinner_env.train.evaluate import main as evaluate

    with pytest.raises(SystemExit) as exit_:
        evaluate(["--agents", "random", "random", "--game", "spiner"])
    (line,) = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2
    assert line == (
        "spinner-evaluate: error: argument --game: invalid choice: 'spiner' (did you mean "
        "'spinner'?) (choose from mexican_train, spinner) (see --help)"
    )
