"""An agent that plays a trained MaskablePPO policy, and the policy file format it reads.

A policy file (``.safetensors``, what ``spinner_env.train.ppo`` writes and ``agents/checkpoints``
holds) is tensors plus a small JSON header, nothing else: loading one parses a length,
a JSON object and raw numbers, so a file from anywhere cannot run code. The header says
what the tensors are for (:class:`PolicyHeader`: the game, the network's input size, the
number of actions, the network's layers and activation, the observation features it reads
beside the observation (:mod:`spinner_env.agents.features`), what its value head predicts
(:class:`ValueTarget`), the action prior added to its logits (:class:`ActionPrior`), the
format version), and the loader checks it against the game it is asked to play before
any move is made.

The value head is the network's critic: from a seat's observation, the return that seat
can expect from there under the reward, episode and discount its header names (with the
``match`` reward and episode and a discount of 1, the final match outcome; with
``hand_score`` per ``hand``, the round's point difference). :meth:`PolicyAgent.value`
reads it; a file that names no target (formats 1 and 2, whose critics were trained
without saying on what) has no value head to ask.

Stable-Baselines3's own files (a ``MaskablePPO.save`` ``.zip``, or a ``policy.save``
``.pt``) are pickles: loading one runs whatever code it carries. They load only through
:meth:`PolicyAgent.load_trusted_sb3`, for files you made or trust, and
``spinner-policy convert --trust-pickle IN OUT --game spinner`` turns one into
the safe format once.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from safetensors import SafetensorError, safe_open
from safetensors.torch import save as safetensors_bytes
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from spinner_env.agents.features import FEATURES, ActionPrior, ObservationFeatures, Residual
from stable_baselines3.common.torch_layers import FlattenExtractor

from spinner_env.core.agent import Agent, AgentView, EngineView, MoveView
from spinner_env.core.encoding import Encoding
from spinner_env.files import write_bytes_atomic
from spinner_env.games import GAMES, CompiledPlayer, game_named_in_files

FORMAT = "spinner-env-policy"
FORMAT_VERSION = 7
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6, 7)
"""Format 2 added the header's ``features``, format 3 its ``value``, format 4 its
``prior``, format 5 its ``feature_weights``, format 6 its ``feature_residuals``, format 7
a residual's ``inputs`` beside its terms; older files load as before."""
_FIELDS_SINCE = {
    "features": 2,
    "value": 3,
    "prior": 4,
    "feature_weights": 5,
    "feature_residuals": 6,
}
"""Header fields newer than format 1, by the version that added them."""
SUFFIX = ".safetensors"

_ACTIVATIONS = {
    "tanh": (torch.nn.Tanh, np.tanh),
    "relu": (torch.nn.ReLU, lambda x: np.maximum(x, 0.0)),
}
"""Activation name in the header: its torch module and its numpy function."""


@dataclass(frozen=True)
class ValueTarget:
    """What a policy's value head predicts: the discounted return (``gamma``) from a seat's
    decision on, under the env's ``reward`` and ``episode`` (``spinner_env.aec``'s)."""

    reward: str
    episode: str
    gamma: float

    def __post_init__(self) -> None:
        for name in ("reward", "episode"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"value.{name} must be a name, got {getattr(self, name)!r}")
        gamma = self.gamma
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0 <= gamma <= 1:
            raise ValueError(f"value.gamma must be a number in [0, 1], got {gamma!r}")

    def describe(self) -> str:
        """In words, as the command lines print it."""
        return f"the {self.reward} return per {self.episode}, discounted by {self.gamma}"


class PriorPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP actor-critic with an :class:`ActionPrior`: the action logits are
    the actor's plus ``prior.scale`` times the input's ``prior_slice``. The actor's output
    layer starts at zero, so an untrained policy plays as its prior."""

    def __init__(
        self, *args: Any, prior: ActionPrior, prior_slice: tuple[int, int], **kwargs: Any
    ) -> None:
        self.prior = prior
        self.prior_slice = tuple(prior_slice)
        super().__init__(*args, **kwargs)
        if not self.share_features_extractor:
            raise ValueError("a policy with a prior shares its features extractor")
        torch.nn.init.zeros_(self.action_net.weight)
        torch.nn.init.zeros_(self.action_net.bias)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(prior=self.prior, prior_slice=self.prior_slice)
        return data

    def prior_logits(self, obs: torch.Tensor) -> torch.Tensor:
        start, stop = self.prior_slice
        return self.prior.scale * obs[..., start:stop]

    def _distribution(
        self, obs: torch.Tensor, latent_pi: torch.Tensor, action_masks: Any
    ) -> MaskableDistribution:
        logits = self.action_net(latent_pi) + self.prior_logits(obs.float())
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def forward(
        self, obs: torch.Tensor, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
        distribution = self._distribution(obs, latent_pi, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), log_prob

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
        distribution = self._distribution(obs, latent_pi, action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: torch.Tensor, action_masks: Any = None) -> MaskableDistribution:
        features = super().extract_features(obs, self.pi_features_extractor)
        latent_pi = self.mlp_extractor.forward_actor(features)
        return self._distribution(obs, latent_pi, action_masks)


@dataclass(frozen=True)
class PolicyHeader:
    """What a policy file says about its tensors; every field is checked at load."""

    game: str
    """The game's name as its :class:`~spinner_env.core.encoding.Encoding` gives it
    (``Spinner``)."""
    obs_size: int
    """The network's input size: the game's observation, then its ``features``."""
    num_actions: int
    policy_layers: tuple[int, ...]
    """Hidden layer widths of the actor (``net_arch``'s ``pi``)."""
    value_layers: tuple[int, ...]
    """Hidden layer widths of the critic (``net_arch``'s ``vf``)."""
    activation: str
    features: tuple[str, ...] = ()
    """The observation features the network reads after the observation, in order."""
    value: ValueTarget | None = None
    """What the critic predicts; None: the file makes no claim, and has no value head."""
    prior: ActionPrior | None = None
    """The action prior added to the actor's logits (one of ``features``); None: none."""
    feature_weights: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """Weights of weighted ``features`` (an ``expert`` valuation) in place of their
    player's defaults, by feature name: learned ones (``spinner-policy-iteration``)."""
    feature_residuals: dict[str, Residual] = field(default_factory=dict)
    """Learned corrections to weighted ``features``' scores (a small network of each move's
    terms, :class:`~spinner_env.agents.features.Residual`), by feature name; its numbers sit
    in the header, as the weights do."""
    format_version: int = FORMAT_VERSION

    @classmethod
    def of(
        cls,
        policy: MaskableActorCriticPolicy,
        game: str,
        features: Sequence[str] | ObservationFeatures | None = (),
        value: ValueTarget | None = None,
    ) -> PolicyHeader:
        """The header of an MLP policy on flat observations (then ``features``: names, or
        an ``ObservationFeatures`` with its weights; its critic predicting ``value``);
        ValueError for any other."""
        if not isinstance(policy.features_extractor, FlattenExtractor):
            raise ValueError("only MLP policies on flat observations have a policy file format")
        activation = policy.activation_fn
        names = [name for name, (module, _) in _ACTIVATIONS.items() if module is activation]
        if not names:
            raise ValueError(
                f"activation {activation.__name__} has no policy file format; "
                f"one of {', '.join(_ACTIVATIONS)}"
            )
        extractor = policy.mlp_extractor
        return cls(
            game=game,
            obs_size=int(policy.observation_space.shape[0]),
            num_actions=int(policy.action_space.n),
            policy_layers=_widths(extractor.policy_net),
            value_layers=_widths(extractor.value_net),
            activation=names[0],
            features=_feature_names(features),
            value=value,
            prior=getattr(policy, "prior", None),
            feature_weights={
                name: tuple(weights.tolist())
                for name, weights in (
                    features.weights if isinstance(features, ObservationFeatures) else {}
                ).items()
            },
            feature_residuals=dict(
                features.residuals if isinstance(features, ObservationFeatures) else {}
            ),
        )

    @classmethod
    def from_metadata(cls, metadata: dict[str, str] | None) -> PolicyHeader:
        """Read a file's header; ValueError naming the first field that is missing or wrong."""
        if not metadata or metadata.get("format") != FORMAT:
            raise ValueError(f"it is not a {FORMAT} file (no such format in its header)")
        try:
            header = json.loads(metadata["header"])
        except (KeyError, json.JSONDecodeError) as err:
            raise ValueError(f"its header is not JSON: {err}") from None
        if not isinstance(header, dict):
            raise ValueError("its header is not a JSON object")
        version = header.get("format_version")
        if not _positive_int(version) or version not in READABLE_VERSIONS:
            raise ValueError(
                f"format_version {version!r}: this version reads formats "
                f"{', '.join(map(str, READABLE_VERSIONS))}"
            )
        expected = {
            name for name in cls.__dataclass_fields__ if _FIELDS_SINCE.get(name, 1) <= version
        }
        if set(header) != expected:
            raise ValueError(
                f"its header has fields {sorted(header)}; format {version} has {sorted(expected)}"
            )
        for name in ("obs_size", "num_actions"):
            if not _positive_int(header[name]):
                raise ValueError(f"{name} must be a positive integer, got {header[name]!r}")
        for name in ("policy_layers", "value_layers"):
            widths = header[name]
            if not isinstance(widths, list) or not all(_positive_int(w) for w in widths):
                raise ValueError(f"{name} must be a list of positive integers, got {widths!r}")
        if header["activation"] not in _ACTIVATIONS:
            raise ValueError(
                f"activation must be one of {', '.join(_ACTIVATIONS)}, got {header['activation']!r}"
            )
        if not isinstance(header["game"], str):
            raise ValueError(f"game must be a name, got {header['game']!r}")
        features = header.get("features", [])
        if not isinstance(features, list) or not all(name in FEATURES for name in features):
            raise ValueError(
                f"features must be a list of feature names ({', '.join(sorted(FEATURES))}), "
                f"got {features!r}"
            )
        header["features"] = tuple(features)
        value = header.get("value")
        if value is not None:
            if not isinstance(value, dict) or set(value) != set(ValueTarget.__dataclass_fields__):
                raise ValueError(
                    f"value must be null or an object of reward, episode and gamma, got {value!r}"
                )
            header["value"] = ValueTarget(**value)
        prior = header.get("prior")
        if prior is not None:
            if not isinstance(prior, dict) or set(prior) != set(ActionPrior.__dataclass_fields__):
                raise ValueError(
                    f"prior must be null or an object of feature and scale, got {prior!r}"
                )
            header["prior"] = ActionPrior(**prior)
        weights = header.get("feature_weights", {})
        if not isinstance(weights, dict) or not all(
            isinstance(values, list)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
            for values in weights.values()
        ):
            raise ValueError(
                f"feature_weights must be an object of lists of numbers, got {weights!r}"
            )
        for name, values in weights.items():
            feature = FEATURES.get(name, {}).get(header["game"])
            if name not in features or feature is None:
                raise ValueError(f"feature_weights names {name!r}, not one of the features")
            if feature.valuation is None:
                raise ValueError(f"feature_weights: the feature {name!r} takes no weights")
            feature.valuation.checked(values, f"feature_weights of {name!r}")
        header["feature_weights"] = {name: tuple(values) for name, values in weights.items()}
        residuals = header.get("feature_residuals", {})
        if not isinstance(residuals, dict):
            raise ValueError(f"feature_residuals must be an object, got {residuals!r}")
        for name, data in residuals.items():
            feature = FEATURES.get(name, {}).get(header["game"])
            if name not in features or feature is None or feature.valuation is None:
                raise ValueError(f"feature_residuals names {name!r}, not a weighted feature")
            residuals[name] = Residual.from_dict(data, f"feature_residuals of {name!r}")
            feature.valuation.check_residual(residuals[name], f"feature_residuals of {name!r}")
        header["feature_residuals"] = residuals
        header["policy_layers"] = tuple(header["policy_layers"])
        header["value_layers"] = tuple(header["value_layers"])
        return cls(**header)

    def metadata(self) -> dict[str, str]:
        fields = asdict(self)
        fields["feature_residuals"] = {
            name: residual.as_dict() for name, residual in self.feature_residuals.items()
        }
        return {"format": FORMAT, "header": json.dumps(fields)}

    def check_plays(self, encoding: Encoding) -> None:
        """ValueError naming every field that does not fit the game ``encoding`` is for."""
        wanted: dict[str, object] = {
            "game": encoding.game_name,
            "num_actions": encoding.num_actions,
        }
        if self.game == encoding.game_name:  # another game's features cannot be read here
            try:
                features = self.observation_features(encoding)
                if self.prior is not None:
                    self.prior.check_fits(features, self.num_actions)
            except ValueError as err:
                raise ValueError(f"the policy does not fit {encoding.game_name}: {err}") from None
            wanted["obs_size"] = features.size
        wrong = [
            f"{name} {getattr(self, name)!r} (the game needs {value!r})"
            for name, value in wanted.items()
            if getattr(self, name) != value
        ]
        if wrong:
            raise ValueError(f"the policy does not fit {encoding.game_name}: " + ", ".join(wrong))

    def observation_features(self, encoding: Encoding) -> ObservationFeatures:
        """The network's features for ``encoding``'s game, with the file's weights;
        ValueError if they do not fit it."""
        return ObservationFeatures(
            self.features, encoding, self.feature_weights, self.feature_residuals
        )

    def build(self) -> MaskableActorCriticPolicy:
        """An untrained policy of this shape, for the file's tensors to fill."""
        kwargs: dict[str, Any] = {}
        if self.prior is not None:
            game = game_named_in_files(self.game)
            if game is None:
                raise ValueError(f"a prior {self.prior.feature!r} of no known game {self.game!r}")
            where = self.prior.check_fits(
                ObservationFeatures(self.features, game.encoding), self.num_actions
            )
            kwargs = {"prior": self.prior, "prior_slice": (where.start, where.stop)}
        return (PriorPolicy if self.prior else MaskableActorCriticPolicy)(
            spaces.Box(-np.inf, np.inf, (self.obs_size,), np.float32),
            spaces.Discrete(self.num_actions),
            lr_schedule=lambda _: 0.0,
            net_arch={"pi": list(self.policy_layers), "vf": list(self.value_layers)},
            activation_fn=_ACTIVATIONS[self.activation][0],
            **kwargs,
        )


def save_policy(
    policy: MaskableActorCriticPolicy,
    path: str | Path,
    encoding: Encoding,
    features: Sequence[str] | ObservationFeatures | None = (),
    value: ValueTarget | None = None,
) -> Path:
    """Write ``policy`` (trained for ``encoding``'s game, reading its observations and
    then ``features``: names, or an ``ObservationFeatures`` whose weights the file keeps;
    its critic trained on ``value``'s returns, if given) as a policy file, atomically."""
    header = PolicyHeader.of(policy, encoding.game_name, features, value)
    header.check_plays(encoding)
    tensors = {name: t.detach().cpu().contiguous() for name, t in policy.state_dict().items()}
    path = Path(path)
    write_bytes_atomic(path, _canonical_safetensors(tensors, header.metadata()))
    return path


def _canonical_safetensors(tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> bytes:
    """The safetensors bytes of ``tensors`` and ``metadata``, the metadata's keys sorted.
    safetensors writes its metadata from a hash map, in an order that changes from one
    call to the next, and the same policy must make the same file; the rest of its
    header (the tensors, sorted) it writes the same every time."""
    data = safetensors_bytes(tensors, metadata=metadata)
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    header["__metadata__"] = dict(sorted(header["__metadata__"].items()))
    text = json.dumps(header, separators=(",", ":")).encode()
    # The format pads its header with spaces so that the tensors start 8-byte aligned.
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data[8 + size :]


def load_policy(
    path: str | Path, encoding: Encoding | None = None
) -> tuple[MaskableActorCriticPolicy, PolicyHeader]:
    """The policy a policy file holds, and its header; ValueError naming the file if it is
    empty, truncated, not a policy file, or (``encoding`` given) made for another game."""
    path = Path(path)
    header, tensors = _read(path, encoding, with_tensors=True)
    policy = header.build()
    try:
        policy.load_state_dict(tensors, strict=True)
    except RuntimeError as err:
        raise ValueError(f"{path}: the tensors do not match the header's network: {err}") from None
    return policy, header


def read_header(path: str | Path, encoding: Encoding | None = None) -> PolicyHeader:
    """A policy file's header alone, checked as :func:`load_policy` checks it."""
    return _read(Path(path), encoding, with_tensors=False)[0]


def _read(
    path: Path, encoding: Encoding | None, with_tensors: bool
) -> tuple[PolicyHeader, dict[str, torch.Tensor]]:
    try:
        with safe_open(str(path), framework="pt", device="cpu") as f:
            header = PolicyHeader.from_metadata(f.metadata())
            tensors = {name: f.get_tensor(name) for name in f.keys()} if with_tensors else {}  # noqa: SIM118
    except SafetensorError as err:
        raise ValueError(f"{path} is not a policy file ({_pickle_hint(path)}): {err}") from None
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    except OSError as err:
        raise ValueError(f"{path} cannot be read: {err}") from None
    if encoding is not None:
        try:
            header.check_plays(encoding)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None
    return header, tensors


def _pickle_hint(path: Path) -> str:
    if path.suffix in (".zip", ".pt", ".pth", ".pkl"):
        return (
            "Stable-Baselines3 files are pickles that run code when loaded: use "
            "PolicyAgent.load_trusted_sb3 only for a file you trust, or convert it with "
            "spinner-policy convert --trust-pickle"
        )
    return "empty, truncated or another format"


class PolicyAgent(Agent):
    """Plays the policy's most likely legal action (or samples it, ``deterministic=False``).

    Reads only the observation and the mask, so it plays any seat of any player count the
    observation was laid out for; ``features`` (those the network was trained on) are
    computed from the observation and appended before the network runs. The policy is
    treated as frozen: a plain MLP policy is copied once into numpy arrays, because one
    observation at a time runs several times faster through numpy than through torch.
    """

    def __init__(
        self,
        policy: MaskableActorCriticPolicy,
        name: str = "policy",
        deterministic: bool = True,
        seed: int | None = None,
        features: ObservationFeatures | None = None,
        value_target: ValueTarget | None = None,
    ) -> None:
        super().__init__(seed)
        self.policy = policy.eval()
        self.name = name
        self.deterministic = deterministic
        input_size = int(policy.observation_space.shape[0])
        if features is not None and features.size != input_size:
            raise ValueError(
                f"the {name} policy reads {input_size} numbers, but the observation and the "
                f"features {list(features.names)} are {features.size}"
            )
        self.features = features
        self.obs_size = input_size if features is None else features.obs_size
        self.num_actions = int(policy.action_space.n)
        self.value_target = value_target
        self._layers = _numpy_layers(policy)
        self._value_layers = _numpy_layers(policy, critic=True)
        self._prior: tuple[slice, float] | None = None
        if isinstance(policy, PriorPolicy):
            self._prior = (slice(*policy.prior_slice), float(policy.prior.scale))

    @classmethod
    def load(
        cls,
        path: str | Path,
        encoding: Encoding | None = None,
        deterministic: bool = True,
        seed: int | None = None,
    ) -> PolicyAgent:
        """The agent of a policy file (see the module docstring); given the game's
        ``encoding``, a policy made for another game is a ValueError here, not mid-game."""
        policy, header = load_policy(path, encoding)
        features = None
        if header.features:
            named = None if encoding else game_named_in_files(header.game)
            game = encoding or (named.encoding if named else None)
            if game is None:
                raise ValueError(f"{path}: features {list(header.features)} of no known game")
            features = header.observation_features(game)
        return cls(
            policy,
            name=Path(path).stem,
            deterministic=deterministic,
            seed=seed,
            features=features,
            value_target=header.value,
        )

    @classmethod
    def load_trusted_sb3(
        cls, path: str | Path, deterministic: bool = True, seed: int | None = None
    ) -> PolicyAgent:
        """TRUSTED FILES ONLY: a Stable-Baselines3 ``.zip`` model (``MaskablePPO.save``) or
        ``.pt`` policy (``policy.save``). Both are pickles, and loading one runs any code
        it carries; never use this on a file from someone you do not trust."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"{path} is not a file")
        if path.suffix == ".zip":
            policy = MaskablePPO.load(path, device="cpu").policy
        else:
            policy = MaskableActorCriticPolicy.load(str(path), device="cpu")
        return cls(policy, name=path.stem, deterministic=deterministic, seed=seed)

    @classmethod
    def frozen_copy(
        cls,
        policy: MaskableActorCriticPolicy,
        name: str,
        features: ObservationFeatures | None = None,
    ) -> PolicyAgent:
        """A snapshot of a policy under training, unaffected by later updates."""
        snapshot = type(policy)(**policy._get_constructor_parameters())
        snapshot.load_state_dict(policy.state_dict())
        return cls(snapshot.to("cpu"), name=name, features=features)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The policy's action logits before masking, for one observation or a batch
        (observations along the first axis)."""
        x = self._network_input(observation)
        if self._layers is not None:
            logits = _forward(self._layers, x)
            if self._prior is not None:
                where, scale = self._prior
                logits = logits + scale * x[..., where]
            return logits
        policy = self.policy
        with torch.no_grad():
            obs = torch.as_tensor(x, device=policy.device)
            batch = obs if obs.ndim == 2 else obs[None]
            features = policy.extract_features(batch, policy.pi_features_extractor)
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent)
            if isinstance(policy, PriorPolicy):
                logits = logits + policy.prior_logits(batch)
            logits = logits.cpu().numpy()
        return logits if obs.ndim == 2 else logits[0]

    def compiled_twin(self, rules: Any) -> CompiledPlayer | None:
        """The compiled player of the prior's valuation, with the weights the file gives
        its feature, where the policy is that player: it plays its most likely action, and
        its network's output layer is zero (as policy iteration writes its generations), so
        its logits are the prior's, whose best action (the lowest id among equals) is the
        valuation's. The batched engine and the search players' rollouts then play it in
        compiled code, without a forward pass or the feature; None otherwise (and where
        the feature carries a learned residual)."""
        if not self.deterministic or self._prior is None or self._layers is None:
            return None
        weight, bias, _ = self._layers[-1]
        if weight.any() or bias.any():
            return None
        feature = self.policy.prior.feature
        if feature in self.features.residuals:  # a learned network no compiled player runs
            return None
        valuation = FEATURES[feature][self.features.game].valuation
        if valuation is None:  # a prior that no weighted player scores
            return None
        weights = self.features.weights.get(feature, valuation.defaults)
        player = valuation.player(weights, self.name)
        declared = getattr(player, "compiled_twin", None)  # the Mexican Train expert has none
        return None if declared is None else declared(rules)

    def value(self, observation: np.ndarray) -> np.ndarray | float:
        """The value head's prediction (see :attr:`value_target`) for one observation, or
        one per row of a batch; ValueError for a policy whose file names no value target."""
        if self.value_target is None:
            raise ValueError(
                f"the {self.name} policy has no value head: its file names no value target "
                "(formats 1 and 2 do not; save_policy's value names one)"
            )
        x = self._network_input(observation)
        if self._value_layers is not None:
            out = _forward(self._value_layers, x)
        else:
            with torch.no_grad():
                batch = torch.as_tensor(np.atleast_2d(x), device=self.policy.device)
                out = self.policy.predict_values(batch).cpu().numpy()
        values = out.reshape(-1)
        return values if np.ndim(observation) == 2 else float(values[0])

    def choose(self, observation: np.ndarray, legal: np.ndarray, view: EngineView | None) -> int:
        return self._decide(self.logits(observation)[legal], legal)

    def choose_explained(
        self, observation: np.ndarray, legal: np.ndarray, view: EngineView | None
    ) -> tuple[int, AgentView | None]:
        """:meth:`choose`'s action, with the probability of each legal move (the softmax
        of the legal logits) and, where the file has a value head, its value estimate."""
        legal_logits = self.logits(observation)[legal]
        value = None if self.value_target is None else float(self.value(observation))
        moves = tuple(
            MoveView(int(a), probability=float(p))
            for a, p in zip(legal, _softmax(legal_logits), strict=True)
        )
        return self._decide(legal_logits, legal), AgentView("policy", moves, value)

    def _decide(self, legal_logits: np.ndarray, legal: np.ndarray) -> int:
        """The most likely of ``legal`` by its logit (as :meth:`act_batch`: a softmax
        rounds logits closer than float precision to equal probabilities), or a draw."""
        if self.deterministic:
            return int(legal[int(np.argmax(legal_logits))])
        return int(self.rng.choice(legal, p=_softmax(legal_logits)))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row, as :meth:`act` decides (a batched opponent of
        ``spinner_env.batched.vector``); sampling adds Gumbel noise to the logits, which draws
        each legal action with its softmax probability."""
        masks = np.asarray(action_masks)
        if masks.ndim != 2 or masks.shape[1] != self.num_actions:
            raise ValueError(
                f"action masks must be rows of {self.num_actions} entries, got shape {masks.shape}"
            )
        logits = self.logits(observations)
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        return np.argmax(np.where(masks != 0, logits, -np.inf), axis=1)

    def _network_input(self, observation: np.ndarray) -> np.ndarray:
        """The observation (or batch) checked, then its features appended."""
        x = np.asarray(observation, dtype=np.float32)
        if x.ndim not in (1, 2) or x.shape[-1] != self.obs_size:
            raise ValueError(
                f"the {self.name} policy reads observations of {self.obs_size} numbers, "
                f"got an array of shape {x.shape}"
            )
        return x if self.features is None else self.features(x)


def _feature_names(features: Sequence[str] | ObservationFeatures | None) -> tuple[str, ...]:
    if features is None:
        return ()
    return features.names if isinstance(features, ObservationFeatures) else tuple(features)


def _softmax(logits: np.ndarray) -> np.ndarray:
    probabilities = np.exp(logits - logits.max())
    return probabilities / probabilities.sum()


def _forward(layers: list[tuple[Any, Any, Any]], x: np.ndarray) -> np.ndarray:
    for weight, bias, activation in layers:
        x = x @ weight.T + bias
        if activation is not None:
            x = activation(x)
    return x


def _widths(layers: torch.nn.Sequential) -> tuple[int, ...]:
    return tuple(m.out_features for m in layers if isinstance(m, torch.nn.Linear))


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _numpy_layers(
    policy: MaskableActorCriticPolicy, critic: bool = False
) -> list[tuple[Any, Any, Any]] | None:
    """The actor (or the ``critic``) of an MLP policy on flat observations as (weight,
    bias, activation) layers, or None when the policy is anything else (then torch runs
    it)."""
    extractor = policy.vf_features_extractor if critic else policy.pi_features_extractor
    if not isinstance(extractor, FlattenExtractor):
        return None
    numpy_of = {module: function for module, function in _ACTIVATIONS.values()}
    if critic:
        modules = [*policy.mlp_extractor.value_net, policy.value_net]
    else:
        modules = [*policy.mlp_extractor.policy_net, policy.action_net]
    layers: list[tuple[Any, Any, Any]] = []
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            weight = module.weight.detach().cpu().numpy().copy()
            bias = module.bias.detach().cpu().numpy().copy()
            layers.append((weight, bias, None))
        elif type(module) in numpy_of and layers and layers[-1][2] is None:
            weight, bias, _ = layers[-1]
            layers[-1] = (weight, bias, numpy_of[type(module)])
        else:
            return None
    return layers


def main(argv: Sequence[str] | None = None) -> None:
    """``convert``: rewrite a trusted Stable-Baselines3 file as a safe policy file."""
    parser = argparse.ArgumentParser(prog="spinner-policy", description=main.__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("convert", help="SB3 .zip/.pt (pickle) -> .safetensors")
    convert.add_argument("source", type=Path, help="the SB3 model file (.zip or .pt)")
    convert.add_argument("target", type=Path, help=f"the policy file to write ({SUFFIX})")
    convert.add_argument(
        "--game", required=True, choices=sorted(GAMES), help="the game the model plays"
    )
    convert.add_argument(
        "--features",
        nargs="+",
        default=[],
        metavar="NAME",
        help="the observation features the model was trained with (a config's features)",
    )
    convert.add_argument(
        "--trust-pickle",
        action="store_true",
        help="required: loading the source runs any code it carries",
    )
    args = parser.parse_args(argv)
    if not args.trust_pickle:
        parser.error("the source is a pickle, which can run code: pass --trust-pickle to trust it")
    if args.target.suffix != SUFFIX:
        parser.error(f"the target's name must end in {SUFFIX}")
    try:
        agent = PolicyAgent.load_trusted_sb3(args.source)
        save_policy(agent.policy, args.target, GAMES[args.game].encoding, args.features)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    print(f"wrote {args.target}")


if __name__ == "__main__":
    main()
