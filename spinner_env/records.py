"""Match records: a whole match as JSON, to keep, replay and look into.

A record (format :data:`FORMAT`, version :data:`VERSION`) holds the game, its rules and
variants, the deal seed, one entry per seat (the agent spec and name, or ``human``), and
per hand: the state the hand started from (the engine's ``to_dict``: every hand as
dealt, the boneyard in order, the forced opening), every move in order (the seat, the
action id, the move in words, the tile a draw took) and the hand's result. A decision
may carry what the acting agent saw (:class:`~spinner_env.core.agent.AgentView`: a
policy's probabilities and value, a search's per-move values and visits, a hand-written
player's scores). The match's totals close it; ``finished`` is false for a match left
unfinished (an abandoned web game), whose last hand may have no result yet.

:meth:`Record.from_dict` trusts nothing: it replays the record with the engine and
refuses it, naming the first thing that is wrong (a field, a version, an illegal move,
a draw that took another tile than the boneyard held, a later hand not dealt as the
seed deals it, a result or total the moves do not give). A record that loads therefore
replays to exactly the states it was written from (:meth:`Record.states`).

    {"format": "spinner-env match record", "version": 1, "game": "spinner",
     "rules": {"num_players": 2, "num_hands": 10, ...}, "seed": 7,
     "seats": [{"agent": "heuristic", "name": "heuristic"}, ...],
     "hands": [{"start": {...state...},
                "steps": [{"seat": 1, "action": 41, "move": "3-9 on 9 (opens 3)",
                           "view": {"kind": "scores", "moves": [{"action": 41, "score": 2.5}]}},
                          {"seat": 0, "action": 506, "move": "draw", "drew": "4-5"}, ...],
                "result": {"winner": 1, "points": [23, 0], "blocked": false}}, ...],
     "totals": [104, 61], "finished": true, "info": {"source": "spinner-evaluate"}}
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spinner_env.core.agent import AgentView
from spinner_env.core.match import Draw, MatchState
from spinner_env.files import write_text_atomic
from spinner_env.games import GameSpec, game_spec

FORMAT = "spinner-env match record"
VERSION = 1
MAX_RECORD_BYTES = 8 * 1024 * 1024
"""The largest record :func:`load_record` reads (a 10-hand 8-player match with views is
well under 1 MiB)."""


@dataclass(frozen=True)
class Seat:
    """Who played a seat: the spec it was built from (``human`` for a person) and its name."""

    agent: str
    name: str


@dataclass(frozen=True)
class Step:
    """One move: the seat, its action id and words; ``drew``: the tile a draw took."""

    seat: int
    action: int
    move: str
    drew: str | None = None
    view: AgentView | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "action": self.action, "move": self.move}
        if self.drew is not None:
            data["drew"] = self.drew
        if self.view is not None:
            data["view"] = self.view.to_dict()
        return data


@dataclass
class HandRecord:
    """One hand: the state it started from, its moves, and how it ended (None: unfinished)."""

    start: MatchState
    steps: list[Step] = field(default_factory=list)
    result: dict[str, Any] | None = None


@dataclass
class Record:
    """A match as recorded: see the module docstring for the format."""

    game: GameSpec
    seed: int
    seats: list[Seat]
    hands: list[HandRecord]
    totals: list[int]
    finished: bool
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def rules(self) -> dict[str, Any]:
        """The rules and variants, as the engine's state writes them."""
        return self.hands[0].start.to_dict()["rules"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game.name,
            "rules": self.rules,
            "seed": self.seed,
            "seats": [{"agent": s.agent, "name": s.name} for s in self.seats],
            "hands": [
                {
                    "start": hand.start.to_dict(),
                    "steps": [step.to_dict() for step in hand.steps],
                    "result": hand.result,
                }
                for hand in self.hands
            ],
            "totals": list(self.totals),
            "finished": self.finished,
            "info": dict(self.info),
        }

    def states(self, hand: int) -> list[MatchState]:
        """The states of hand ``hand`` (an index into :attr:`hands`): before each step, and
        after the last."""
        record = self.hands[hand]
        state = record.start.copy()
        states = [state.copy()]
        for step in record.steps:
            state.play_legal(self.game.encoding.move_of(step.action))
            states.append(state.copy())
        return states

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """The record ``data`` holds, checked by replaying it; ValueError naming the first
        thing that is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a match record is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise ValueError(
                f"not a match record: format is {data.get('format')!r}, not {FORMAT!r}"
            )
        version = data.get("version")
        if version != VERSION:
            raise ValueError(
                f"match record version {version!r} is not supported (this reads version {VERSION})"
            )
        for key in ("game", "rules", "seed", "seats", "hands", "totals", "finished"):
            if key not in data:
                raise ValueError(f"the match record has no {key!r}")
        game = game_spec(data["game"])
        seats = _seats(data["seats"])
        hands_data = data["hands"]
        if not isinstance(hands_data, list) or not hands_data:
            raise ValueError("hands must be a non-empty list of the hands played")
        if not isinstance(data["finished"], bool):
            raise ValueError("finished must be true or false")
        info = data.get("info", {})
        if not isinstance(info, dict):
            raise ValueError("info must be an object")
        hands: list[HandRecord] = []
        end: MatchState | None = None
        for h, hand_data in enumerate(hands_data):
            where = f"hands[{h}]"
            try:
                hand, end = _replay_hand(game, hand_data, end, data["rules"], where)
            except (KeyError, TypeError) as err:
                raise ValueError(f"{where}: missing or malformed field {err}") from None
            if end.num_players != len(seats):
                raise ValueError(f"{len(seats)} seats for a {end.num_players}-player match")
            if hand.result is None and h != len(hands_data) - 1:
                raise ValueError(f"{where} is unfinished but later hands follow")
            hands.append(hand)
        assert end is not None
        if data["totals"] != end.totals:
            raise ValueError(
                f"totals {data['totals']!r} are not what the hands add up to ({end.totals})"
            )
        if data["finished"] != end.match_over:
            said = "finished" if data["finished"] else "unfinished"
            raise ValueError(f"the record says the match is {said}, but its moves say otherwise")
        seed = data["seed"]
        if seed != hands[0].start.seed:
            raise ValueError(f"seed {seed!r} is not the seed the first hand was dealt from")
        return cls(game, seed, seats, hands, list(end.totals), data["finished"], info)


def _seats(data: Any) -> list[Seat]:
    if not isinstance(data, list) or not all(
        isinstance(s, dict) and isinstance(s.get("agent"), str) and isinstance(s.get("name"), str)
        for s in data
    ):
        raise ValueError('seats must be a list of {"agent": spec, "name": name}, one per seat')
    return [Seat(s["agent"], s["name"]) for s in data]


def _replay_hand(
    game: GameSpec, data: Any, previous: MatchState | None, rules: Any, where: str
) -> tuple[HandRecord, MatchState]:
    """One hand replayed from its start; the hand's record and the state it ended in."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be an object")
    try:
        start = game.raw_env.state_class.from_dict(data["start"])
    except ValueError as err:
        raise ValueError(f"{where}.start: {err}") from None
    if start.to_dict()["rules"] != rules:
        raise ValueError(f"{where}.start: its rules are not the record's rules")
    if previous is not None:
        dealt = previous.copy()
        dealt.start_next_hand()
        if dealt.to_dict() != start.to_dict():
            raise ValueError(
                f"{where}.start is not hand {dealt.hand_number} as the seed deals it after "
                "the hand before"
            )
    state = start.copy()
    steps_data = data["steps"]
    if not isinstance(steps_data, list):
        raise ValueError(f"{where}.steps must be a list")
    encoding = game.encoding
    steps = []
    for i, step_data in enumerate(steps_data):
        at = f"{where}.steps[{i}]"
        if not isinstance(step_data, dict) or set(step_data) - {
            "seat",
            "action",
            "move",
            "drew",
            "view",
        }:
            raise ValueError(f"{at} must be an object of seat, action, move (drew, view)")
        if state.hand_over:
            raise ValueError(f"{at}: the hand was already over")
        seat, action = step_data["seat"], step_data["action"]
        if not _is_int(seat) or seat != state.current:
            raise ValueError(f"{at}: seat {seat!r} moved, but player_{state.current} was to act")
        legal = encoding.action_ids(state.legal_moves())
        if not _is_int(action) or action not in legal:
            raise ValueError(f"{at}: action {action!r} is not legal for player_{seat} there")
        move = encoding.move_of(action)
        if step_data["move"] != str(move):
            raise ValueError(f"{at}: action {action} is {str(move)!r}, not {step_data['move']!r}")
        drew = step_data.get("drew")
        if isinstance(move, Draw) != (drew is not None):
            raise ValueError(f"{at}: 'drew' names the tile a draw took, and only a draw's")
        if drew is not None and drew != str(state.boneyard[0]):
            raise ValueError(
                f"{at}: drew {drew!r}, but the boneyard's top tile was {state.boneyard[0]}"
            )
        view = step_data.get("view")
        try:
            seen = None if view is None else AgentView.from_dict(view, legal)
        except ValueError as err:
            raise ValueError(f"{at}.view: {err}") from None
        state.play_legal(move)
        steps.append(Step(seat, action, str(move), drew, seen))
    result = data["result"]
    if state.hand_over:
        last = state.results[-1]
        expected = {"winner": last.winner, "points": list(last.points), "blocked": last.blocked}
        if result != expected:
            raise ValueError(f"{where}.result {result!r} is not how the moves end it ({expected})")
    elif result is not None:
        raise ValueError(f"{where}.result is given but the moves leave the hand in play")
    return HandRecord(start, steps, result), state


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Recorder:
    """Writes a record as a match is played: :meth:`played` after every move,
    :meth:`new_hand` after every ``start_next_hand``; :meth:`record` at any point."""

    def __init__(
        self,
        game: GameSpec,
        state: MatchState,
        seats: Sequence[Seat],
        info: dict[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.seats = list(seats)
        self.info = dict(info or {})
        self.hands = [HandRecord(state.copy())]
        self._state = state

    def played(
        self, state: MatchState, seat: int, move: Any, view: AgentView | None = None
    ) -> None:
        """``seat`` has just played ``move`` in ``state`` (the match's own state object)."""
        drew = str(state.hands[seat][-1]) if isinstance(move, Draw) else None
        action = self.game.encoding.action_of(move)
        hand = self.hands[-1]
        hand.steps.append(Step(seat, action, str(move), drew, view))
        if state.hand_over:
            last = state.results[-1]
            hand.result = {
                "winner": last.winner,
                "points": list(last.points),
                "blocked": last.blocked,
            }
        self._state = state

    def resume(self, record: Record, state: MatchState) -> None:
        """Carry on from ``record`` (a saved game's), whose moves must end in ``state``."""
        end = record.states(len(record.hands) - 1)[-1]
        if record.game.name != self.game.name or end.to_dict() != state.to_dict():
            raise ValueError("the saved match record does not end in the saved state")
        self.seats = list(record.seats)
        self.info = dict(record.info)
        self.hands = [HandRecord(h.start, list(h.steps), h.result) for h in record.hands]
        self._state = state

    def new_hand(self, state: MatchState) -> None:
        self.hands.append(HandRecord(state.copy()))
        self._state = state

    def record(self) -> Record:
        state = self._state
        return Record(
            self.game,
            self.hands[0].start.seed,
            list(self.seats),
            list(self.hands),
            list(state.totals),
            state.match_over,
            dict(self.info),
        )


def save_record(record: Record, path: str | os.PathLike[str]) -> None:
    """Write ``record`` to ``path`` as JSON, atomically."""
    write_text_atomic(path, json.dumps(record.to_dict(), separators=(",", ":")))


def parse_record(text: str | bytes) -> Record:
    """The record in ``text`` (JSON); ValueError naming what is wrong, a truncated file's
    included."""
    if len(text) > MAX_RECORD_BYTES:
        raise ValueError(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not a JSON match record (truncated or corrupt): {err}") from None
    except UnicodeDecodeError:
        raise ValueError("not a JSON match record: the bytes are not UTF-8") from None
    return Record.from_dict(data)


def load_record(path: str | os.PathLike[str]) -> Record:
    """The record in the file ``path``; ValueError if it is not one, or too large."""
    path = Path(path)
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{path} is larger than {MAX_RECORD_BYTES} bytes: not a match record")
    try:
        return parse_record(path.read_bytes())
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


__all__ = [
    "FORMAT",
    "MAX_RECORD_BYTES",
    "VERSION",
    "HandRecord",
    "Record",
    "Recorder",
    "Seat",
    "Step",
    "load_record",
    "parse_record",
    "save_record",
]
