"""Expert iteration with search targets (Anthony, Tian and Barber, 2017; AlphaZero's targets).

A study that made no shipped agent: it did not improve the network
(docs/results/expert_iteration.md).

Cloning and DAgger (``research/dagger.py``) teach the network its teacher's moves,
so it learns no more than the teacher knows. Here the teacher is a search that plays with
the network itself (its rollouts, as the operator's spec says), and so improves with it.
``python research/expert_iteration.py`` runs a config's ``expert_iteration`` section
(:class:`~spinner_env.train.config.ExpertIterationConfig`); each generation g, from 1:

1. **labels**: ``deals`` duplicate deals, each played once per seating
   (:func:`~spinner_env.train.evaluate.play_deal`), the network of generation g-1 in one
   seat and each other seat drawn from the line-up (dagger's
   ``line_up``, and the earlier generations sharing
   ``opponents.snapshot_weight``, the latest ``opponents.max_snapshots`` of them). The
   network plays its own moves; at a random ``label_share`` of its decisions between two
   or more moves (all, by default) the improvement operator (``operator``, ``{policy}``
   replaced by generation g-1's file) is asked what it sees (``act_explained``), and the
   values of the legal moves (a search view's mean scores) give the decision's soft
   target: their softmax at ``temperature`` (a move the search never tried gets 0); with
   ``prior``, the network's own probabilities times ``exp(value / temperature)``,
   normalized (a step of policy improvement that stays near the network where the
   values do not tell the moves apart). The decision's value target is the return the
   seat then got, as the value head predicts it (:func:`decision_returns`). The deals are
   the tasks of :mod:`spinner_env.train.executor` (``--workers N``, ``--ray``); every deal
   reseeds all it uses, so every backend labels the same decisions (:class:`Labeller`);
2. **measures** how often the network's most likely move is the one the operator would play
   (its ``act_explained`` move) on these decisions, before it learns from them;
3. **fits** the network, from its weights, to every generation's decisions so far, a tenth
   of each set aside (:func:`~spinner_env.train.imitate.fit` with soft targets: the
   cross-entropy to the targets, the value head's squared error), and measures the
   agreement again on this generation's decisions set aside;
4. **evaluates** generation g on ``eval_matches`` duplicate matches
   (:func:`~spinner_env.train.evaluate.tournament`, through the same executor) against each
   of ``eval_against`` and against generation g-1, on the same deals every generation
   (generation 0, the start, plays ``eval_against`` first).

Writes into ``--out-dir`` (default the config's ``out_dir``; a directory that is not empty is
refused unless ``--overwrite``, and then only if it holds an earlier run): ``config.yaml``,
``generation_<g>.safetensors``, ``<name>.safetensors`` (the last generation's),
``expert_iteration.json`` (the command, and every generation's numbers so far) and
``expert_iteration.png`` (their curve, :func:`plot`).

    python research/expert_iteration.py \\
        --config research/configs/spinner_2p_expert_iteration.yaml --workers 2
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from dagger import HOLDOUT, LineUp, line_up, split, starting_policy
from spinner_env.agents import make_agent
from spinner_env.agents.policy import SUFFIX as POLICY_SUFFIX
from spinner_env.agents.policy import PolicyAgent, ValueTarget, load_policy, save_policy
from spinner_env.train.config import ExpertIterationConfig, TrainConfig
from spinner_env.train.evaluate import play_deal, save_figure
from spinner_env.train.executor import SERIAL, Executor
from spinner_env.train.generations import describe_strength, generations_main, strength
from spinner_env.train.imitate import Demonstrations, agreement, discounted_returns, fit
from spinner_env.train.ppo import limit_threads, value_target
from stable_baselines3.common.utils import set_random_seed

from spinner_env.core.agent import Agent, AgentView, EngineView, choose_move_explained
from spinner_env.core.encoding import hand_score_difference, zero_sum_outcome
from spinner_env.core.match import MatchState
from spinner_env.files import prepare_out_dir, write_text_atomic
from spinner_env.games import GameSpec, game_spec

REPORT = "expert_iteration.json"
CURVE = "expert_iteration.png"


def operator_spec(template: str, policy: Path) -> str:
    """The operator's agent spec: ``template`` with ``{policy}`` replaced by ``policy``."""
    if "," in str(policy):
        raise ValueError(f"the policy file {str(policy)!r} has a comma, which ends a spec's option")
    spec = template.replace("{policy}", str(policy))
    if "{" in spec or "}" in spec:
        raise ValueError(
            f"expert_iteration.operator {template!r}: only {{policy}} may stand in braces"
        )
    return spec


def soft_target(
    view: AgentView | None,
    legal: np.ndarray,
    temperature: float,
    num_actions: int,
    log_prior: np.ndarray | None = None,
) -> np.ndarray:
    """A probability per action: the softmax at ``temperature`` of the values ``view``
    gives the ``legal`` moves (0 for moves it gives none, and for illegal actions); with
    ``log_prior`` (a log-probability per legal move: the network's), the prior times
    ``exp(value / temperature)``, normalized. ValueError for a view that values no move."""
    values = {
        m.action: m.value for m in (view.moves if view is not None else ()) if m.value is not None
    }
    if not values:
        shown = "nothing" if view is None else f"a {view.kind} view"
        raise ValueError(f"the operator gives no move a value (it shows {shown}): use a search")
    valued = [i for i, a in enumerate(legal) if a in values]
    actions = legal[valued]
    scaled = np.array([values[a] for a in actions]) / temperature
    if log_prior is not None:
        scaled = scaled + log_prior[valued]
    weights = np.exp(scaled - scaled.max())
    target = np.zeros(num_actions, np.float32)
    target[actions] = weights / weights.sum()
    return target


def decision_returns(
    hands: Sequence[int],
    seat: int,
    hand_points: Sequence[Sequence[int]],
    totals: Sequence[int],
    target: ValueTarget,
) -> np.ndarray:
    """The return after each of a seat's decisions in one match (made in the hands
    ``hands``, in order), as ``target`` defines it: the rewards the environment pays at
    hand ends (its ``reward``: ``hand_score``, each hand's point difference; ``match``,
    the zero-sum outcome of the hand or of the match, by ``episode``) within the
    decision's episode, discounted by ``gamma`` per later decision of the seat (the
    learner's steps, forced moves skipped)."""
    if target.reward == "hand_score":
        per_hand = [hand_score_difference(points)[seat] for points in hand_points]
    elif target.episode == "hand":
        per_hand = [zero_sum_outcome(points)[seat] for points in hand_points]
    else:
        per_hand = [0.0] * len(hand_points)
    rewards = np.zeros(len(hands), np.float32)
    dones = np.zeros(len(hands), bool)
    for i, hand in enumerate(hands):
        following = hands[i + 1] if i + 1 < len(hands) else None
        if target.episode == "hand":
            dones[i] = following != hand
            rewards[i] = per_hand[hand] if dones[i] else 0.0
        else:  # the hands that ended before the seat's next decision
            rewards[i] = sum(per_hand[hand : len(hand_points) if following is None else following])
            dones[i] = following is None
            if dones[i] and target.reward == "match":
                rewards[i] += zero_sum_outcome(totals)[seat]
    return discounted_returns(rewards[:, None], dones[:, None], target.gamma)[:, 0]


class Apprentice(Agent):
    """The network's seat while labelling: it plays the network's move, and keeps the
    operator's soft target (:func:`soft_target`) of a random ``share`` of the decisions
    it was asked."""

    needs_view = True

    def __init__(
        self,
        student: PolicyAgent,
        operator: Agent,
        temperature: float,
        share: float = 1.0,
        prior: bool = False,
    ) -> None:
        super().__init__()
        self.student = student
        self.operator = operator
        self.temperature = temperature
        self.share = share
        """The share of the decisions labelled (drawn from the agent's seed)."""
        self.prior = prior
        """Whether the targets weigh the network's own probabilities (:func:`soft_target`)."""
        self.name = student.name
        self.num_actions = student.num_actions
        self._pending: list[tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray, int] | None]]
        self._pending = []
        """This match's decisions so far: the hand of each, and the labelled ones'
        observation, legal mask, soft target and the operator's move."""

    def seed(self, seed: int | Sequence[int] | None) -> None:
        super().seed(seed)
        self.student.seed(seed)
        self.operator.seed(seed)

    def choose(
        self, observation: np.ndarray | None, legal: np.ndarray, view: EngineView | None
    ) -> int:
        view = self._view(view)
        assert observation is not None and self.num_actions is not None
        label = None
        if self.rng.random() < self.share:
            mask = np.zeros(self.num_actions, np.int8)
            mask[legal] = 1
            chosen, seen = self.operator.act_explained(observation, mask, view)
            log_prior = None
            if self.prior:
                shifted = self.student.logits(observation)[legal]
                shifted = shifted - shifted.max()
                log_prior = shifted - np.log(np.exp(shifted).sum())  # the legal moves' softmax
            target = soft_target(seen, legal, self.temperature, self.num_actions, log_prior)
            label = (observation, mask != 0, target, chosen)
        self._pending.append((len(view.game.results), label))
        return self.student.choose(observation, legal, view)

    def labels(self, state: MatchState, seat: int, value: ValueTarget) -> Demonstrations:
        """The finished match's labelled decisions (``state``: its end; ``seat``: this
        agent's), forgotten here: their soft targets, the operator's moves as actions, and
        returns that count every decision of the seat."""
        pending, self._pending = self._pending, []
        hands = [hand for hand, _ in pending]
        points = [r.points for r in state.results]
        returns = decision_returns(hands, seat, points, state.totals, value)
        kept = [i for i, (_, label) in enumerate(pending) if label is not None]
        columns = [[pending[i][1][k] for i in kept] for k in range(4)]  # type: ignore[index]
        obs, masks, targets, chosen = (
            np.array(column, dtype).reshape(len(kept), -1)
            for column, dtype in zip(columns, (np.float32, bool, np.float32, np.int64), strict=True)
        )
        return Demonstrations(obs, masks, chosen[:, 0], returns[kept], targets)


@dataclass
class Labeller:
    """Labels one deal (an item of the executor): the deal played once per seating of the
    apprentice and opponents drawn for it (from the seed and the deal), every match's
    decisions labelled."""

    game: GameSpec
    num_players: int
    rules: dict[str, Any]
    apprentice: Apprentice
    opponents: LineUp
    value: ValueTarget
    seed: int

    def __call__(self, deal: int) -> Demonstrations:
        drawn = self.opponents(np.random.default_rng([self.seed, deal]), self.num_players - 1)
        lineup = [self.apprentice, *drawn]
        matches: list[Demonstrations] = []

        def ended(state: Any, seats: Sequence[Agent], seat: int, move: Any) -> None:
            if state.match_over:
                mine = next(s for s, agent in enumerate(seats) if agent is self.apprentice)
                matches.append(self.apprentice.labels(state, mine, self.value))

        play_deal(self.game, lineup, self.seed, deal, self.rules, ended)
        return Demonstrations.concatenate(matches)


@dataclass(frozen=True)
class LabellerStart:
    """Builds a :class:`Labeller` from files and specs, here, in a worker process or in a
    Ray task (:mod:`spinner_env.train.executor`)."""

    config: TrainConfig
    student: str
    """The policy file of the network that plays."""
    operator: str
    """The operator's spec, the policy file in it (:func:`operator_spec`)."""
    snapshots: tuple[str, ...]
    """Earlier generations' policy files, for the line-up."""
    seed: int

    def __call__(self) -> Labeller:
        config = self.config
        settings = _settings(config)
        game = game_spec(config.game)
        apprentice = Apprentice(
            PolicyAgent.load(self.student, game.encoding),
            make_agent(self.operator, encoding=game.encoding),
            settings.temperature,
            settings.label_share,
            settings.prior,
        )
        earlier = [PolicyAgent.load(path, game.encoding) for path in self.snapshots]
        opponents = line_up(config, settings.jittered, settings.jitter).with_students(
            earlier, config.opponents.snapshot_weight
        )
        return Labeller(
            game,
            config.num_players,
            config.env,
            apprentice,
            opponents,
            value_target(config),
            self.seed,
        )


def label(
    config: TrainConfig,
    student: Path,
    snapshots: Sequence[Path],
    seed: int,
    executor: Executor = SERIAL,
    progress: bool = False,
) -> Demonstrations:
    """The labelled decisions of ``expert_iteration.deals`` deals dealt from ``seed``, the
    network of the file ``student`` playing (see the module docstring), in deal order."""
    settings = _settings(config)
    start = LabellerStart(
        config,
        str(student),
        operator_spec(settings.operator, student),
        tuple(map(str, snapshots)),
        seed,
    )
    deals = executor.map(start, range(settings.deals), progress=progress, unit="deal")
    return Demonstrations.concatenate(list(deals))


def check_operator(config: TrainConfig, policy: Path) -> None:
    """ValueError, naming the spec, unless the operator builds for the config's game and
    values the moves of a first decision there (a wrong game's policy fails here)."""
    game = game_spec(config.game)
    spec = operator_spec(_settings(config).operator, policy)
    try:
        agent = make_agent(spec, seed=config.seed, encoding=game.encoding)
        state = game.new_state(config.num_players, config.seed, **config.env)
        while len(legal := state.legal_moves()) == 1:
            state.play_legal(legal[0])
        _, view = choose_move_explained(agent, state, game.encoding)
        actions = np.array(sorted(game.encoding.action_of(m) for m in legal))
        soft_target(view, actions, 1.0, game.encoding.num_actions)
    except ValueError as error:
        raise ValueError(f"expert_iteration.operator {spec!r}: {error}") from None


@dataclass(frozen=True)
class GenerationReport:
    """One generation's numbers."""

    generation: int
    labelled: int
    """This generation's labelled decisions."""
    labelled_total: int
    """Every generation's so far (fitted and set aside)."""
    agreement: float
    """How often the network's most likely move was the operator's move on this
    generation's decisions, before it fitted them."""
    holdout_agreement: float
    """After the fit, on this generation's decisions set aside."""
    target_entropy: float
    """The mean entropy of this generation's soft targets (nats): 0 where the search is sure."""
    fit_loss: float
    """The last epoch's cross-entropy to the targets."""
    value_error: float
    """The last epoch's squared error of the value head."""
    strength: dict[str, dict[str, float]]
    """Per opponent (``eval_against``'s specs, ``previous``): the match win rate (mean,
    low, high of the 95% interval)."""
    label_seconds: float
    fit_seconds: float
    eval_seconds: float


def entropy(targets: np.ndarray) -> float:
    """The mean entropy (nats) of rows of probabilities."""
    logs = np.log(np.where(targets > 0, targets, 1.0))
    return float(-(targets * logs).sum(axis=1).mean())


def expert_iteration(
    config: TrainConfig,
    out: Path,
    executor: Executor = SERIAL,
    overwrite: bool = False,
    progress: bool = False,
    command: str = "",
) -> tuple[Path, dict[str, Any]]:
    """Run the config's ``expert_iteration`` section as the module docstring says; the last
    generation's policy file and the report (``expert_iteration.json``'s content)."""
    settings = _settings(config)
    limit_threads(config.torch_threads)
    encoding = game_spec(config.game).encoding
    set_random_seed(config.seed)  # a fresh network's weights
    policy = starting_policy(config)
    features = config.observation_features()
    start_value = load_policy(config.init_file())[1].value if config.init_from else None
    with tempfile.TemporaryDirectory() as folder:  # everything checked before out is touched
        probe = Path(folder) / f"probe{POLICY_SUFFIX}"
        save_policy(policy, probe, encoding, features, start_value)
        check_operator(config, probe)
    for spec in settings.eval_against:
        make_agent(spec, encoding=encoding)
    prepare_out_dir(out, overwrite, REPORT, "expert iteration run")
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out / "config.yaml", yaml.safe_dump(config.as_dict(), sort_keys=False))
    files = [out / f"generation_0{POLICY_SUFFIX}"]
    save_policy(policy, files[0], encoding, features, start_value)
    against = {spec: spec for spec in settings.eval_against}
    report: dict[str, Any] = {
        "command": command,
        "start": strength(config, files[0], against, settings.eval_matches, executor),
        "generations": [],
    }
    print(f"generation 0: {describe_strength(report['start'])}", flush=True)
    write_text_atomic(out / REPORT, json.dumps(report, indent=1))
    fitted: list[Demonstrations] = []
    labelled = 0
    for number in range(1, settings.generations + 1):
        seed = config.seed + 1000 * number
        started = time.time()
        snapshots = files[-1 - config.opponents.max_snapshots : -1]
        demos = label(config, files[-1], snapshots, seed, executor, progress)
        if features is not None:
            demos = dataclasses.replace(demos, obs=features(demos.obs))
        labelled += len(demos)
        before = agreement(policy, demos, np.arange(len(demos)))
        kept, aside = split(demos, HOLDOUT, np.random.default_rng([seed, 3]))
        fitted.append(kept)
        label_seconds = time.time() - started
        started = time.time()
        fitting = fit(
            policy,
            Demonstrations.concatenate(fitted),
            settings.epochs,
            settings.batch_size,
            settings.learning_rate,
            config.ppo.vf_coef,
            holdout=0.0,
            seed=seed,
        )
        files.append(out / f"generation_{number}{POLICY_SUFFIX}")
        save_policy(policy, files[-1], encoding, features, value_target(config))
        fit_seconds = time.time() - started
        started = time.time()
        rates = strength(
            config,
            files[-1],
            {**against, "previous": str(files[-2])},
            settings.eval_matches,
            executor,
        )
        generation = GenerationReport(
            generation=number,
            labelled=len(demos),
            labelled_total=labelled,
            agreement=before,
            holdout_agreement=agreement(policy, aside, np.arange(len(aside))),
            target_entropy=entropy(demos.targets),
            fit_loss=fitting.losses[-1],
            value_error=fitting.value_errors[-1],
            strength=rates,
            label_seconds=label_seconds,
            fit_seconds=fit_seconds,
            eval_seconds=time.time() - started,
        )
        report["generations"].append(dataclasses.asdict(generation))
        print(describe(generation), flush=True)
        write_text_atomic(out / REPORT, json.dumps(report, indent=1))
        plot(report, out / CURVE, 1 / config.num_players)
    final = out / f"{config.name}{POLICY_SUFFIX}"
    shutil.copyfile(files[-1], final)
    return final, report


def plot(report: dict[str, Any], path: Path, fair_share: float) -> None:
    """The match win rates per generation (95% intervals) against each of ``eval_against``
    (generation 0: the start) and against the previous generation, as a PNG; a dashed
    line at ``fair_share``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    generations = report["generations"]
    fig, (strength_ax, previous_ax) = plt.subplots(1, 2, figsize=(10, 4))
    for name in report["start"]:
        rates = [report["start"][name]] + [g["strength"][name] for g in generations]
        _error_bars(strength_ax, range(len(rates)), rates, f"against {name}")
    strength_ax.set_title("against the fixed opponents")
    strength_ax.set_xlabel("generation (0: the start)")
    _error_bars(
        previous_ax,
        [g["generation"] for g in generations],
        [g["strength"]["previous"] for g in generations],
        "against the previous generation",
    )
    previous_ax.set_title("against the previous generation")
    previous_ax.set_xlabel("generation")
    for ax in (strength_ax, previous_ax):
        ax.axhline(fair_share, color="grey", linestyle="--", label="fair share")
        ax.set_xticks(range(len(generations) + 1))
        ax.set_ylabel("match win rate (95% CI)")
        ax.legend()
    labelled = sum(g["labelled"] for g in generations)
    fig.suptitle(f"expert iteration: {len(generations)} generations, {labelled} labelled decisions")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def _error_bars(ax: Any, x: Sequence[int], rates: list[dict[str, float]], label: str) -> None:
    means = np.array([r["mean"] for r in rates])
    spread = [means - [r["low"] for r in rates], [r["high"] for r in rates] - means]
    ax.errorbar(list(x), means, yerr=spread, marker="o", capsize=4, label=label)


def describe(g: GenerationReport) -> str:
    """A generation's numbers on one line."""
    return (
        f"generation {g.generation}: {g.labelled} labelled ({g.labelled_total} in all), "
        f"agreement with the search {g.agreement:.1%} before the fit, {g.holdout_agreement:.1%} "
        f"after (held out), target entropy {g.target_entropy:.2f}; "
        f"{describe_strength(g.strength)} "
        f"(label {g.label_seconds:.0f} s, fit {g.fit_seconds:.0f} s, "
        f"evaluate {g.eval_seconds:.0f} s)"
    )


def _settings(config: TrainConfig) -> ExpertIterationConfig:
    if config.expert_iteration is None:
        raise ValueError(
            "the config needs an expert_iteration section: its operator, generations and deals"
        )
    return config.expert_iteration


def main(argv: Sequence[str] | None = None) -> tuple[Path, dict[str, Any]]:
    return generations_main(
        argv,
        "research/expert_iteration.py",
        __doc__.split("\n\n")[0],
        "expert_iteration",
        "deals",
        "the labelling and evaluation deals",
        _settings,
        expert_iteration,
        REPORT,
    )


if __name__ == "__main__":
    main()
