"""Both games as OpenSpiel games: ``python_spinner`` and ``python_mexican_train``.

Importing this module (the ``[openspiel]`` extra: ``pip install "spinner-env[openspiel]"``)
registers both with ``pyspiel.register_game``; importing ``spinner_env`` alone never loads
pyspiel. ``pyspiel.load_game("python_spinner(players=4)")`` then works as for any game.

- **Parameters**: ``players`` (2 to 8) and the rules' variants: ``num_hands``,
  ``draw_until_playable``, ``shortened`` (Spinner); ``num_rounds``, ``double_blank_50``
  (Mexican Train). Defaults are the rules page's.
- **Chance nodes**: every tile dealt, one at a time, seat 0's hand first, then every tile
  drawn from the boneyard (the set's draws, S3.2, included): uniform over the tiles not yet
  dealt. Outcome ids are tile indices.
- **Player actions**: our environments' action ids (a policy trained there plays here
  unchanged); ``legal_actions()`` is our action mask. A draw is the player's action, then a
  chance node picks the tile.
- **Returns**: the match outcome of ``reward="match"``, zero-sum: a sole winner +1, every
  other seat -1/(n-1) (:func:`spinner_env.core.encoding.zero_sum_outcome`).
- **Observations**: ``observation_tensor`` and ``information_state_tensor`` are our
  encoder's observation of the seat (what the PettingZoo env shows); the strings are the
  text table the env renders for the seat, with its known voids.
- **Resampling**: ``resample_from_infostate`` deals the tiles the seat cannot see with the
  exact belief sampler (:class:`spinner_env.belief.Belief`), so OpenSpiel's Python
  ``ISMCTSBot`` plays both games.

The rules are the engines' (:mod:`spinner_env.games.spinner.rules`,
:mod:`spinner_env.games.mexican_train.rules`): a state holds an engine state and feeds
it the chance outcomes, dealing each hand through the engines' ``new(order=...)`` and
``start_next_hand(order=...)``. The S2.3 variant ``seeded_first_dealer`` is not offered:
seat 0 deals the first hand.

The information state is what the seat is shown now, not its whole history, so tabular
algorithms that assume perfect recall merge histories that show the same table. A
resampled state keeps the history of the state it was drawn from (OpenSpiel's history is
kept in C++, out of a Python game's reach): serializing it names the real deal.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from spinner_env.belief import Belief
from spinner_env.core.encoding import Encoding, zero_sum_outcome
from spinner_env.core.match import DRAW, Draw, MatchState
from spinner_env.core.tiles import Tile
from spinner_env.games import GAMES, GameSpec

GAME_NAMES: dict[str, str] = {name: f"python_{name}" for name in GAMES}
"""Our game's name -> its OpenSpiel short name (``python_spinner``)."""
UNOFFERED_VARIANTS = ("seeded_first_dealer",)

DEAL, SET_DRAW, DRAW_TILE, PLAY = "deal", "set_draw", "draw", "play"
"""The phases of a state: dealing a hand, drawing for the set (S3.2), the tile of a
player's draw, a player's decision."""


class IllegalActionError(pyspiel.SpielError, ValueError):
    """An action that is not legal in the state it was applied to (the state is unchanged)."""


@dataclasses.dataclass(frozen=True)
class _Definition:
    """What a game's states need of it; shared, never copied, by the states' clones."""

    spec: GameSpec
    rules: Any
    hand_tiles: tuple[tuple[Tile, ...], ...]
    """``hand_tiles[h]``: the tiles hand h deals, by tile index."""
    tiles: tuple[Tile, ...]

    @property
    def encoding(self) -> Encoding:
        return self.spec.encoding

    def __deepcopy__(self, memo: dict) -> _Definition:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, Any]]:
        # Pickled states (OpenSpiel pickles a Python state's attributes) name their game.
        return _definition, (self.spec.name, self.rules)


@functools.lru_cache(maxsize=64)
def _definition(game_name: str, rules: Any) -> _Definition:
    spec = GAMES[game_name]
    hand_tiles = tuple(
        tuple(spec.state_class.new(rules, seed=0, hand_number=h).hand_tiles())
        for h in range(rules.num_hands)
    )
    return _Definition(spec, rules, hand_tiles, spec.state_class.TILE.all_tiles())


class _Position:
    """A state's data: the engine's match and, while a hand is dealt, the tiles so far.

    While hand h > 0 is dealt, ``match`` is the finished hand h - 1 (it knows the totals and
    who deals next).
    """

    __slots__ = ("_beliefs", "_legal", "dealt", "match", "phase", "set_draws", "undealt")

    def __init__(self, hand_tiles: Sequence[Tile] = ()) -> None:
        self.match: MatchState | None = None
        self.phase = DEAL
        self.dealt: list[Tile] = []
        self.set_draws: list[Tile] = []
        self.undealt: dict[int, Tile] = {t.index: t for t in hand_tiles}
        """The tiles of the hand being dealt that are not dealt yet, by index."""
        self._beliefs: dict[int, Belief] = {}
        self._legal: list[int] | None = None

    def __deepcopy__(self, memo: dict) -> _Position:
        new = _Position()
        new.match = None if self.match is None else self.match.copy()
        new.phase = self.phase
        new.dealt = list(self.dealt)
        new.set_draws = list(self.set_draws)
        new.undealt = dict(self.undealt)
        return new

    def moved(self) -> None:
        """Forget what was worked out for the position before the move."""
        self._beliefs.clear()
        self._legal = None

    def legal(self, encoding: Encoding) -> list[int]:
        """The legal action ids of the seat to act, ascending."""
        if self._legal is None:
            self._legal = sorted(encoding.action_ids(self.match.legal_moves()))
        return self._legal

    def belief(self, player: int) -> Belief:
        """The belief sampler of ``player`` here, built once (ISMCTS resamples the same root)."""
        if player not in self._beliefs:
            self._beliefs[player] = Belief(self.match, player)
        return self._beliefs[player]


class DominoGame(pyspiel.Game):
    """One of our games as an OpenSpiel game (module docstring)."""

    def __init__(self, spec: GameSpec, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        num_players = params.pop("players", 2)
        rules = spec.rules_class(num_players=num_players, **params)
        self._definition = _definition(spec.name, rules)
        num_hands = rules.num_hands
        n = len(self._definition.tiles)
        # A hand places each tile once and draws each once; between two placements every
        # seat passes at most once before the hand is blocked.
        hand_length = 2 * n + (n + 1) * num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.encoding.num_actions,
            max_chance_outcomes=n,
            num_players=num_players,
            min_utility=-1.0 / (num_players - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=num_hands * (hand_length + n),
        )
        super().__init__(_game_type(spec), info, {"players": num_players, **params})

    def new_initial_state(self) -> DominoState:
        return DominoState(self, self._definition)

    def state_from(self, match: MatchState) -> DominoState:
        """A state at a decision of ``match`` (a copy of it, its hand in play), for bots
        asked to move in positions our engine reached (its OpenSpiel history is empty)."""
        definition = self._definition
        if not isinstance(match, definition.spec.state_class) or match.rules != definition.rules:
            raise ValueError(f"{match!r} is not a state of this game's rules {definition.rules}")
        if match.hand_over:
            raise ValueError("the match's hand is over: there is no decision to make")
        state = self.new_initial_state()
        state._position.match = match.copy()
        state._position.phase = PLAY
        return state

    def max_chance_nodes_in_history(self) -> int:
        return self._definition.rules.num_hands * len(self._definition.tiles) * 2

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> DominoObserver:
        return DominoObserver(self._definition, iig_obs_type, params)


class DominoState(pyspiel.State):
    """A match in progress: an engine state fed the chance outcomes (module docstring)."""

    def __init__(self, game: DominoGame, definition: _Definition) -> None:
        super().__init__(game)
        self._definition = definition
        self._position = _Position(definition.hand_tiles[0])

    # ---------------------------------------------------------------- reading
    @property
    def match(self) -> MatchState | None:
        """The engine's state of the match (None until the first hand is dealt); read only."""
        return self._position.match

    @property
    def phase(self) -> str:
        return self._position.phase

    def current_player(self) -> int:
        position = self._position
        if position.phase == PLAY:
            if position.match.match_over:
                return pyspiel.PlayerId.TERMINAL
            return position.match.current
        return pyspiel.PlayerId.CHANCE

    def is_terminal(self) -> bool:
        position = self._position
        return position.phase == PLAY and position.match.match_over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._definition.rules.num_players
        return zero_sum_outcome(self._position.match.totals)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._position.legal(self._definition.encoding))

    def _chance_tiles(self) -> dict[int, Tile]:
        """The tiles the chance node picks from, by index."""
        position = self._position
        if position.phase == DRAW_TILE:
            return {t.index: t for t in sorted(position.match.boneyard, key=lambda t: t.index)}
        return position.undealt

    def chance_outcomes(self) -> list[tuple[int, float]]:
        tiles = self._chance_tiles()
        probability = 1.0 / len(tiles)
        return [(index, probability) for index in tiles]

    # --------------------------------------------------------------- playing
    def _apply_action(self, action: int) -> None:
        position = self._position
        if position.phase == PLAY:
            self._play(action)
            return
        tiles = self._chance_tiles()
        tile = tiles.get(action)
        if tile is None:
            raise IllegalActionError(
                f"chance outcome {action} is not a tile left to {position.phase}; "
                f"outcomes: {list(tiles)}"
            )
        position.moved()
        if position.phase == DRAW_TILE:
            boneyard = position.match.boneyard
            boneyard.remove(tile)
            boneyard.insert(0, tile)  # draws take the top (MatchState.play_legal)
            position.match.play_legal(DRAW)
            position.phase = PLAY
            return
        del position.undealt[action]
        (position.dealt if position.phase == DEAL else position.set_draws).append(tile)
        rules = self._definition.rules
        if len(position.dealt) == rules.num_players * rules.hand_size:
            self._open_hand()

    def _play(self, action: int) -> None:
        position = self._position
        match = position.match
        encoding = self._definition.encoding
        if match.match_over:
            raise IllegalActionError(f"action {action} was applied after the match ended")
        legal = position.legal(encoding)
        if action not in legal:
            described = encoding.move_of(action) if 0 <= action < encoding.num_actions else None
            raise IllegalActionError(
                f"action {action} ({described}) is illegal for player {match.current}; "
                f"legal ids: {legal}"
            )
        move = encoding.move_of(action)
        position.moved()
        if isinstance(move, Draw):
            position.phase = DRAW_TILE
            return
        match.play_legal(move)
        if match.hand_over and not match.match_over:
            position.phase = DEAL
            position.undealt = {
                t.index: t for t in self._definition.hand_tiles[match.hand_number + 1]
            }

    def _open_hand(self) -> None:
        """Deal the hand to the engine once every hand is full; if the set (S3.2) takes
        more tiles than were drawn for it, the next chance node draws one more."""
        position = self._position
        drawn = position.set_draws
        rest = list(position.undealt.values())
        order = [*position.dealt, *drawn, *rest]
        if position.match is None:
            opened = self._definition.spec.state_class.new(
                self._definition.rules, seed=0, order=order
            )
        else:
            opened = position.match.copy()
            opened.start_next_hand(order)
        if len(drawn) + len(rest) - len(opened.boneyard) > len(drawn):
            position.phase = SET_DRAW
            return
        position.match = opened
        position.dealt = []
        position.set_draws = []
        position.undealt = {}
        position.phase = PLAY

    # ---------------------------------------------------------------- text
    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"tile {self._definition.tiles[action]}"
        return str(self._definition.encoding.move_of(action))

    def __str__(self) -> str:
        position = self._position
        lines = [f"phase: {position.phase}"]
        if position.phase in (DEAL, SET_DRAW):
            lines.append("dealt: " + " ".join(map(str, position.dealt)))
            lines.append("drawn for the set: " + " ".join(map(str, position.set_draws)))
        match = position.match
        if match is not None:
            lines.append(self._definition.spec.raw_env.renderer(match, None))
            lines += [f"player_{s}: {' '.join(map(str, h))}" for s, h in enumerate(match.hands)]
            lines.append("boneyard: " + " ".join(map(str, match.boneyard)))
        return "\n".join(lines)

    # ------------------------------------------------------------ resampling
    def resample_from_infostate(self, player: int, probability_sampler: Any) -> DominoState:
        """A state ``player`` cannot tell from this one, its unseen tiles dealt uniformly
        over every deal the public record allows (:class:`spinner_env.belief.Belief`);
        ``probability_sampler()`` (a number in [0, 1)) seeds the draw."""
        position = self._position
        if position.phase not in (PLAY, DRAW_TILE) or self.is_terminal():
            raise pyspiel.SpielError(
                f"resample_from_infostate needs a hand in play; the state is in {position.phase}"
            )
        rng = random.Random(int(probability_sampler() * 2**53))
        world = self.clone()
        world._position.match = position.belief(player).determinize(rng)
        return world


class DominoObserver:
    """Our encoder's observation as OpenSpiel's observer (the PyObserver interface)."""

    def __init__(
        self,
        definition: _Definition,
        iig_obs_type: pyspiel.IIGObservationType | None,
        params: Any,
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "only a seat's own view is observed (public and its private information)"
            )
        self._definition = definition
        self.tensor = np.zeros(definition.encoding.obs_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DominoState, player: int) -> None:
        match = state.match
        if match is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self._definition.encoding.observation(match, player)

    def string_from(self, state: DominoState, player: int) -> str:
        match = state.match
        if match is None:
            return f"player_{player}: the first hand is being dealt"
        voids = " ".join(
            f"player_{s}:{','.join(map(str, sorted(v)))}" for s, v in enumerate(match.voids) if v
        )
        table = self._definition.spec.raw_env.renderer(match, player)
        return f"player_{player} sees\n{table}\nvoids: {voids or '-'}"


def _game_type(spec: GameSpec) -> pyspiel.GameType:
    defaults = {
        f.name: f.default
        for f in dataclasses.fields(spec.rules_class)
        if f.name != "num_players" and f.name not in UNOFFERED_VARIANTS
    }
    return pyspiel.GameType(
        short_name=GAME_NAMES[spec.name],
        long_name=f"{spec.encoding.game_name} dominoes (spinner-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MatchState.MAX_PLAYERS,
        min_num_players=MatchState.MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={"players": 2, **defaults},
    )


def _game_class(spec: GameSpec) -> type[DominoGame]:
    """The OpenSpiel game class of ``spec``, named after its rules class
    (``SpinnerRules`` -> ``SpinnerGame``), built from its parameters alone as pyspiel asks."""

    def init(self: DominoGame, params: dict[str, Any] | None = None) -> None:
        DominoGame.__init__(self, spec, params)

    name = spec.class_prefix + "Game"
    namespace = {"__init__": init, "__doc__": f"``{GAME_NAMES[spec.name]}``."}
    return type(name, (DominoGame,), {**namespace, "__module__": __name__})


GAME_CLASSES: dict[str, type[DominoGame]] = {
    name: _game_class(spec) for name, spec in GAMES.items()
}
"""Each game's OpenSpiel game class by our game's name (``SpinnerGame``,
``MexicanTrainGame``: importable from this module by those names)."""
globals().update({cls.__name__: cls for cls in GAME_CLASSES.values()})

# pyspiel keeps the registered creator past the interpreter's end: a class (unlike a
# closure) is never freed then, which would need the GIL.
for _name, _game_class_of_name in GAME_CLASSES.items():
    _type = _game_type(GAMES[_name])
    if _type.short_name not in pyspiel.registered_names():
        pyspiel.register_game(_type, _game_class_of_name)

__all__ = [
    "GAME_CLASSES",
    "GAME_NAMES",
    "DominoGame",
    "DominoObserver",
    "DominoState",
    "IllegalActionError",
    *(cls.__name__ for cls in GAME_CLASSES.values()),
]
