"""League training in the style of AlphaStar's, sized for a few CPU cores:
``spinner-league --config configs/league_2p.yaml``.

The league holds the **main agent** (the policy being trained and kept), **main
exploiters** (fresh learners trained against the main agent's latest copy only, to find
its blind spots), and frozen members: the main agent's **snapshots**, the exploiters'
snapshots, and opponent **styles** (the config's ``opponents.baselines``, plus
heuristics with randomized weights), so the main agent meets strategies outside its own.

Training runs in generations (the config's ``league`` section, :class:`LeagueConfig`):

1. the main agent trains ``total_timesteps / generations`` steps; every opponent seat of
   every episode is its own latest copy (a ``self_play`` share) or a member drawn by
   prioritized fictitious self-play (PFSP): member i with weight ``prior_i * f(p_i)``,
   ``f(p) = (1 - p) ** pfsp_exponent``, where ``p_i`` is how often the main agent beats
   it, so the members it still loses to are met most;
2. its frozen copy joins the league as a snapshot (the oldest dropped past
   ``opponents.max_snapshots``) and becomes the exploiters' only opponent;
3. each exploiter trains ``exploiter_steps`` against it, and a frozen copy joins the
   league; an exploiter that beats the main agent in ``exploiter_reset`` of its episodes
   has done its job and starts again (from fresh weights, or from the main agent's with
   ``exploiter_start: main``);
4. the main agent's win rate against every member is measured again
   (``win_rate_episodes`` episodes each, on the batched engine), which sets the next
   generation's PFSP weights.

The win rates and the final matrix are match-shaped work: they run on the executor of
:mod:`spinner_env.train.executor` (``--workers N`` processes or ``--ray`` tasks, one pair
of agents an item, the agents sent pickled), with the same numbers on every backend,
since each pair's games depend only on its seed.

An episode counts as a win for a player whose summed reward is positive (half when zero):
with ``reward: hand_score``, scoring better than the others' mean in the hand.

Writes under ``out_dir``: ``config.yaml``, TensorBoard logs (``tb/``: the main agent's
training, ``league/win_rate/<member>`` and ``league/pfsp/<member>`` per generation), the
main agent's policy (``<name>.safetensors``) and model (``final.zip``), ``league.json``
(every generation's win rates, the exploiters' against the main agent, their resets) and
``matrix.png`` (every member against every other at the end, ``matrix_episodes`` episodes
a pair).

Styles are any agent ``make_agent`` builds. The search players (``pimc:...``,
``ismcts:...``) read the engine: in the batched games they play each game's reference
state, read back from its record (``spinner_env.batched.vector.AgentPolicy``), one game
at a time at the cost of their search, while every other seat plays compiled or as one
numpy pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from sb3_contrib import MaskablePPO
from spinner_env.agents import make_agent
from spinner_env.agents.heuristic import HeuristicAgent
from spinner_env.agents.jittered import jittered_player
from spinner_env.agents.policy import SUFFIX as POLICY_SUFFIX
from spinner_env.agents.policy import save_policy
from spinner_env.train.cli import fail_cleanly
from spinner_env.train.config import LeagueConfig, TrainConfig
from spinner_env.train.evaluate import save_figure
from spinner_env.train.executor import SERIAL, Executor, add_arguments
from spinner_env.train.ppo import (
    EvaluationCallback,
    config_of,
    limit_threads,
    make_model,
    make_training_env,
    prepare_run_dir,
    save_model,
    snapshot,
    start_from_init,
    training_parser,
    value_target,
)
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.utils import set_random_seed
from tqdm import tqdm

from spinner_env.batched.vector import LearnerBatch, as_batched
from spinner_env.files import write_text_atomic
from spinner_env.games import game_spec

Kind = Literal["style", "snapshot", "exploiter"]


@dataclass
class Member:
    """A frozen league member: anything ``spinner_env.batched.vector.as_batched`` plays."""

    name: str
    agent: Any
    kind: Kind
    prior: float = 1.0


def pfsp_weights(win_rates: np.ndarray, exponent: float) -> np.ndarray:
    """PFSP's ``f(p) = (1 - p) ** exponent`` of the learner's win rates p, normalised to
    sum to 1; uniform when every f(p) is 0 (the learner beats everyone always)."""
    f = (1.0 - np.clip(np.asarray(win_rates, float), 0.0, 1.0)) ** exponent
    total = f.sum()
    return f / total if total > 0 else np.full(len(f), 1.0 / len(f))


@dataclass
class League:
    """The members, their PFSP weights, and the opponent sampler of the main agent
    (``league(rng, count)``, as ``spinner_env.batched.vector.LearnerBatch`` calls it).

    ``styles`` are agent specs with prior weights; ``heuristic_variants`` jittered
    heuristics join them (prior 1 each), drawn from ``seed``. Snapshots and exploiters
    have prior 1 and are capped at ``max_snapshots`` each (the oldest dropped).
    """

    styles: dict[str, float]
    config: LeagueConfig
    max_snapshots: int = 5
    seed: int = 0
    members: list[Member] = field(default_factory=list)
    win_rates: dict[str, float] = field(default_factory=dict)
    """The main agent's win rate against each member by name (0.5 until measured)."""
    latest: Any = None
    """The main agent's latest frozen copy: the self-play opponent."""

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.seed)
        for spec, prior in self.styles.items():
            try:
                agent = make_agent(spec, seed=self.seed)
            except ValueError as error:
                raise ValueError(f"opponents.baselines: {error}") from error
            self.members.append(Member(spec, agent, "style", prior))
        for i in range(self.config.heuristic_variants):
            agent = jittered_player(HeuristicAgent, rng, self.config.weight_jitter)
            self.members.append(Member(f"heuristic~{i + 1}", agent, "style"))

    def add(self, name: str, agent: Any, kind: Kind) -> None:
        """A frozen snapshot or exploiter joins; past ``max_snapshots`` of its kind the
        oldest leaves."""
        if any(m.name == name for m in self.members):
            raise ValueError(f"the league already has a member named {name!r}")
        self.members.append(Member(name, agent, kind))
        same = [m for m in self.members if m.kind == kind]
        for old in same[: -self.max_snapshots]:
            self.members.remove(old)
            self.win_rates.pop(old.name, None)

    def weights(self) -> np.ndarray:
        """Each member's sampling probability: prior times PFSP of its win rate."""
        rates = np.array([self.win_rates.get(m.name, 0.5) for m in self.members])
        priors = np.array([m.prior for m in self.members])
        w = priors * pfsp_weights(rates, self.config.pfsp_exponent)
        if w.sum() <= 0:
            w = priors
        return w / w.sum()

    def __call__(self, rng: np.random.Generator, count: int) -> list[Any]:
        p = self.weights()
        chosen = []
        for _ in range(count):
            if self.latest is not None and rng.random() < self.config.self_play:
                chosen.append(self.latest)
            else:
                chosen.append(self.members[rng.choice(len(self.members), p=p)].agent)
        return chosen


def win_rate(player: Any, opponent: Any, config: TrainConfig, episodes: int, seed: int) -> float:
    """How often ``player`` beats ``opponent`` (at every other seat): the first episode
    of ``episodes`` batched games of the config's game from ``seed``, won when the
    player's summed reward is positive, half when it is zero."""
    env = game_spec(config.game).raw_env(num_players=config.num_players, **config.env)
    batch = LearnerBatch(
        episodes,
        env.rules,
        opponents=opponent,
        reward=env.reward_scheme,
        episode=env.episode,
        skip_forced=config.skip_forced,
    )
    player = as_batched(player, env.rules)
    batch.reset(seed)
    if callable(getattr(player, "seed", None)):  # a sampling policy: its draws replay too
        player.seed(seed)
    totals = np.zeros(episodes)
    finished = np.zeros(episodes, bool)
    result = np.zeros(episodes)
    while not finished.all():
        batch.step(batch.actions_of(player))
        totals += np.where(finished, 0.0, batch.rewards)
        ended = batch.dones & ~finished
        result[ended] = np.sign(totals[ended]) * 0.5 + 0.5
        finished |= ended
    return float(result.mean())


Pairing = tuple[int, int, int]
"""``(i, j, seed)``: agent i's win rate against agent j at every other seat, from ``seed``."""


@dataclass(frozen=True)
class WinRateStart:
    """Builds what plays one :data:`Pairing` of ``agents``, in this process, a worker
    process or a Ray task (:mod:`spinner_env.train.executor`; the agents go pickled)."""

    agents: tuple[Any, ...]
    config: TrainConfig
    episodes: int

    def __call__(self) -> Callable[[Pairing], float]:
        def play(pairing: Pairing) -> float:
            i, j, seed = pairing
            return win_rate(self.agents[i], self.agents[j], self.config, self.episodes, seed)

        return play


def win_rates(
    agents: Sequence[Any],
    pairings: Sequence[Pairing],
    config: TrainConfig,
    episodes: int,
    executor: Executor = SERIAL,
    progress_bar: bool = False,
) -> list[float]:
    """:func:`win_rate` of every pairing, in order, on ``executor``'s backend (the same
    numbers on each)."""
    start = WinRateStart(tuple(agents), config, episodes)
    return list(executor.map(start, pairings, progress=progress_bar, unit="pair"))


@dataclass
class Exploiter:
    """A main exploiter: its own learner on its own games, against the main agent."""

    name: str
    model: MaskablePPO
    resets: int = 0
    steps: int = 0


class LeagueRun:
    """One league training run of a config (see the module docstring)."""

    def __init__(
        self,
        config: TrainConfig,
        out: Path,
        progress_bar: bool = True,
        executor: Executor = SERIAL,
    ) -> None:
        if config.league is None:
            raise ValueError("the config has no league section: train it with spinner-train")
        self.config = config
        self.settings = config.league
        self.out = out
        self.progress_bar = progress_bar
        self.executor = executor
        self.league = League(
            dict(config.opponents.baselines),
            self.settings,
            max_snapshots=config.opponents.max_snapshots,
            seed=config.seed,
        )
        self.history: list[dict[str, Any]] = []
        self.features = config.observation_features()
        limit_threads(config.torch_threads)
        set_random_seed(config.seed)
        main_env = make_training_env(config, self.league)
        main_env.seed(config.seed)
        self.main = make_model(config, main_env, out / "tb", config.seed)
        # One TensorBoard run for the main agent across generations, open before the
        # first win rates are logged.
        start_from_init(self.main, config)
        self.main.set_logger(configure_logger(str(out / "tb" / config.name), ["tensorboard"]))
        self.exploiters = [
            Exploiter(f"exploiter{i + 1}", self._fresh_exploiter(i, 0))
            for i in range(self.settings.exploiters)
        ]

    def _fresh_exploiter(self, index: int, generation: int) -> MaskablePPO:
        """A new exploiter learner whose only opponent is the main agent's latest copy,
        from fresh weights or the main agent's (``league.exploiter_start``)."""
        seed = self.config.seed + 1000 * (index + 1) + generation
        env = make_training_env(self.config, lambda rng, count: [self.league.latest] * count)
        env.seed(seed)
        model = make_model(self.config, env, self.out / "tb", seed)
        if self.settings.exploiter_start == "main":
            model.policy.load_state_dict(self.main.policy.state_dict())
        return model

    def run(self) -> Path:
        config, settings = self.config, self.settings
        per_generation = max(1, config.total_timesteps // settings.generations)
        evaluation = None
        if config.eval.every:
            evaluation = EvaluationCallback(
                config, config.eval.against, config.eval.every, config.eval.matches
            )
            evaluation.verbose = 1
        self._measure(0)
        for generation in tqdm(
            range(1, settings.generations + 1), unit="generation", disable=not self.progress_bar
        ):
            self.main.learn(
                per_generation,
                callback=evaluation,
                progress_bar=self.progress_bar,
                reset_num_timesteps=generation == 1,
            )
            steps = self.main.num_timesteps
            copy = snapshot(self.main.policy, steps, self.features)
            self.league.latest = copy
            self.league.add(copy.name, copy, "snapshot")
            exploiters = [self._train_exploiter(i, generation) for i in range(len(self.exploiters))]
            self._measure(generation, exploiters)
        return self._finish()

    def _train_exploiter(self, index: int, generation: int) -> tuple[float, bool]:
        """Train exploiter ``index`` against the main agent's latest copy, add its frozen
        copy to the league, and reset it if it beats the main agent often enough; return
        its win rate against the main agent and whether it was reset."""
        exploiter = self.exploiters[index]
        exploiter.model.learn(
            self.settings.exploiter_steps,
            progress_bar=self.progress_bar,
            tb_log_name=f"{exploiter.name}_{exploiter.resets}",
            reset_num_timesteps=False,
        )
        exploiter.steps += self.settings.exploiter_steps
        copy = snapshot(exploiter.model.policy, exploiter.steps, self.features)
        copy.name = f"{exploiter.name}_{generation}"
        self.league.add(copy.name, copy, "exploiter")
        rate = win_rate(
            copy,
            self.league.latest,
            self.config,
            self.settings.win_rate_episodes,
            self.config.seed + generation,
        )
        reset = rate >= self.settings.exploiter_reset
        if reset:
            exploiter.model = self._fresh_exploiter(index, generation)
            exploiter.resets += 1
            exploiter.steps = 0
        return rate, reset

    def _measure(self, generation: int, exploiters: Sequence[tuple[float, bool]] = ()) -> None:
        """The main agent's win rate against every member (the PFSP weights), logged."""
        main = snapshot(self.main.policy, self.main.num_timesteps, self.features)
        main.deterministic = True
        league = self.league
        seed = self.config.seed + 7919 * (generation + 1)
        rates = win_rates(
            [main, *(m.agent for m in league.members)],
            [(0, k, seed) for k in range(1, len(league.members) + 1)],
            self.config,
            self.settings.win_rate_episodes,
            self.executor,
        )
        for member, rate in zip(league.members, rates, strict=True):
            league.win_rates[member.name] = rate
        weights = dict(zip((m.name for m in league.members), league.weights(), strict=True))
        logger = self.main.logger
        for name, rate in league.win_rates.items():
            logger.record(f"league/win_rate/{name}", rate)
            logger.record(f"league/pfsp/{name}", weights[name])
        logger.dump(self.main.num_timesteps)
        self.history.append(
            {
                "generation": generation,
                "steps": self.main.num_timesteps,
                "win_rates": dict(league.win_rates),
                "pfsp": weights,
                "exploiter_win_rates": [rate for rate, _ in exploiters],
                "exploiter_resets": [reset for _, reset in exploiters],
            }
        )
        if self.progress_bar:
            worst = min(league.win_rates, key=league.win_rates.__getitem__)
            tqdm.write(
                f"[league, generation {generation}] main beats its members in "
                f"{np.mean(list(league.win_rates.values())):.0%} of episodes; "
                f"hardest: {worst} ({league.win_rates[worst]:.0%})"
            )

    def _finish(self) -> Path:
        out, config = self.out, self.config
        save_model(self.main, out / "final.zip")
        policy_path = out / f"{config.name}{POLICY_SUFFIX}"
        encoding = game_spec(config.game).encoding
        save_policy(self.main.policy, policy_path, encoding, self.features, value_target(config))
        write_text_atomic(out / "league.json", json.dumps(self.history, indent=1))
        main = snapshot(self.main.policy, self.main.num_timesteps, self.features)
        main.deterministic = True
        main.name = "main"
        players = [("main", main)] + [(m.name, m.agent) for m in self.league.members]
        matrix = win_rate_matrix(
            [agent for _, agent in players],
            config,
            self.settings.matrix_episodes or self.settings.win_rate_episodes,
            config.seed,
            self.progress_bar,
            self.executor,
        )
        plot_matrix(matrix, [name for name, _ in players], out / "matrix.png")
        print(f"league trained {self.main.num_timesteps} main steps; saved {policy_path}")
        return policy_path


def win_rate_matrix(
    agents: Sequence[Any],
    config: TrainConfig,
    episodes: int,
    seed: int,
    progress_bar: bool = False,
    executor: Executor = SERIAL,
) -> np.ndarray:
    """``matrix[i, j]``: how often agent i beats agent j seated at every other seat (the
    pairs played on ``executor``)."""
    n = len(agents)
    matrix = np.full((n, n), np.nan)
    pairings = [(i, j, seed + i * n + j) for i in range(n) for j in range(n) if i != j]
    rates = win_rates(agents, pairings, config, episodes, executor, progress_bar)
    for (i, j, _), rate in zip(pairings, rates, strict=True):
        matrix[i, j] = rate
    return matrix


def plot_matrix(matrix: np.ndarray, names: Sequence[str], path: Path) -> None:
    """The win-rate matrix as a heat map with its numbers (written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    size = 1.0 + 0.55 * len(names)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    image = ax.imshow(matrix, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for (i, j), value in np.ndenumerate(matrix):
        if not np.isnan(value):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=6)
    ax.set_xlabel("opponent (every other seat)")
    ax.set_ylabel("player")
    ax.set_title("league: share of episodes the row wins")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    save_figure(fig, path)


def train_league(
    config: TrainConfig | dict[str, Any],
    out_dir: Path | None = None,
    progress_bar: bool = True,
    *,
    overwrite: bool = False,
    executor: Executor = SERIAL,
) -> Path:
    """League-train as the config says, its win rates and final matrix on ``executor``;
    return the main agent's policy file."""
    if not isinstance(config, TrainConfig):
        config = TrainConfig.from_dict(config)
    out = Path(out_dir or config.out_dir)
    config = config.replace(out_dir=str(out))
    if config.league is None:
        raise ValueError("the config has no league section: train it with spinner-train")
    prepare_run_dir(config, out, resume=False, overwrite=overwrite)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "config.yaml", yaml.safe_dump(config.as_dict(), sort_keys=False))
    return LeagueRun(config, out, progress_bar, executor).run()


def main(argv: Sequence[str] | None = None) -> Path:
    parser = training_parser("spinner-league", "league training (main agent, exploiters, PFSP)")
    parser.add_argument(
        "--overwrite", action="store_true", help="delete the run in out_dir and start again"
    )
    add_arguments(parser, "the win rates and the final matrix")
    args = parser.parse_args(argv)
    with fail_cleanly(parser, args.debug):
        return train_league(
            config_of(args, "spinner-league"),
            progress_bar=not args.no_progress,
            overwrite=args.overwrite,
            executor=Executor.from_args(args),
        )


if __name__ == "__main__":
    main()
