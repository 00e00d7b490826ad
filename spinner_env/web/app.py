"""The web game's JSON API and page (FastAPI).

Endpoints (every error is a 4xx whose ``detail`` says what was wrong; the game is left
as it was):

- ``GET /``: the page; ``GET /static/...``: its script and style.
- ``GET /api/options``: the games, what each calls a hand of its match (``hand_words``)
  and the agent names the page offers.
- ``POST /api/games`` ``{game, players, seat, opponents, seed?, hands?}``: a new game;
  the person sits at ``seat``, ``opponents`` fill the other seats in order (one name
  fills them all).
- ``GET /api/games/{id}?seat=``: the game as the person's seat sees it.
- ``POST /api/games/{id}/move`` ``{seat, action}``: play one of the legal moves (by its
  action id, as listed in ``legal``), then the agents' replies up to the person's next
  decision or the end of the hand.
- ``POST /api/games/{id}/next-hand`` ``{seat}``: deal the next hand once one is over.
- ``POST /api/games/{id}/analysis`` ``{seat, agent}``: what the agent ``agent`` (any
  ``make_agent`` spec the server allows) would play in the person's position, with its
  view of every legal move (probabilities, values or scores, as bars). Asked on a copy
  of the state by a fresh agent, so the game and its agents' randomness are untouched.

Replays (the records directory's match records, and uploaded ones):

- ``GET /api/records``: the records directory's files (name, bytes, modified).
- ``POST /api/records``: upload a record (the raw JSON body, at most
  ``max_upload_bytes``: 413 above); its id.
- ``GET /api/records/{id}``: a record's game, seats, totals and every hand's moves.
- ``GET /api/records/{id}/hands/{hand}/steps/{step}``: the table before move ``step`` of
  hand ``hand`` (``step`` = the hand's move count: after its last), every hand face up,
  and the acting seat's legal moves with the recorded agent's view as bars and the move
  played marked.

A state answer shows only what the seat may know (S2.5, M7): its own hand, every
seat's tile count and total, the boneyard's size, the public layout and log. The board
is the picture module's scene as SVG, so the page looks like ``render_mode="rgb_array"``.
Answers that include agents' moves carry ``steps``: each agent move with the board
after it, which the page shows one by one with a short delay. Answers are gzipped for
clients that accept it (browsers do).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from spinner_env.agents import BASELINES, make_agent
from spinner_env.core.agent import AgentView, choose_move_explained
from spinner_env.core.match import Draw, MatchState, Pass
from spinner_env.games import GAMES, GameSpec, default_game
from spinner_env.picture import table_scene, to_svg
from spinner_env.play import HUMAN, Table, seat_specs
from spinner_env.records import MAX_RECORD_BYTES, Record, save_record
from spinner_env.web.store import GameStore, RecordShelf, UnknownGameError, UnknownRecordError

STATIC = Path(__file__).parent / "static"


class NewGame(BaseModel):
    game: str = Field(default_factory=lambda: default_game().name)
    players: int = Field(2, ge=2, le=8)
    seat: int = Field(0, ge=0)
    opponents: list[str] = Field(default_factory=lambda: ["heuristic"], min_length=1)
    seed: int | None = Field(None, ge=0, lt=2**62)
    hands: int | None = Field(None, ge=1)


class MoveRequest(BaseModel):
    seat: int
    action: int


class SeatRequest(BaseModel):
    seat: int


class AnalysisRequest(BaseModel):
    seat: int
    agent: str = Field(min_length=1)


def create_app(
    data_dir: Path,
    max_games: int = 64,
    checkpoints: Sequence[str] = (),
    records_dir: Path | None = None,
    max_upload_bytes: int = MAX_RECORD_BYTES,
) -> FastAPI:
    """The app, holding at most ``max_games`` games, each kept in ``data_dir``.

    ``records_dir`` (default ``data_dir/records``) receives the match record of every game
    that finishes, and of every game dropped unfinished (abandoned), as ``{id}.json``; the
    replay viewer reads its records from there, and holds uploads of at most
    ``max_upload_bytes``.

    Opponents are agent names (``make_agent`` decides which exist); a checkpoint file is
    loaded only if it is one of ``checkpoints``, so a request cannot make the server read
    any file it names.
    """
    records = records_dir if records_dir is not None else data_dir / "records"
    records.mkdir(parents=True, exist_ok=True)

    def keep_record(game_id: str, table: Table) -> None:
        if any(hand.steps for hand in table.recorder.hands):
            save_record(table.record(), records / f"{game_id}.json")

    store = GameStore(data_dir, max_games, on_drop=keep_record)
    shelf = RecordShelf(records)
    agent_choices = [*BASELINES, "checkpoint", *checkpoints]
    app = FastAPI(title="spinner-env web game")
    # An answer carries an SVG board per agent move (30-70 kB each); gzip sends about an
    # eighth of that. zlib's default level: level 9 takes twice the time for 3% less.
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    app.state.store = store
    app.state.records_dir = records
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(RequestValidationError)
    async def readable_validation_error(request: Request, err: RequestValidationError):
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}" for e in err.errors()
        )
        return JSONResponse(status_code=422, content={"detail": problems})

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        hand_words = {name: game.hand_word for name, game in GAMES.items()}
        return {"games": list(GAMES), "hand_words": hand_words, "agents": agent_choices}

    @app.post("/api/games", status_code=201)
    def new_game(request: NewGame) -> dict[str, Any]:
        if request.game not in GAMES:
            raise HTTPException(422, f"unknown game {request.game!r}: one of {', '.join(GAMES)}")
        if request.seat >= request.players:
            raise HTTPException(422, f"seat must be from 0 to {request.players - 1}")
        for spec in request.opponents:
            _check_allowed(spec, checkpoints)
        seed = request.seed if request.seed is not None else secrets.randbelow(2**62)
        try:
            seats = seat_specs(request.players, [request.seat], request.opponents)
            table = Table.new(request.game, seats, seed, request.hands)
        except ValueError as err:
            raise HTTPException(422, str(err)) from None
        with store.lock:
            steps = _agents_play(table, request.seat)
            game_id = store.add(table)
            return _answer(game_id, table, request.seat, steps)

    @app.get("/api/games/{game_id}")
    def game_state(game_id: str, seat: int | None = None) -> dict[str, Any]:
        with store.lock:
            table = _table(store, game_id)
            return _state(game_id, table, _person(table, seat))

    @app.post("/api/games/{game_id}/move")
    def move(game_id: str, request: MoveRequest) -> dict[str, Any]:
        with store.lock:
            table = _table(store, game_id)
            seat = _person(table, request.seat)
            state = table.state
            if state.hand_over:
                raise HTTPException(409, "the hand is over: ask for the next hand")
            if state.current != seat:
                raise HTTPException(409, f"it is player_{state.current}'s turn, not seat {seat}'s")
            legal = {table.game.encoding.action_of(m): m for m in state.legal_moves()}
            if request.action not in legal:
                raise HTTPException(
                    422, f"action {request.action} is not a legal move now; legal: {sorted(legal)}"
                )
            table.play(legal[request.action])
            steps = _agents_play(table, seat)
            store.save(game_id)
            if table.state.match_over:
                keep_record(game_id, table)
            return _answer(game_id, table, seat, steps)

    @app.post("/api/games/{game_id}/next-hand")
    def next_hand(game_id: str, request: SeatRequest) -> dict[str, Any]:
        with store.lock:
            table = _table(store, game_id)
            seat = _person(table, request.seat)
            if not table.state.hand_over:
                raise HTTPException(409, "the hand is still in play")
            if table.state.match_over:
                raise HTTPException(409, "the match is over: start a new game")
            table.next_hand()
            steps = _agents_play(table, seat)
            store.save(game_id)
            if table.state.match_over:
                keep_record(game_id, table)
            return _answer(game_id, table, seat, steps)

    @app.post("/api/games/{game_id}/analysis")
    def analysis(game_id: str, request: AnalysisRequest) -> dict[str, Any]:
        with store.lock:
            table = _table(store, game_id)
            seat = _person(table, request.seat)
            state = table.state
            if state.hand_over or state.current != seat:
                raise HTTPException(409, "analysis is for your turn: it is not your move now")
            _check_allowed(request.agent, checkpoints)
            try:
                agent = make_agent(request.agent, seed=table.seed, encoding=table.game.encoding)
                agent.seed([table.seed, seat, len(table.log)])
                # A copy: an agent never changes its view, and this one cannot.
                move, view = choose_move_explained(agent, state.copy(), table.game.encoding)
            except ValueError as err:
                raise HTTPException(422, f"agent {request.agent!r}: {err}") from None
            action = table.game.encoding.action_of(move)
            return {
                "agent": agent.name,
                "move": {"action": action, "label": str(move)},
                "kind": None if view is None else view.kind,
                "value": None if view is None else view.value,
                "moves": _move_bars(table.game, state, view, action),
            }

    @app.get("/api/records")
    def record_listing() -> dict[str, Any]:
        return {"records": shelf.listing()}

    @app.post("/api/records", status_code=201)
    async def upload_record(request: Request) -> dict[str, Any]:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_upload_bytes:
            raise HTTPException(413, f"the record is larger than {max_upload_bytes} bytes")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_upload_bytes:
                raise HTTPException(413, f"the record is larger than {max_upload_bytes} bytes")
        try:
            record_id = shelf.upload(bytes(body))
        except ValueError as err:
            raise HTTPException(400, str(err)) from None
        return _record_summary(record_id, shelf.get(record_id))

    @app.get("/api/records/{record_id}")
    def open_record(record_id: str) -> dict[str, Any]:
        return _record_summary(record_id, _record(shelf, record_id))

    @app.get("/api/records/{record_id}/hands/{hand}/steps/{step}")
    def replay_step(record_id: str, hand: int, step: int) -> dict[str, Any]:
        record = _record(shelf, record_id)
        if not 0 <= hand < len(record.hands):
            raise HTTPException(404, f"hand must be from 0 to {len(record.hands) - 1}")
        steps = record.hands[hand].steps
        if not 0 <= step <= len(steps):
            raise HTTPException(404, f"step must be from 0 to {len(steps)} in hand {hand}")
        return _replay_frame(record, hand, step)

    return app


def _is_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or spec.endswith((".safetensors", ".pt", ".zip"))


def _check_allowed(spec: str, checkpoints: Sequence[str]) -> None:
    """422 for an agent spec naming a file the server was not started with."""
    if _is_path(spec) and spec not in checkpoints:
        raise HTTPException(
            422, f"agent {spec!r} is a file the server was not started with (--checkpoint)"
        )


def _record(shelf: RecordShelf, record_id: str) -> Record:
    """The record ``record_id`` names: 404 if there is none by that name in the records
    directory (or it lies outside it), 400 with the loader's message if it is no record."""
    try:
        return shelf.get(record_id)
    except UnknownRecordError:
        raise HTTPException(
            404, f"no record {record_id!r} in the records directory, nor an upload by that id"
        ) from None
    except ValueError as err:
        raise HTTPException(400, str(err)) from None


def _record_summary(record_id: str, record: Record) -> dict[str, Any]:
    return {
        "id": record_id,
        "game": record.game.name,
        "seats": [
            {"seat": s, "agent": seat.agent, "name": seat.name}
            for s, seat in enumerate(record.seats)
        ],
        "totals": list(record.totals),
        "finished": record.finished,
        "hands": [
            {"moves": [step.move for step in hand.steps], "result": hand.result}
            for hand in record.hands
        ],
    }


def _replay_frame(record: Record, hand: int, step: int) -> dict[str, Any]:
    """The table of ``record`` before move ``step`` of hand ``hand``: the board as the
    acting seat sees it, every hand face up (it is a replay), and the acting seat's legal
    moves with the recorded view's bars and the move played marked."""
    state = record.states(hand)[step]
    steps = record.hands[hand].steps
    played = steps[step] if step < len(steps) else None
    viewer = None if state.hand_over else state.current
    view = None if played is None else played.view
    return {
        "hand": hand,
        "step": step,
        "moves_in_hand": len(steps),
        "current": None if state.hand_over else state.current,
        "hand_over": state.hand_over,
        "totals": list(state.totals),
        "boneyard": len(state.boneyard),
        "hands": [[str(t) for t in tiles] for tiles in state.hands],
        "board": to_svg(table_scene(state, viewer, you=False)),
        "played": None
        if played is None
        else {
            "seat": played.seat,
            "action": played.action,
            "move": played.move,
            "drew": played.drew,
        },
        "kind": None if view is None else view.kind,
        "value": None if view is None else view.value,
        "moves": [] if played is None else _move_bars(record.game, state, view, played.action),
    }


NUMBERS = ("probability", "value", "visits", "score")
"""What an :class:`AgentView` may hold per move (``MoveView``'s numbers)."""


def _move_bars(
    game: GameSpec, state: MatchState, view: AgentView | None, chosen: int
) -> list[dict[str, Any]]:
    """Every legal move of ``state``: its action id and words, whether it is ``chosen``,
    the numbers ``view`` has for it (None where it has none) and its ``bar`` length in
    [0, 1] (:func:`_bar_lengths`)."""
    seen = {} if view is None else {m.action: m for m in view.moves}
    rows = []
    for move in state.legal_moves():
        action = game.encoding.action_of(move)
        numbers = seen.get(action)
        row = {"action": action, "label": str(move), "chosen": action == chosen}
        row |= {key: None if numbers is None else getattr(numbers, key) for key in NUMBERS}
        rows.append(row)
    bars = _bar_lengths(view, rows)
    for row, bar in zip(rows, bars, strict=True):
        row["bar"] = bar
    return rows


def _bar_lengths(view: AgentView | None, rows: list[dict[str, Any]]) -> list[float | None]:
    """The bar of each row in the view's own terms: a policy's probability as it is, a
    search's visits over the most visits (its values, when it counted no visits, and a
    hand-written player's scores, placed between the lowest and the highest: they may be
    negative). None for a move the view has no number for, and for every move without a
    view."""
    if view is None:
        return [None] * len(rows)
    if view.kind == "policy":
        return [row["probability"] for row in rows]
    key = "score" if view.kind == "scores" else "visits"
    if view.kind == "search" and all(row["visits"] is None for row in rows):
        key = "value"
    numbers = [row[key] for row in rows if row[key] is not None]
    low = 0.0 if key == "visits" else min(numbers, default=0.0)
    high = max(numbers, default=0.0)
    return [
        None if row[key] is None else 1.0 if high == low else (row[key] - low) / (high - low)
        for row in rows
    ]


def _table(store: GameStore, game_id: str) -> Table:
    try:
        return store.get(game_id)
    except UnknownGameError:
        raise HTTPException(404, f"no game {game_id!r}: it never existed or was dropped") from None


def _person(table: Table, seat: int | None) -> int:
    """The person's seat; 403 if ``seat`` is another (an agent's hand is not theirs)."""
    person = table.humans[0]
    if seat is not None and seat != person:
        if not 0 <= seat < len(table.seats):
            raise HTTPException(422, f"seat must be from 0 to {len(table.seats) - 1}, got {seat}")
        raise HTTPException(
            403, f"seat {seat} is played by {table.seats[seat]}; you sit at seat {person}"
        )
    return person


def _agents_play(table: Table, seat: int) -> list[dict[str, Any]]:
    """The agents' moves up to ``seat``'s next decision or the hand's end, each with the board."""
    steps = []
    while table.agent_to_act():
        table.play_agent()
        steps.append({"entry": table.log[-1], "board": _board(table, seat)})
    return steps


def _board(table: Table, seat: int) -> str:
    return to_svg(table_scene(table.state, seat))


def _answer(game_id: str, table: Table, seat: int, steps: list[dict[str, Any]]) -> dict[str, Any]:
    # The last agent move's board is the board now: drawn once.
    board = steps[-1]["board"] if steps else None
    return {"state": _state(game_id, table, seat, board), "steps": steps}


def _state(game_id: str, table: Table, seat: int, board: str | None = None) -> dict[str, Any]:
    """What ``seat`` may see of the game, and its legal moves when it is to act; ``board``
    is the seat's SVG when the caller has just drawn it."""
    state = table.state
    to_act = not state.hand_over and state.current == seat
    return {
        "id": game_id,
        "game": table.game.name,
        "you": seat,
        "seats": [
            {
                "seat": s,
                "player": "you" if spec == HUMAN else spec,
                "tiles": len(state.hands[s]),
                "total": state.totals[s],
            }
            for s, spec in enumerate(table.seats)
        ],
        "hand_number": state.hand_number,
        "num_hands": state.num_hands,
        "current": state.current,
        "to_act": to_act,
        "hand_over": state.hand_over,
        "match_over": state.match_over,
        "boneyard": len(state.boneyard),
        "hand": [str(t) for t in state.hands[seat]],
        "legal": [_move_json(table, m) for m in state.legal_moves()] if to_act else [],
        "results": [
            {
                "hand": r.hand_number,
                "winner": r.winner,
                "points": list(r.points),
                "blocked": r.blocked,
            }
            for r in state.results
        ],
        "winners": state.match_winners() if state.match_over else [],
        "log": list(table.log),
        "board": board if board is not None else _board(table, seat),
    }


def _move_json(table: Table, move: Any) -> dict[str, Any]:
    """A legal move as the page needs it: its action id, tile and target (the end value
    in Spinner, the train by seat or ``-1`` for the Mexican train), and its words."""
    action = table.game.encoding.action_of(move)
    if isinstance(move, Draw):
        return {"action": action, "kind": "draw", "label": "Draw"}
    if isinstance(move, Pass):
        return {"action": action, "kind": "pass", "label": "Pass"}
    place = {"action": action, "kind": "place", "tile": str(move.tile), "label": str(move)}
    return place | table.game.board().move_target(table.state, move)
