"""DAgger (research/dagger.py): the student plays, the teacher
labels; with the teacher playing every move it is plain cloning; every round reports its
numbers; bad input is one clear ValueError (one line and status 2 on the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from dagger import DaggerSettings, LineUp, dagger, main
from spinner_env.agents.policy import PolicyAgent
from spinner_env.train.config import TrainConfig
from spinner_env.train.imitate import collect, teacher_policy
from spinner_env.train.ppo import limit_threads, make_pool
from test_imitate import mexican_train_config

SAMPLES = 300


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    limit_threads(1)


def dagger_config(**overrides) -> TrainConfig:
    """One-round matches of Mexican Train, four seats, cloning the compiled heuristic."""
    settings = {
        "env": {"reward": "hand_score", "episode": "hand", "num_rounds": 1},
        "features": ["plan"],
        "pretrain": {"imitate": "heuristic", "samples": SAMPLES, "epochs": 2},
        "opponents": {"baselines": {"heuristic": 1, "greedy": 1}, "snapshot_weight": 1},
        **overrides,
    }
    return mexican_train_config(**settings)


def test_with_the_teacher_playing_every_move_the_states_are_plain_clonings():
    config = dagger_config()
    pool = make_pool(config, seed=0)
    plain = collect(config, pool, "heuristic", SAMPLES, seed=3)
    student = teacher_policy(config, "greedy", seed=0)
    mixed = collect(config, pool, "heuristic", SAMPLES, seed=3, student=student, teacher_share=1.0)
    for name in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(getattr(plain, name), getattr(mixed, name)), name


def test_with_a_student_the_moves_played_are_its_own_and_the_labels_the_teachers():
    config = dagger_config()
    pool = make_pool(config, seed=0)
    greedy = teacher_policy(config, "greedy", seed=0)
    # The student (greedy) playing every move visits the states greedy visits as teacher...
    as_student = collect(
        config, pool, "heuristic", SAMPLES, seed=5, student=greedy, teacher_share=0.0
    )
    greedy_own = collect(config, pool, "greedy", SAMPLES, seed=5)
    assert np.array_equal(as_student.obs, greedy_own.obs)
    assert np.array_equal(as_student.masks, greedy_own.masks)
    # ... and every label there is the heuristic's move, which is not always greedy's.
    heuristic = teacher_policy(config, "heuristic", seed=0)
    assert np.array_equal(as_student.actions, heuristic.act_batch(as_student.obs, as_student.masks))
    assert (as_student.actions != greedy_own.actions).any()


def test_every_round_reports_its_numbers_and_leaves_a_policy_that_plays(tmp_path):
    config = dagger_config()
    settings = DaggerSettings(
        rounds=2,
        samples=SAMPLES,
        teacher_share=0.5,
        decay=0.5,
        jittered=1,
        eval_against=("greedy",),
        eval_matches=4,
    )
    path, history = dagger(config, settings, tmp_path)
    # A fresh student: round 0 is all teacher (cloning), round 1 the student's own play.
    assert [r.teacher_share for r in history] == [1.0, 0.25]
    assert history[0].labelled >= SAMPLES and history[1].labelled >= 2 * SAMPLES
    for r in history:
        assert 0 <= r.own_state_agreement <= 1 and 0 <= r.holdout_agreement <= 1
        assert set(r.match_win) == {"greedy"}
        assert 0 <= r.match_win["greedy"]["low"] <= r.match_win["greedy"]["mean"] <= 1
    # An untrained network agrees with the heuristic on few of its moves; one round of
    # cloning on a few hundred decisions already on more.
    assert history[0].own_state_agreement < history[1].own_state_agreement
    written = json.loads((tmp_path / "dagger.json").read_text())
    assert [r["round"] for r in written] == [0, 1]
    assert (tmp_path / "round_0.safetensors").is_file()
    agent = PolicyAgent.load(path)
    assert agent.features is not None and agent.value_target is not None


def test_the_line_up_draws_by_weight_and_earlier_students_share_theirs():
    line_up = LineUp(["a", "b"], [3.0, 0.0]).with_students(["s1", "s2"], 1.0)
    drawn = line_up(np.random.default_rng(0), 4000)
    counts = {name: drawn.count(name) for name in ("a", "b", "s1", "s2")}
    assert counts["b"] == 0
    assert counts["a"] == pytest.approx(3000, abs=150)
    assert counts["s1"] == pytest.approx(500, abs=100) and counts["s2"] == pytest.approx(
        500, abs=100
    )


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"rounds": 0}, "rounds must be an integer of at least 1, got 0"),
        ({"samples": -1}, "samples must be an integer of at least 1, got -1"),
        ({"teacher_share": 1.5}, "teacher_share must be in [0, 1], got 1.5"),
        ({"teacher_share": -0.1}, "teacher_share must be in [0, 1], got -0.1"),
        ({"decay": 2.0}, "decay must be in [0, 1], got 2.0"),
        ({"eval_matches": 4}, "eval_matches needs opponents to play"),
    ],
)
def test_bad_settings_are_a_value_error(settings, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        DaggerSettings(**settings)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"pretrain": None}, "needs a pretrain section"),
        # A Spinner policy cannot teach (or start) a Mexican Train student.
        (
            {"pretrain": {"imitate": "spinner_2p"}},
            "pretrain.imitate: .*spinner_2p.safetensors: the policy does not fit Mexican Train",
        ),
        ({"init_from": "spinner_2p"}, "init_from: .*the policy does not fit Mexican Train"),
        ({"init_from": "mexican_train_4p", "features": []}, "init_from reads the features"),
    ],
)
def test_a_config_dagger_cannot_run_is_a_value_error_before_any_work(tmp_path, overrides, message):
    config = dagger_config(**overrides)
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=message):
        dagger(config, DaggerSettings(rounds=1, samples=SAMPLES), out)
    assert not out.exists()


def test_a_run_is_never_silently_replaced(tmp_path):
    """A folder that is not empty is refused; --overwrite replaces only an earlier run."""
    config, settings = dagger_config(), DaggerSettings(rounds=1, samples=SAMPLES)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    for overwrite, message in ((False, "pass --overwrite"), (True, "holds no DAgger run")):
        with pytest.raises(ValueError, match=message):
            dagger(config, settings, other, overwrite)
    assert (other / "notes.txt").read_text() == "mine"
    run = tmp_path / "run"
    dagger(config, settings, run)
    with pytest.raises(ValueError, match="exists: pass --overwrite to replace its run"):
        dagger(config, settings, run)
    path, _ = dagger(config, settings, run, overwrite=True)
    assert path.is_file() and (run / "dagger.json").is_file()


def write_config(tmp_path: Path, **overrides) -> Path:
    config = dagger_config(**overrides).as_dict()
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rounds", "0"], "rounds must be an integer of at least 1, got 0"),
        (["--teacher-share", "1.5"], "teacher_share must be in [0, 1], got 1.5"),
        (["--init-from", "spinner_2p"], "the policy does not fit Mexican Train"),
        (["--samples", "x"], "argument --samples: invalid int value: 'x'"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(tmp_path, capsys, args, message):
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        main(["--config", str(write_config(tmp_path)), "--out-dir", str(out), *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("research/dagger.py: error: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()


def test_the_command_prints_no_traceback(tmp_path):
    """The real process: one line on stderr, status 2."""
    path = write_config(tmp_path, pretrain=None)
    done = subprocess.run(
        [sys.executable, "research/dagger.py", "--config", str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "research/dagger.py: error: the config needs a pretrain section: its teacher (imitate) "
        "and fitting settings"
    ]
