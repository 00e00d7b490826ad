"""The ``spinner_env.train.ppo`` config: one typed dataclass per section of the YAML file.

A config is read into :class:`TrainConfig` by :func:`load_config` (or
:meth:`TrainConfig.from_dict`). Every key must be a field of its section and every value
of the field's type: a misspelled key (``n_env``), a value outside a choice
(``league.exploiter_start: best``), a string where a number belongs (``n_steps: many``),
an empty file or an out-of-range number raises one ``ValueError`` that names the key,
before any training starts. ``0`` turns off the periodic jobs (``checkpoint_every``, ``eval.every``,
``opponents.snapshot_every``).

The ``env`` section holds the game env's own arguments (``reward``, ``episode``,
``num_hands``, variant flags); the game's env checks them itself (``spinner_env.games``).

The repository's ``configs/*.yaml`` ship with the package (``spinner_env.configs``), so a
command run anywhere takes a shipped config by its name: ``--config quick`` is
``configs/quick.yaml`` (:func:`config_path`).
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

import yaml
from spinner_env.agents import COMMITTED, committed_policy
from spinner_env.agents.features import ActionPrior, ObservationFeatures, Residual
from spinner_env.agents.policy import read_header

from spinner_env.games import default_game, game_spec
from spinner_env.suggest import did_you_mean

T = TypeVar("T")


@dataclass(frozen=True)
class PolicyConfig:
    """``ppo.policy_kwargs``: the policy network (SB3's default layout where unset)."""

    net_arch: list[int] | None = None

    def __post_init__(self) -> None:
        if self.net_arch is not None and any(width < 1 for width in self.net_arch):
            raise ValueError(
                f"ppo.policy_kwargs.net_arch: layer widths must be >= 1, got {self.net_arch}"
            )


@dataclass(frozen=True)
class PPOConfig:
    """``ppo``: MaskablePPO's hyperparameters (its defaults where unset)."""

    learning_rate: float = 3e-4
    n_steps: int = 2048
    batch_size: int = 64
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    policy_kwargs: PolicyConfig = field(default_factory=PolicyConfig)

    def __post_init__(self) -> None:
        for key in ("n_steps", "batch_size", "n_epochs"):
            _at_least(f"ppo.{key}", getattr(self, key), 1)
        for key in ("learning_rate", "clip_range"):
            if getattr(self, key) <= 0:
                raise ValueError(f"ppo.{key} must be positive, got {getattr(self, key)}")
        for key in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, key) <= 1:
                raise ValueError(f"ppo.{key} must be in [0, 1], got {getattr(self, key)}")

    def model_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``MaskablePPO``."""
        kwargs = dataclasses.asdict(self)
        kwargs["policy_kwargs"] = {
            k: v for k, v in kwargs["policy_kwargs"].items() if v is not None
        }
        return kwargs


@dataclass(frozen=True)
class OpponentsConfig:
    """``opponents``: fixed opponents (any ``make_agent`` spec) with sampling weights,
    and the learner's snapshots (their weight shared equally, one every ``snapshot_every``
    steps, the latest ``max_snapshots`` kept)."""

    baselines: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_weight: float = 0.0
    snapshot_every: int = 0
    max_snapshots: int = 5

    def __post_init__(self) -> None:
        if not self.baselines:
            raise ValueError("opponents.baselines: name at least one opponent")
        for spec, weight in self.baselines.items():
            if weight < 0:
                raise ValueError(f"opponents.baselines.{spec}: a weight must be >= 0, got {weight}")
        if self.snapshot_weight < 0:
            raise ValueError(f"opponents.snapshot_weight must be >= 0, got {self.snapshot_weight}")
        if sum(self.baselines.values()) + self.snapshot_weight <= 0:
            raise ValueError("opponents: the weights sum to 0")
        _at_least("opponents.snapshot_every", self.snapshot_every, 0)
        _at_least("opponents.max_snapshots", self.max_snapshots, 1)


@dataclass(frozen=True)
class EvalConfig:
    """``eval``: every ``every`` steps, ``matches`` full matches against each of ``against``."""

    every: int = 0
    matches: int = 20
    against: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])

    def __post_init__(self) -> None:
        _at_least("eval.every", self.every, 0)
        _at_least("eval.matches", self.matches, 1)


@dataclass(frozen=True)
class PretrainConfig:
    """``pretrain``: behaviour cloning before PPO (:mod:`spinner_env.train.imitate`): the
    teacher ``imitate`` (any agent spec; a search player reads each game's reference state)
    plays ``samples`` learner decisions against the opponent pool; the policy (fresh, or
    ``init_from``'s) is fitted to its actions (and its critic to the returns) for
    ``epochs`` passes in batches of ``batch_size`` at ``learning_rate``; with ``actor:
    false`` the critic alone (a policy whose ``prior`` already plays the teacher's moves)."""

    imitate: str = "heuristic"
    samples: int = 100_000
    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3
    actor: bool = True

    def __post_init__(self) -> None:
        for key in ("samples", "epochs", "batch_size"):
            _at_least(f"pretrain.{key}", getattr(self, key), 1)
        if self.learning_rate <= 0:
            raise ValueError(f"pretrain.learning_rate must be positive, got {self.learning_rate}")


@dataclass(frozen=True)
class LeagueConfig:
    """``league``: league training (``spinner-league``, :mod:`spinner_env.train.league`).

    ``total_timesteps`` is split into ``generations``; each generation trains the main
    agent, then ``exploiters`` main exploiters for ``exploiter_steps`` each against the
    main agent's latest copy. The main agent's opponents are the main agent itself (a
    ``self_play`` share of seats) and, by prioritized fictitious self-play, the league's
    members: the ``opponents.baselines`` styles, ``heuristic_variants`` heuristics whose
    weights are the defaults times ``exp(weight_jitter * N(0, 1))``, frozen snapshots
    (the latest ``opponents.max_snapshots``) and frozen exploiters, each weighted
    ``(1 - p) ** pfsp_exponent`` where p is how often the main agent beats it, measured
    over ``win_rate_episodes`` episodes every generation. An exploiter that beats the
    main agent in ``exploiter_reset`` of its episodes or more is reset; an exploiter
    starts (and restarts) from fresh weights, or from the main agent's current weights
    (``exploiter_start: main``, as AlphaStar's restart from the supervised agent). At the
    end every member plays every other over ``matrix_episodes`` episodes (default
    ``win_rate_episodes``) for the win-rate matrix; a pair with a search player costs its
    search, so a league with search styles may want fewer.
    """

    generations: int = 4
    exploiters: int = 1
    exploiter_steps: int = 50_000
    exploiter_reset: float = 0.6
    exploiter_start: Literal["fresh", "main"] = "fresh"
    self_play: float = 0.2
    pfsp_exponent: float = 2.0
    heuristic_variants: int = 4
    weight_jitter: float = 0.4
    win_rate_episodes: int = 256
    matrix_episodes: int | None = None

    def __post_init__(self) -> None:
        _at_least("league.generations", self.generations, 1)
        _at_least("league.exploiters", self.exploiters, 0)
        _at_least("league.exploiter_steps", self.exploiter_steps, 1)
        _at_least("league.heuristic_variants", self.heuristic_variants, 0)
        _at_least("league.win_rate_episodes", self.win_rate_episodes, 1)
        if self.matrix_episodes is not None:
            _at_least("league.matrix_episodes", self.matrix_episodes, 1)
        for key in ("exploiter_reset", "self_play"):
            if not 0 <= getattr(self, key) <= 1:
                raise ValueError(f"league.{key} must be in [0, 1], got {getattr(self, key)}")
        for key in ("pfsp_exponent", "weight_jitter"):
            if getattr(self, key) < 0:
                raise ValueError(f"league.{key} must be >= 0, got {getattr(self, key)}")


@dataclass(frozen=True)
class ExpertIterationConfig:
    """``expert_iteration``: expert iteration with search targets
    (``research/expert_iteration.py``). Each of
    ``generations`` plays ``deals`` duplicate deals (each once per seating) with the
    current network in one seat against the line-up (the config's ``opponents``,
    ``jittered`` heuristics and as many experts whose weights are jittered by ``jitter``,
    earlier generations); at a random ``label_share`` of the network's decisions the
    ``operator`` (an agent spec in which ``{policy}``, where it appears, stands for the
    current generation's policy file, such as ``pimc:rollout={policy},determinizations=8``;
    without it, a fixed search such as ``pimc:rollout=expert,determinizations=64``) gives
    each legal move a value, whose softmax at ``temperature`` (in the values' units) is the move's
    target (with ``prior``: the network's probability times ``exp(value / temperature)``,
    normalized). The network is fitted to every generation's targets so far for ``epochs``
    passes in batches of ``batch_size`` at ``learning_rate``, then plays ``eval_matches``
    duplicate matches against each of ``eval_against`` and against the previous
    generation."""

    operator: str = "pimc:rollout={policy},determinizations=8"
    generations: int = 3
    deals: int = 40
    label_share: float = 1.0
    temperature: float = 0.05
    prior: bool = False
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-4
    jittered: int = 1
    jitter: float = 0.4
    eval_against: list[str] = field(default_factory=lambda: ["expert"])
    eval_matches: int = 200

    def __post_init__(self) -> None:
        for key in ("generations", "deals", "epochs", "batch_size"):
            _at_least(f"expert_iteration.{key}", getattr(self, key), 1)
        for key in ("jittered", "eval_matches"):
            _at_least(f"expert_iteration.{key}", getattr(self, key), 0)
        for key in ("temperature", "learning_rate"):
            if getattr(self, key) <= 0:
                raise ValueError(
                    f"expert_iteration.{key} must be positive, got {getattr(self, key)}"
                )
        if self.jitter < 0:
            raise ValueError(f"expert_iteration.jitter must be >= 0, got {self.jitter}")
        if not 0 < self.label_share <= 1:
            raise ValueError(
                f"expert_iteration.label_share must be in (0, 1], got {self.label_share}"
            )


@dataclass(frozen=True)
class ResidualConfig:
    """``policy_iteration.residual``: after each generation's least-squares fit, a small
    network of each move's terms and of the prior's input groups named in ``inputs``
    (the game's ``INPUTS``, in its ``features`` module such as
    :mod:`spinner_env.games.spinner.features`; hidden ``layers`` of tanh, its output layer
    started at zero) is fitted to what the linear fit leaves of the moves' values, each less its
    root's mean (Adam at ``learning_rate``, ``epochs`` passes, ``minibatch_roots`` roots a
    step), and added to the prior's scores
    (:class:`~spinner_env.agents.features.Residual`). ``holdout`` of the roots (every
    ``round(1 / holdout)``-th) are kept out of the fit to measure it."""

    layers: list[int] = field(default_factory=lambda: [64, 64])
    epochs: int = 15
    learning_rate: float = 1e-3
    minibatch_roots: int = 4096
    holdout: float = 0.1
    inputs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for i, width in enumerate(self.layers):
            _at_least(f"policy_iteration.residual.layers[{i}]", width, 1)
        _at_least("policy_iteration.residual.epochs", self.epochs, 1)
        _at_least("policy_iteration.residual.minibatch_roots", self.minibatch_roots, 1)
        if not 0 < self.learning_rate < 1:
            raise ValueError(
                "policy_iteration.residual.learning_rate must be in (0, 1), "
                f"got {self.learning_rate}"
            )
        if not 0 < self.holdout <= 0.5:
            raise ValueError(
                f"policy_iteration.residual.holdout must be in (0, 0.5], got {self.holdout}"
            )


@dataclass(frozen=True)
class PolicyIterationConfig:
    """``policy_iteration``: policy iteration by rollouts (``spinner-policy-iteration``,
    :mod:`spinner_env.train.policy_iteration`). Each of ``generations`` plays ``batches``
    batches of ``games`` batched games for ``steps`` decisions each with the current
    weights of the prior's valuation at every seat; at ``root_share`` of the decisions
    with a choice, every legal move is played out to the end of the hand from the true
    position, and the weights are fitted to the moves' values by least squares (with
    ``phases``, the valuation's phase weights too: Spinner's
    ``spinner_env.games.spinner.weights.PHASE_WEIGHT_NAMES``). Each generation's policy
    file then plays ``eval_matches`` duplicate matches against each of ``eval_against``.
    With ``residual``, a small network of the moves' terms is fitted after the weights
    (:class:`ResidualConfig`), and the next generation is rolled out with it."""

    generations: int = 2
    batches: int = 2
    games: int = 1024
    steps: int = 800
    root_share: float = 0.5
    eval_against: list[str] = field(default_factory=lambda: ["expert"])
    eval_matches: int = 200
    phases: bool = False
    residual: ResidualConfig | None = None

    def __post_init__(self) -> None:
        for key in ("generations", "batches", "games", "steps"):
            _at_least(f"policy_iteration.{key}", getattr(self, key), 1)
        _at_least("policy_iteration.eval_matches", self.eval_matches, 0)
        if not 0 < self.root_share <= 1:
            raise ValueError(
                f"policy_iteration.root_share must be in (0, 1], got {self.root_share}"
            )


COMMANDS = (
    "spinner-train",
    "spinner-policy-iteration",
    "spinner-league",
    "spinner-exploit",
    "research/dagger.py",
    "research/expert_iteration.py",
)
"""The commands a config may be for (its ``command``)."""


@dataclass(frozen=True)
class TrainConfig:
    """A whole training run (see ``configs/*.yaml``)."""

    num_players: int
    total_timesteps: int
    """PPO's steps; 0: none (the run saves what ``init_from`` and ``pretrain`` made)."""
    name: str = "ppo"
    command: str | None = None
    """The command the config is for, one of :data:`COMMANDS` (every shipped config names
    its own): the other commands refuse it (:func:`load_config`). None: any command."""
    game: str = field(default_factory=lambda: default_game().name)
    env: dict[str, Any] = field(default_factory=dict)
    skip_forced: bool = False
    seed: int = 0
    n_envs: int = 1
    torch_threads: int = 1
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    checkpoint_every: int = 0
    eval: EvalConfig = field(default_factory=EvalConfig)
    out_dir: str = "runs/ppo"
    init_from: str | None = None
    features: list[str] = field(default_factory=list)
    """Observation features the policy reads beside the observation
    (:mod:`spinner_env.agents.features`: ``plan`` and ``expert`` in Mexican Train)."""
    prior: ActionPrior | None = None
    """An action prior, one of ``features``, added to the policy's logits (``feature`` and
    ``scale``): the fresh policy plays as the prior's player and learns corrections."""
    feature_weights: dict[str, list[float]] = field(default_factory=dict)
    """Weights of weighted ``features`` (``expert``) in place of their player's defaults,
    by feature name, as a policy file from ``spinner-policy-iteration`` carries them (its
    ``init_from`` must carry the same)."""
    feature_residuals: dict[str, str] = field(default_factory=dict)
    """Learned residuals added to weighted ``features``' scores, by feature name: each the
    policy file (or committed policy's name) whose header carries that feature's residual,
    as ``spinner-policy-iteration`` writes it with ``policy_iteration.residual``. A run
    holds it as it is (the network learns around it), its policy files carry it, and its
    ``init_from`` must carry the same."""
    pretrain: PretrainConfig | None = None
    league: LeagueConfig | None = None
    expert_iteration: ExpertIterationConfig | None = None
    policy_iteration: PolicyIterationConfig | None = None

    def __post_init__(self) -> None:
        if self.command is not None and self.command not in COMMANDS:
            expected = ", ".join(COMMANDS)
            raise ValueError(f"command: expected one of {expected}, got {self.command!r}")
        _at_least("num_players", self.num_players, 2)
        _at_least("total_timesteps", self.total_timesteps, 0)
        _at_least("n_envs", self.n_envs, 1)
        _at_least("torch_threads", self.torch_threads, 1)
        _at_least("checkpoint_every", self.checkpoint_every, 0)
        try:
            spec = game_spec(self.game)
        except ValueError as err:
            raise ValueError(f"game: {err}") from None
        spec.raw_env(num_players=self.num_players)  # the game knows its player counts
        try:
            # ... and checks its own arguments: rules, reward, episode.
            spec.raw_env(num_players=self.num_players, **self.env)
        except (ValueError, TypeError) as error:
            raise ValueError(f"env: {error}") from error
        try:
            self.residuals  # noqa: B018 (read and checked once, kept for the run)
        except ValueError as error:
            raise ValueError(f"feature_residuals: {error}") from None
        try:
            self.observation_features()
        except ValueError as error:
            raise ValueError(f"features: {error}") from None
        if self.prior is not None:
            self.prior_slice()
        if self.league is not None:
            _at_least("total_timesteps", self.total_timesteps, 1)
            # A league snapshots the main agent once a generation and keeps no checkpoints.
            for key, value in (
                ("opponents.snapshot_every", self.opponents.snapshot_every),
                ("opponents.snapshot_weight", self.opponents.snapshot_weight),
                ("checkpoint_every", self.checkpoint_every),
                ("pretrain", self.pretrain),
            ):
                if value:
                    raise ValueError(f"{key}: not used with a league section; leave it out")
        if self.init_from is not None:
            try:
                _policy_file(self.init_from)
            except ValueError as error:
                raise ValueError(f"init_from: {error}") from None

    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> TrainConfig:
        """Check ``data`` (what a YAML file holds) against the schema; ``source`` (the
        file) begins the error messages."""
        if data is None:
            raise ValueError(
                f"{source or 'the config'} is empty: expected keys such as num_players"
            )
        try:
            return parse(cls, _without_backend(data))
        except ValueError as error:
            if source is None:
                raise
            raise ValueError(f"{source}: {error}") from error

    def init_file(self) -> Path:
        """``init_from``'s weights: a committed policy by name (``spinner_2p``, shipped with
        the package, so a shipped config runs anywhere), else a file path."""
        if self.init_from is None:
            raise ValueError("init_from: the config starts from fresh weights")
        return committed_policy(self.init_from) or Path(self.init_from)

    def observation_features(self) -> ObservationFeatures | None:
        """``features`` for the config's game, with ``feature_weights`` and the
        :attr:`residuals`, None where it names none; ValueError for a name that is not one
        of that game's features."""
        if not self.features:
            if self.feature_weights or self.feature_residuals:
                raise ValueError("feature_weights and feature_residuals need features")
            return None
        return ObservationFeatures(
            self.features,
            game_spec(self.game).encoding,
            self.feature_weights,
            self.residuals,
        )

    @cached_property
    def residuals(self) -> dict[str, Residual]:
        """``feature_residuals`` read from their files, once a config; ValueError naming a
        file that is not a policy file of the config's game or carries no residual for that
        feature."""
        encoding = game_spec(self.game).encoding
        out = {}
        for name, source in self.feature_residuals.items():
            header = read_header(_policy_file(source), encoding)
            if name not in header.feature_residuals:
                raise ValueError(
                    f"{source!r} carries no residual of the feature {name!r} "
                    f"(its residuals: {sorted(header.feature_residuals) or 'none'})"
                )
            out[name] = header.feature_residuals[name]
        return out

    def prior_slice(self) -> slice | None:
        """Where ``prior`` sits in the policy's input, None without a prior; ValueError for a
        prior that is not one of ``features`` or not one value per action."""
        if self.prior is None:
            return None
        encoding = game_spec(self.game).encoding
        features = ObservationFeatures(self.features, encoding)
        try:
            return self.prior.check_fits(features, encoding.num_actions)
        except ValueError as error:
            raise ValueError(f"prior: {error}") from None

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with some top-level fields changed, checked again."""
        return dataclasses.replace(self, **changes)


def _policy_file(spec: str) -> Path:
    """The file a committed policy's name or a path names; ValueError where there is none."""
    path = committed_policy(spec) or Path(spec)
    if not path.is_file():
        raise ValueError(
            f"no such file {spec!r}, nor a committed policy's name ({', '.join(COMMITTED)})"
        )
    return path


def shipped_configs(command: str | None = None) -> dict[str, Path]:
    """The configs that ship with the package (the repository's ``configs/``), by name;
    with a ``command``, only those for it."""
    folder = Path(str(importlib.resources.files("spinner_env.configs")))
    shipped = {path.stem: path for path in sorted(folder.glob("*.yaml"))}
    if command is None:
        return shipped
    return {
        name: path
        for name, path in shipped.items()
        if (yaml.safe_load(path.read_text()) or {}).get("command") == command
    }


def config_help(command: str) -> str:
    """A command's ``--config`` help: what it takes, and the shipped configs for it."""
    return f"a YAML file or a shipped config's name: {', '.join(shipped_configs(command))}"


def check_command(config: TrainConfig, command: str, given: str | Path) -> None:
    """Refuse a config (``given``, as the user named it) that is for another command."""
    if config.command not in (None, command):
        raise ValueError(
            f"{given} is a config for {config.command}, not {command}: "
            f"run {config.command} --config {given}"
        )


def check_out_dir(config: TrainConfig, out_dir: str | Path | None) -> None:
    """A run writes ``<name>.safetensors``: one named after a committed agent (a shipped
    recipe's config) writes only into an out dir the user asked for (``--out-dir``)."""
    if out_dir is None and committed_policy(config.name) is not None:
        raise ValueError(
            f"the config makes {config.name!r}, a committed agent's name: pass --out-dir DIR "
            f"to write its {config.name}.safetensors there"
        )


def config_path(config: str | Path) -> Path:
    """The config file ``config`` names: a file path where that file exists, else a shipped
    config's name, with or without ``.yaml`` (``quick``, ``exploit.yaml``)."""
    path = Path(config)
    if path.is_file():
        return path
    shipped = shipped_configs()
    if path.parent == Path(".") and path.stem in shipped and path.suffix in ("", ".yaml"):
        return shipped[path.stem]
    raise ValueError(
        f"no config file {str(config)!r} and no shipped config of that name"
        f"{did_you_mean(path.stem, shipped)} (shipped: {', '.join(sorted(shipped))})"
    )


def _without_backend(data: Any) -> Any:
    """``data`` less the retired ``backend`` key, which configs and runs written before it
    went may carry: ``batched``, the only engine training has, loads as before; any other
    value is refused."""
    if not isinstance(data, dict) or "backend" not in data:
        return data
    backend = data["backend"]
    if backend == "aec":
        raise ValueError(
            "backend: the AEC backend was removed; training plays on the game's batched "
            "engine (backend: batched, the default)"
        )
    if backend != "batched":
        raise ValueError(f"backend: expected 'batched', got {backend!r}")
    return {key: value for key, value in data.items() if key != "backend"}


def load_config(path: str | Path) -> TrainConfig:
    """Read and check a YAML config file, or a shipped config by its name (:func:`config_path`;
    ``ValueError`` naming the file and the key); the run's ``name`` defaults to the file's stem."""
    path = config_path(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ValueError(f"cannot read the config {str(path)!r}: {error.strerror}") from error
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"{path}: not valid YAML{where}") from error
    if isinstance(data, dict):
        data.setdefault("name", Path(path).stem)
    return TrainConfig.from_dict(data, str(path))


def parse(cls: type[T], data: Any, where: str = "") -> T:
    """A dataclass ``cls`` from a mapping: unknown keys (all of them at once, in every
    section), missing required keys and values of the wrong type raise a ``ValueError``
    naming the key (``where`` is the path of the section, ``ppo.policy_kwargs``)."""
    unknown = unknown_keys(cls, data, where)
    if unknown:
        raise ValueError(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")
    return _parse(cls, data, where)


def unknown_keys(cls: type, data: Any, where: str = "") -> list[str]:
    """Each key of ``data`` and of its sections that is no field of its section, quoted with
    the closest field as a hint (``'n_env' (did you mean 'n_envs'?)``)."""
    if not isinstance(data, Mapping):
        return []  # parse names what is wrong with it
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    prefix = f"{where}." if where else ""
    found = []
    for key, value in data.items():
        if key not in names:
            found.append(f"{_key(where, key)!r}{did_you_mean(str(key), names, prefix)}")
        elif (section := _section(hints[key])) is not None:
            found += unknown_keys(section, value, _key(where, key))
    return found


def _section(kind: Any) -> type | None:
    """The dataclass a field of type ``kind`` holds (``PretrainConfig | None``), if any."""
    options = [a for a in typing.get_args(kind) if a is not type(None)] or [kind]
    if len(options) == 1 and dataclasses.is_dataclass(options[0]):
        return options[0]  # type: ignore[return-value]
    return None


def _parse(cls: type[T], data: Any, where: str) -> T:
    """:func:`parse`, its unknown keys already refused."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{where or 'the config'}: expected a mapping of keys, got {_show(data)}")
    hints = typing.get_type_hints(cls)
    required = [
        f.name
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    for name in required:
        if name not in data:
            raise ValueError(f"missing key {_key(where, name)!r}")
    values = {name: _convert(hints[name], data[name], _key(where, name)) for name in data}
    return cls(**values)


def _convert(kind: Any, value: Any, key: str) -> Any:
    """``value`` as the type ``kind``, or a ``ValueError`` naming ``key``."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if dataclasses.is_dataclass(options[0]) and len(options) == 1:
            return _convert(options[0], value, key)  # its own message names the bad key
        for option in options:
            try:
                return _convert(option, value, key)
            except ValueError:
                continue
        raise ValueError(f"{key}: expected {_expected(kind)}, got {_show(value)}")
    if origin is Literal:
        if value in args:
            return value
        raise ValueError(f"{key}: expected one of {', '.join(map(repr, args))}, got {_show(value)}")
    if dataclasses.is_dataclass(kind):
        return _parse(kind, value, key)
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{key}: expected {_expected(kind)}, got {_show(value)}")
        return [_convert(args[0], item, f"{key}[{i}]") for i, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise ValueError(f"{key}: expected {_expected(kind)}, got {_show(value)}")
        return {k: _convert(args[1], v, _key(key, k)) for k, v in value.items()}
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if (
        kind in (int, bool, str)
        and isinstance(value, kind)
        and not (kind is int and isinstance(value, bool))
    ):
        return value
    raise ValueError(f"{key}: expected {_expected(kind)}, got {_show(value)}")


def _expected(kind: Any) -> str:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (Union, types.UnionType):
        return " or ".join(_expected(a) for a in args)
    if origin is list:
        return f"a list of {_expected(args[0])}"
    if origin is dict:
        return f"a mapping of names to {_expected(args[1])}"
    names = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    return names.get(kind, "null" if kind is type(None) else getattr(kind, "__name__", str(kind)))


def _show(value: Any) -> str:
    return "an empty value" if value is None else f"{value!r}"


def _key(where: str, key: Any) -> str:
    return f"{where}.{key}" if where else str(key)


def _at_least(key: str, value: int, low: int) -> None:
    if value < low:
        raise ValueError(f"{key} must be at least {low}, got {value}")
