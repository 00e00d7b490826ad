"""DAgger: imitation on the student's own states (Ross, Gordon and Bagnell, 2011).

A study that made no shipped agent: it beat neither the teacher nor plain cloning
(docs/results/dagger.md).

Cloning (:mod:`spinner_env.train.imitate`) fits a network to the teacher's decisions in the
teacher's own games; off them, where the network's own mistakes lead, it has seen nothing.
``python research/dagger.py`` runs rounds; each round:

1. rolls out the current student in the learner's seat of the config's batched games. The
   teacher plays a random ``teacher_share`` of its moves, ``teacher_share * decay**r`` in
   round r (a fresh student's round 0 is all teacher: plain cloning). The opponents of
   each seat of each episode are drawn from the line-up (:func:`line_up`): the config's
   ``opponents.baselines`` by their weights, ``jittered`` heuristics and as many experts
   whose weights are the defaults times ``exp(jitter * N(0, 1))``, and the students of
   earlier rounds (frozen; they share ``opponents.snapshot_weight``, the latest
   ``opponents.max_snapshots`` kept);
2. has the teacher label every decision visited (the teacher's move, whoever played it);
3. measures the student's agreement with the teacher on those states, its own, before it
   learns from them (the number DAgger is about);
4. sets a tenth of the round's decisions aside, adds the rest to everything labelled so
   far and fits the student to the whole set, from its current weights
   (:func:`~spinner_env.train.imitate.fit`: the actor on the teacher's moves, the critic
   on the returns that followed); the agreement on all the decisions set aside so far is
   the held-out number;
5. plays ``eval_matches`` duplicate matches against three copies (one per other seat) of
   each of ``eval_against``, the same deals every round.

The teacher and the fitting settings are the config's ``pretrain`` section; the student
starts from ``init_from``, else fresh (the config's ``net_arch``, tanh). The same command
with ``--teacher-share 1 --decay 1`` is plain cloning at the same number of labelled
decisions, in the same line-ups: the comparison that matters. Writes
``<out-dir>/round_<r>.safetensors`` after every round, ``<out-dir>/<name>.safetensors``
(the last round's) and ``<out-dir>/dagger.json`` (every round's numbers so far); a
non-empty ``<out-dir>`` is refused unless ``--overwrite`` and it holds an earlier run.

    python research/dagger.py --config research/configs/mexican_train_4p_dagger.yaml \\
        --rounds 3 --samples 40000 --eval-against expert heuristic --eval-matches 40
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents import make_agent
from spinner_env.agents.expert import ExpertAgent
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.agents.jittered import jittered_player
from spinner_env.agents.policy import SUFFIX as POLICY_SUFFIX
from spinner_env.agents.policy import PolicyAgent, load_policy, save_policy
from spinner_env.train.cli import ArgumentParser, fail_cleanly
from spinner_env.train.config import TrainConfig, check_command, load_config
from spinner_env.train.evaluate import tournament
from spinner_env.train.generations import fresh_policy
from spinner_env.train.imitate import Demonstrations, agreement, collect, fit, teacher_policy
from spinner_env.train.ppo import check_starts_as, limit_threads, value_target

from spinner_env.files import prepare_out_dir, write_text_atomic
from spinner_env.games import game_spec

REPORT = "dagger.json"
"""Every round's numbers, rewritten after each round; it marks a DAgger run's folder."""
HOLDOUT = 0.1
"""The share of each round's decisions set aside to measure on, never fitted."""


@dataclass(frozen=True)
class DaggerSettings:
    """How a DAgger run goes (the command line's options; see the module docstring)."""

    rounds: int = 3
    samples: int = 20_000
    """Labelled decisions (at least) collected a round."""
    teacher_share: float = 0.5
    decay: float = 0.5
    jittered: int = 2
    jitter: float = 0.4
    eval_against: tuple[str, ...] = ()
    eval_matches: int = 0

    def __post_init__(self) -> None:
        for name in ("rounds", "samples"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer of at least 1, got {value!r}")
        for name in ("teacher_share", "decay"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        for name in ("jittered", "eval_matches"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0, got {getattr(self, name)}")
        if self.jitter < 0:
            raise ValueError(f"jitter must be at least 0, got {self.jitter}")
        if self.eval_matches and not self.eval_against:
            raise ValueError("eval_matches needs opponents to play: name them (eval_against)")

    def share_in(self, round_number: int, fresh: bool) -> float:
        """The teacher's share of the moves played in round ``round_number``."""
        if fresh and round_number == 0:
            return 1.0  # an untrained student's own states would teach nothing
        return self.teacher_share * self.decay**round_number


@dataclass(frozen=True)
class DaggerRound:
    """One round's numbers."""

    round: int
    teacher_share: float
    labelled: int
    """Decisions labelled so far, this round's included (fitted and set aside alike)."""
    own_state_agreement: float
    """How often the student's most likely move is the teacher's, on this round's states,
    before it fits them."""
    holdout_agreement: float
    """After the fit, on every round's decisions set aside so far."""
    match_win: dict[str, dict[str, float]]
    """Per opponent of ``eval_against``: the student's match win rate against three of it
    (mean, low, high of the 95% interval; empty without ``eval_matches``)."""
    seconds: float


class LineUp:
    """An opponent sampler as ``LearnerBatch`` takes one: each seat of each episode draws
    a member with probability proportional to its weight."""

    def __init__(self, members: Sequence[Any], weights: Sequence[float]) -> None:
        if len(members) != len(weights) or sum(weights) <= 0:
            raise ValueError("the line-up needs one weight per member, and a positive sum")
        self.members = list(members)
        self.weights = list(weights)

    def with_students(self, students: Sequence[Any], share: float) -> LineUp:
        """This line-up and ``students``, who split ``share`` of weight equally."""
        each = share / len(students) if students else 0.0
        return LineUp(self.members + list(students), self.weights + [each] * len(students))

    def __call__(self, rng: np.random.Generator, count: int) -> list[Any]:
        p = np.asarray(self.weights) / sum(self.weights)
        return [self.members[i] for i in rng.choice(len(self.members), size=count, p=p)]


def line_up(config: TrainConfig, jittered: int, jitter: float) -> LineUp:
    """The config's baselines by their weights, and ``jittered`` heuristics and as many
    experts with jittered weights, weight 1 each."""
    encoding = game_spec(config.game).encoding
    baselines = config.opponents.baselines
    members: list[Any] = [make_agent(s, seed=config.seed, encoding=encoding) for s in baselines]
    rng = np.random.default_rng([config.seed, 2])
    for _ in range(jittered):
        members += [jittered_player(cls, rng, jitter) for cls in (HeuristicAgent, ExpertAgent)]
    return LineUp(members, list(baselines.values()) + [1.0] * (2 * jittered))


def starting_policy(config: TrainConfig) -> MaskableActorCriticPolicy:
    """``init_from``'s network (it must read the config's ``features`` and have its
    ``prior``), or a fresh one of the config's ``net_arch`` (tanh; with the prior, a policy
    that starts as the prior's player)."""
    encoding = game_spec(config.game).encoding
    if config.init_from is not None:
        try:
            policy, header = load_policy(config.init_file(), encoding)
        except ValueError as error:
            raise ValueError(f"init_from: {error}") from None
        check_starts_as(header, "init_from", config)
        return policy
    return fresh_policy(config)


def split(
    demos: Demonstrations, share: float, rng: np.random.Generator
) -> tuple[Demonstrations, Demonstrations]:
    """``demos`` in two at random: the rest, and ``share`` of them."""
    order = rng.permutation(len(demos))
    cut = int(len(demos) * share)
    return demos.rows(np.sort(order[cut:])), demos.rows(np.sort(order[:cut]))


def match_strength(
    policy: MaskableActorCriticPolicy, config: TrainConfig, against: Sequence[str], matches: int
) -> dict[str, dict[str, float]]:
    """The policy's match win rate against three (one per other seat) of each of
    ``against``, on the same duplicate deals whatever the round."""
    student = PolicyAgent.frozen_copy(policy, "student", config.observation_features())
    rates = {}
    for spec in against:
        seats = [student] + [spec] * (config.num_players - 1)
        report = tournament(
            seats, config.num_players, matches, config.seed + 7, config.game, config.env, False
        )
        rates[spec] = report.agents["student"]["match_win"].as_dict()
    return rates


def dagger(
    config: TrainConfig, settings: DaggerSettings, out: Path, overwrite: bool = False
) -> tuple[Path, list[DaggerRound]]:
    """Run DAgger as the module docstring says; the last policy's file and every round. A
    non-empty ``out`` is refused unless ``overwrite`` and it holds an earlier DAgger run."""
    if config.pretrain is None:
        raise ValueError(
            "the config needs a pretrain section: its teacher (imitate) and fitting settings"
        )
    pretrain = config.pretrain
    teacher_policy(config, pretrain.imitate, config.seed)  # a wrong teacher fails here, not later
    prepare_out_dir(out, overwrite, REPORT, "DAgger run")
    limit_threads(config.torch_threads)
    encoding = game_spec(config.game).encoding
    features = config.observation_features()
    fresh = config.init_from is None
    policy = starting_policy(config)
    opponents = line_up(config, settings.jittered, settings.jitter)
    students: list[PolicyAgent] = []
    fitted: list[Demonstrations] = []
    held_out: list[Demonstrations] = []
    history: list[DaggerRound] = []
    out.mkdir(parents=True, exist_ok=True)
    for number in range(settings.rounds):
        start = time.time()
        seed = config.seed + 1000 * number
        share = settings.share_in(number, fresh)
        student = PolicyAgent.frozen_copy(policy, f"student_{number}", features)
        pool = opponents.with_students(
            students[-config.opponents.max_snapshots :], config.opponents.snapshot_weight
        )
        demos = collect(config, pool, pretrain.imitate, settings.samples, seed, student, share)
        if features is not None:
            demos = dataclasses.replace(demos, obs=features(demos.obs))
        own = agreement(policy, demos, np.arange(len(demos)))
        kept, aside = split(demos, HOLDOUT, np.random.default_rng([seed, 3]))
        fitted.append(kept)
        held_out.append(aside)
        fit(
            policy,
            Demonstrations.concatenate(fitted),
            pretrain.epochs,
            pretrain.batch_size,
            pretrain.learning_rate,
            config.ppo.vf_coef,
            holdout=0.0,
            seed=seed,
        )
        aside_so_far = Demonstrations.concatenate(held_out)
        students.append(student)
        history.append(
            DaggerRound(
                round=number,
                teacher_share=share,
                labelled=sum(map(len, fitted)) + len(aside_so_far),
                own_state_agreement=own,
                holdout_agreement=agreement(policy, aside_so_far, np.arange(len(aside_so_far))),
                match_win=match_strength(
                    policy, config, settings.eval_against, settings.eval_matches
                )
                if settings.eval_matches
                else {},
                seconds=time.time() - start,
            )
        )
        print(describe(history[-1]), flush=True)
        save_policy(
            policy,
            out / f"round_{number}{POLICY_SUFFIX}",
            encoding,
            config.observation_features(),
            value_target(config),
        )
        write_text_atomic(
            out / REPORT, json.dumps([dataclasses.asdict(r) for r in history], indent=1)
        )
    path = save_policy(
        policy,
        out / f"{config.name}{POLICY_SUFFIX}",
        encoding,
        config.observation_features(),
        value_target(config),
    )
    return path, history


def describe(r: DaggerRound) -> str:
    """A round's numbers on one line."""
    strength = "".join(
        f", against three {spec} {m['mean']:.1%} [{m['low']:.1%}, {m['high']:.1%}]"
        for spec, m in r.match_win.items()
    )
    return (
        f"round {r.round}: teacher share {r.teacher_share:.2f}, {r.labelled} labelled, "
        f"agreement on own states {r.own_state_agreement:.1%}, held out "
        f"{r.holdout_agreement:.1%}{strength} ({r.seconds:.0f} s)"
    )


def main(argv: Sequence[str] | None = None) -> tuple[Path, list[DaggerRound]]:
    defaults = DaggerSettings()
    parser = ArgumentParser("research/dagger.py", __doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, required=True, help="a YAML file")
    parser.add_argument("--init-from", default=None, help="overrides the config's init_from")
    parser.add_argument(
        "--rounds", type=int, default=defaults.rounds, help="rounds of labelling and fitting"
    )
    parser.add_argument(
        "--samples", type=int, default=defaults.samples, help="labelled decisions a round"
    )
    parser.add_argument(
        "--teacher-share",
        type=float,
        default=defaults.teacher_share,
        help="the share of the moves the teacher plays in round 0",
    )
    parser.add_argument(
        "--decay", type=float, default=defaults.decay, help="the share's factor a round"
    )
    parser.add_argument(
        "--jittered",
        type=int,
        default=defaults.jittered,
        help="jittered heuristics and as many jittered experts in the line-up",
    )
    parser.add_argument(
        "--jitter",
        type=float,
        default=defaults.jitter,
        help="the jittered players' weights: the defaults times exp(JITTER * N(0, 1))",
    )
    parser.add_argument(
        "--eval-against",
        nargs="*",
        default=[],
        metavar="SPEC",
        help="after each round, play three of each of these",
    )
    parser.add_argument(
        "--eval-matches", type=int, default=0, help="duplicate matches a round per opponent"
    )
    parser.add_argument("--out-dir", type=Path, default=None, help="default: the config's out_dir")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the earlier run in the out dir"
    )
    args = parser.parse_args(argv)
    with fail_cleanly(parser, args.debug):
        settings = DaggerSettings(
            args.rounds,
            args.samples,
            args.teacher_share,
            args.decay,
            args.jittered,
            args.jitter,
            tuple(args.eval_against),
            args.eval_matches,
        )
        config = load_config(args.config)
        check_command(config, "research/dagger.py", args.config)
        if args.init_from is not None:
            config = config.replace(init_from=args.init_from)
        out = Path(args.out_dir or config.out_dir)
        path, history = dagger(config, settings, out, args.overwrite)
        print(f"wrote {path} and {path.parent / REPORT}")
        return path, history


if __name__ == "__main__":
    main()
