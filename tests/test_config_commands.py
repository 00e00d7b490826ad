"""A config declares the command it is for (``command``): the other commands refuse it in
one line, each command's ``--help`` lists only its own shipped configs, and no command
writes a committed agent's file name unless asked (``--out-dir``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from spinner_env.agents import COMMITTED
from spinner_env.train import exploit, league, policy_iteration, ppo
from spinner_env.train.config import (
    COMMANDS,
    TrainConfig,
    check_out_dir,
    config_help,
    load_config,
    shipped_configs,
)
from test_train import tiny_config

ROOT = Path(__file__).resolve().parent.parent
CONFIG_FOLDERS = (ROOT / "configs", ROOT / "research" / "configs")
ENTRY_POINTS = {
    "spinner-train": ppo.main,
    "spinner-league": league.main,
    "spinner-policy-iteration": policy_iteration.main,
}


@pytest.mark.parametrize(
    "path",
    [path for folder in CONFIG_FOLDERS for path in sorted(folder.glob("*.yaml"))],
    ids=lambda path: f"{path.parent.parent.name}/{path.stem}",
)
def test_every_config_declares_its_command(path):
    assert load_config(path).command in COMMANDS


def test_the_shipped_configs_are_the_recipes_and_the_tools():
    """configs/ holds what made a committed agent, and the tools; the rest is research's."""
    by_command = {command: set(shipped_configs(command)) for command in COMMANDS}
    assert set(COMMITTED) - {"checkpoint"} <= set(shipped_configs())
    assert by_command["spinner-train"] == {
        "quick", "spinner_2p_clone", "spinner_4p_clone", "mexican_train_4p"
    }  # fmt: skip
    assert by_command["spinner-league"] == {"league_2p"}
    assert by_command["spinner-exploit"] == {"exploit", "exploit_mexican_train"}
    assert sum(len(names) for names in by_command.values()) == len(shipped_configs())


@pytest.mark.parametrize("command", ["spinner-train", "spinner-policy-iteration"])
def test_help_lists_only_the_commands_own_configs(command):
    listed = set(config_help(command).split(": ", 1)[1].split(", "))
    assert listed == set(shipped_configs(command))
    others = set(shipped_configs()) - listed
    assert others and not any(load_config(name).command == command for name in others)


@pytest.mark.parametrize(
    "command, config, owner",
    [
        ("spinner-train", "spinner_2p", "spinner-policy-iteration"),
        ("spinner-train", "league_2p", "spinner-league"),
        ("spinner-league", "quick", "spinner-train"),
        ("spinner-policy-iteration", "spinner_2p_clone", "spinner-train"),
    ],
)
def test_a_command_refuses_another_commands_config_in_one_line(
    command, config, owner, tmp_path, capsys
):
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        ENTRY_POINTS[command](["--config", config, "--out-dir", str(out)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"{command}: error: {config} is a config for {owner}, not {command}: "
        f"run {owner} --config {config}\n"
    )
    assert not out.exists()


def test_exploit_refuses_a_training_config(capsys):
    with pytest.raises(SystemExit) as exit_:
        exploit.main(["--target", "random", "--config", "quick"])
    assert exit_.value.code == 2
    assert "quick is a config for spinner-train, not spinner-exploit" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command, config",
    [("spinner-train", "spinner_2p_clone"), ("spinner-policy-iteration", "spinner_2p")],
)
def test_a_committed_agents_recipe_writes_only_where_asked(
    command, config, capsys, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)  # where runs/<name>/<name>.safetensors would land
    with pytest.raises(SystemExit) as exit_:
        ENTRY_POINTS[command](["--config", config])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"{command}: error: the config makes {config!r}, a committed agent's name: "
        f"pass --out-dir DIR to write its {config}.safetensors there\n"
    )
    assert not (tmp_path / "runs").exists()
    check_out_dir(load_config(config), "runs/retrained")  # asked: no error


def test_a_config_that_names_no_command_runs_with_any_and_a_bad_one_is_refused():
    assert TrainConfig.from_dict(tiny_config()).command is None
    with pytest.raises(ValueError, match=r"command: expected one of spinner-train, .*'spinner'"):
        TrainConfig.from_dict({**tiny_config(), "command": "spinner"})
