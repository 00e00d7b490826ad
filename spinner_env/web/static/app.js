// The web game's page: draws the server's answers and sends the person's moves.
// The board is SVG made by the server (spinner_env/picture.py); this script only marks
// which hand tiles can move and where the chosen one may go, and plays agents' moves
// back one by one with a short delay. ?delay=MS in the address changes the delay.
// The replay viewer steps through a match record (the server replays it and draws each
// decision); analysis asks an agent what it would play in the person's position.
"use strict";

const params = new URLSearchParams(location.search);
const AGENT_DELAY_MS = Number(params.get("delay") ?? 450);
const $ = (id) => document.getElementById(id);

let game = null;      // the last state the server sent
let selected = null;  // the hand tile chosen, as "a-b"
let busy = false;     // while a request runs or agents' moves are being shown
let handWords = {};   // what each game calls a hand of its match ("round" in Mexican Train)

const handWord = (gameName) => handWords[gameName] ?? "hand";
const capitalized = (word) => word[0].toUpperCase() + word.slice(1);

// body[data-busy] tells anyone watching the page (the browser test) when it settles.
function setBusy(value) {
  busy = value;
  document.body.dataset.busy = value;
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.detail || response.statusText);
  return data;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --------------------------------------------------------------- the set-up form
function opponentInputs() {
  const players = Math.min(8, Math.max(2, Number($("players").value) || 2));
  $("seat").max = players - 1;
  const holder = $("opponents");
  const old = [...holder.querySelectorAll("input")].map((i) => i.value);
  holder.replaceChildren();
  for (let k = 0; k < players - 1; k++) {
    const input = document.createElement("input");
    input.className = "opponent";
    input.setAttribute("list", "agent-names");
    input.value = old[k] ?? "heuristic";
    input.title = "an agent: random, greedy, heuristic, checkpoint, or a checkpoint path";
    holder.append(input);
  }
}

// The set-up form's words follow the game chosen: Mexican Train plays rounds.
function setUpWords() {
  $("hands-word").textContent = `${capitalized(handWord($("game-choice").value))}s`;
}

async function startGame(event) {
  event?.preventDefault();
  if (game && !game.match_over && !confirm("Leave this game and deal a new one?")) return;
  const number = (id) => ($(id).value === "" ? null : Number($(id).value));
  const body = {
    game: $("game-choice").value,
    players: number("players"),
    seat: number("seat"),
    opponents: [...$("opponents").querySelectorAll("input")].map((i) => i.value.trim()),
    seed: number("seed"),
    hands: number("hands"),
  };
  $("turn").textContent = "Dealing...";
  await request(() => api("POST", "/api/games", body));
}

// What the status line says of a state; after a refused request it says it again.
function statusText(state) {
  if (!state) return "Start a new game";
  return state.match_over ? "Match over"
    : state.hand_over ? `${capitalized(handWord(state.game))} over`
    : state.to_act ? "Your turn" : `player_${state.current} to act`;
}

// ------------------------------------------------------------------ the game
async function request(call) {
  if (busy) return;
  setBusy(true);
  showError("");
  try {
    const answer = await call();
    await showSteps(answer.steps ?? []);
    show(answer.state ?? answer);
  } catch (err) {
    $("turn").textContent = statusText(game);
    showError(err.message);
  } finally {
    setBusy(false);
  }
}

async function showSteps(steps) {
  for (const step of steps) {
    $("turn").textContent = step.entry.split(":")[0] + " is playing...";
    await sleep(AGENT_DELAY_MS);
    $("board").innerHTML = step.board;
    appendLog(step.entry);
  }
}

function appendLog(entry) {
  const item = document.createElement("li");
  item.textContent = entry;
  $("log").append(item);
  $("log").scrollTop = $("log").scrollHeight;
}

function show(state) {
  game = state;
  selected = null;
  $("replay-view").hidden = true;  // a game started from the replay viewer shows at once
  $("game-view").hidden = false;
  history.replaceState(null, "", `${location.pathname}${location.search}#game=${state.id}`);
  $("board").innerHTML = state.board;
  $("log").replaceChildren();
  state.log.forEach(appendLog);
  $("boneyard").textContent = state.boneyard;
  const rows = state.seats.map((s) => {
    const row = document.createElement("tr");
    row.dataset.seat = s.seat;
    if (s.seat === state.current && !state.hand_over) row.className = "acting";
    for (const text of [`player_${s.seat}`, s.player, s.tiles, s.total]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  });
  $("scores").tBodies[0].replaceChildren(...rows);
  $("turn").textContent = statusText(state);
  const kinds = new Set(state.legal.map((m) => m.kind));
  $("draw").hidden = !kinds.has("draw");
  $("pass").hidden = !kinds.has("pass");
  $("choice").hidden = true;
  showEnding(state);
  markMovable();
  analyse();
  if (state.match_over) listRecords().catch((err) => showError(err.message));  // its record is new
}

function showEnding(state) {
  const last = state.results[state.results.length - 1];
  $("hand-over").hidden = !state.hand_over || state.match_over;
  $("match-over").hidden = !state.match_over;
  if (!state.hand_over) return;
  const word = handWord(state.game);
  const how = last.blocked ? `the ${word} was blocked` : "went out";
  const points = last.points.map((p, s) => `player_${s} +${p}`).join(", ");
  $("hand-over-title").textContent = `player_${last.winner} wins the ${word} (${how})`;
  $("next-hand").textContent = `Next ${word}`;
  $("hand-over-points").textContent = `Points: ${points}`;
  const winners = state.winners.map((s) => (s === state.you ? "you" : `player_${s}`));
  $("match-over-text").textContent =
    `Winner: ${winners.join(", ")}. Totals: ` +
    state.seats.map((s) => `player_${s.seat} ${s.total}`).join(", ");
}

// ------------------------------------------------------- choosing a placement
const placements = () => (game?.legal ?? []).filter((m) => m.kind === "place");
const targetSelector = (target) => game.game === "spinner"
  ? `.end[data-end="${target}"]` : `.train-end[data-train="${target}"]`;

function markMovable() {
  const movable = new Set(placements().map((m) => m.tile));
  for (const tile of $("board").querySelectorAll(".hand-tile")) {
    tile.classList.toggle("movable", movable.has(tile.dataset.tile));
    tile.classList.toggle("selected", tile.dataset.tile === selected);
  }
  for (const old of $("board").querySelectorAll(".target")) old.classList.remove("target");
  if (selected === null) return;
  for (const move of placements().filter((m) => m.tile === selected)) {
    $("board").querySelector(targetSelector(move.target))?.classList.add("target");
  }
}

function onBoardClick(event) {
  if (busy || !game?.to_act) return;
  const tile = event.target.closest(".hand-tile.movable");
  if (tile) {
    selected = tile.dataset.tile === selected ? null : tile.dataset.tile;
    $("choice").hidden = true;
    markMovable();
    return;
  }
  const target = event.target.closest(".target");
  if (!target || selected === null) return;
  const key = target.dataset.end ?? target.dataset.train;
  const moves = placements().filter((m) => m.tile === selected && m.target === key);
  if (moves.length === 1) play(moves[0].action);
  else if (moves.length > 1) offerChoice(moves);
}

// S4.3: a tile that fits an end either way: the person picks the end left open.
function offerChoice(moves) {
  const holder = $("choice");
  holder.replaceChildren();
  const text = document.createElement("span");
  text.textContent = `${selected}: leave open`;
  holder.append(text);
  for (const move of moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "opens";
    button.dataset.action = move.action;
    button.textContent = move.opens;
    button.title = move.label;
    button.addEventListener("click", () => play(move.action));
    holder.append(button);
  }
  holder.hidden = false;
}

function play(action) {
  const body = { seat: game.you, action };
  return request(() => api("POST", `/api/games/${game.id}/move`, body));
}

function playKind(kind) {
  const move = game?.legal.find((m) => m.kind === kind);
  if (move && !busy) play(move.action);
}

// --------------------------------------------------------- bars of the moves
// One row per legal move: its words, a bar (the server's length in [0, 1]) and the
// agent's number for it; the move played (or the agent's choice) marked.
function numberText(move) {
  if (move.probability !== null) return move.probability.toFixed(3);
  if (move.visits !== null) return `${move.visits} visits`;
  if (move.value !== null) return move.value.toFixed(3);
  if (move.score !== null) return move.score.toFixed(1);
  return "";
}

// What the numbers beside the bars are, in words (the same choice as numberText's).
function numbersMeaning(kind, moves) {
  if (kind === "policy") return "the chance its policy gives each move";
  if (kind === "search") {
    return moves.some((m) => m.visits !== null)
      ? "how many times its search tried each move"
      : "each move's mean result in its search's play-outs (higher is better)";
  }
  if (kind === "scores") return "its rule-of-thumb score of each move (it plays the highest)";
  return null;
}

// The position's value, where the view has one, in words.
function valueMeaning(kind, value) {
  if (value === null) return "";
  const what = kind === "search" ? "mean result of the move it chose"
    : "its estimate of what the position is worth to the seat to act";
  return `; ${what}: ${value.toFixed(3)}`;
}

function showBars(holder, moves) {
  holder.replaceChildren(...moves.map((move) => {
    const row = document.createElement("li");
    row.dataset.action = move.action;
    if (move.bar !== null) row.dataset.bar = move.bar;
    row.classList.toggle("chosen", move.chosen);
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = move.label;
    const track = document.createElement("span");
    track.className = "track";
    const fill = document.createElement("span");
    fill.className = "fill";
    fill.style.width = `${Math.round(100 * (move.bar ?? 0))}%`;
    track.append(fill);
    const number = document.createElement("span");
    number.className = "number";
    number.textContent = numberText(move);
    row.append(label, track, number);
    return row;
  }));
}

// ----------------------------------------------------------------- analysis
// Off unless the box is ticked; asked afresh at each of the person's turns and whenever
// the agent's name changes (Enter or leaving its box).
async function analyse() {
  const agent = $("analysis-agent").value.trim();  // blank while the person retypes it
  const on = $("analysis-on").checked && game?.to_act && agent !== "";
  $("analysis").hidden = !on;
  if (!on) return;
  const body = { seat: game.you, agent };
  try {
    const seen = await api("POST", `/api/games/${game.id}/analysis`, body);
    const meaning = numbersMeaning(seen.kind, seen.moves);
    $("analysis-title").textContent = `${seen.agent} would play ${seen.move.label}`;
    $("analysis-numbers").textContent = meaning
      ? `Numbers: ${meaning}${valueMeaning(seen.kind, seen.value)}.`
      : `${seen.agent} shows no numbers for its moves.`;
    showBars($("analysis-bars"), seen.moves);
  } catch (err) {
    $("analysis").hidden = true;
    showError(err.message);
  }
}

// ------------------------------------------------------------------- replay
let replay = null;  // {record: the record's summary, hand, step}

async function listRecords() {
  const { records } = await api("GET", "/api/records");
  const choice = $("record-choice");
  choice.options[0].textContent = records.length ? "(choose a record)" : "(no records yet)";
  choice.replaceChildren(choice.options[0], ...records.map((r) => {
    const option = document.createElement("option");
    option.value = r.name;
    option.textContent = `${r.name} (${Math.ceil(r.bytes / 1024)} kB)`;
    return option;
  }));
}

async function replayCall(call) {
  if (busy) return;
  setBusy(true);
  showError("");
  try {
    await call();
  } catch (err) {
    showError(err.message);
  } finally {
    setBusy(false);
  }
}

async function openReplay(record) {
  replay = { record, hand: 0, step: 0 };
  $("replay-hand").replaceChildren(...record.hands.map((hand, h) => {
    const option = document.createElement("option");
    option.value = h;
    option.textContent = `${h + 1} (${hand.moves.length} moves)`;
    return option;
  }));
  $("replay-hand-word").textContent = capitalized(handWord(record.game));
  const players = record.seats.map((s) => `player_${s.seat}: ${s.name}`).join(", ");
  $("replay-title").textContent = `${record.game}: ${players}`;
  $("game-view").hidden = true;
  $("replay-view").hidden = false;
  history.replaceState(null, "", `${location.pathname}${location.search}#replay=${record.id}`);
  await showFrame();
}

async function showFrame() {
  const { record, hand, step } = replay;
  const frame = await api("GET", `/api/records/${encodeURIComponent(record.id)}/hands/${hand}/steps/${step}`);
  $("replay-board").innerHTML = frame.board;
  $("replay-hand").value = hand;
  $("replay-position").textContent = `move ${step} of ${frame.moves_in_hand}`;
  $("replay-move").textContent = frame.played
    ? `player_${frame.played.seat} plays ${frame.played.move}` +
      (frame.played.drew ? ` (draws ${frame.played.drew})` : "")
    : `End of the ${handWord(record.game)}`;
  // At the hand's end no one is to move: no moves to list.
  $("replay-moves").hidden = !frame.played;
  const name = frame.played ? record.seats[frame.played.seat].name : "";
  const meaning = numbersMeaning(frame.kind, frame.moves);
  $("replay-view-kind").textContent = !frame.played ? ""
    : meaning ? `${name}'s numbers: ${meaning}${valueMeaning(frame.kind, frame.value)}.`
    : "no view recorded for this move";
  showBars($("replay-bars"), frame.moves);
  $("replay-hands").tBodies[0].replaceChildren(...frame.hands.map((tiles, seat) => {
    const row = document.createElement("tr");
    row.dataset.seat = seat;
    row.classList.toggle("acting", seat === frame.current);
    for (const text of [`player_${seat}`, tiles.join(" ")]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  }));
}

// Step within the hand, on into the next hand past its end and back into the last.
function stepReplay(delta) {
  const { record } = replay;
  let { hand, step } = replay;
  step += delta;
  if (step < 0 && hand > 0) {
    hand -= 1;
    step = record.hands[hand].moves.length;
  } else if (step > record.hands[hand].moves.length && hand < record.hands.length - 1) {
    hand += 1;
    step = 0;
  }
  step = Math.max(0, Math.min(step, record.hands[hand].moves.length));
  replay = { record, hand, step };
  return replayCall(showFrame);
}

function jumpReplay(hand, step) {
  replay = { ...replay, hand, step };
  return replayCall(showFrame);
}

function openChosenRecord(event) {
  event.preventDefault();
  const name = $("record-choice").value;
  if (name) {
    replayCall(async () => openReplay(await api("GET", `/api/records/${encodeURIComponent(name)}`)));
  } else if ($("record-choice").options.length > 1) {
    showError("Choose a record in the Replay list first, or upload one.");
  } else {
    showError("No records yet: a game's record is kept here once it finishes " +
      "(the server's --records-dir). Finish a game, or upload a record.");
  }
}

async function uploadRecord() {
  const file = $("record-file").files[0];
  if (!file) return;
  await replayCall(async () => {
    const response = await fetch("/api/records", { method: "POST", body: file });
    const data = await response.json();
    if (!response.ok) throw new Error(data.detail || response.statusText);
    await openReplay(data);
  });
  $("record-file").value = "";
}

// ---------------------------------------------------------------------- start
async function init() {
  $("players").addEventListener("change", opponentInputs);
  $("game-choice").addEventListener("change", setUpWords);
  $("new-game").addEventListener("submit", startGame);
  $("board").addEventListener("click", onBoardClick);
  $("draw").addEventListener("click", () => playKind("draw"));
  $("pass").addEventListener("click", () => playKind("pass"));
  $("next-hand").addEventListener("click", () => request(
    () => api("POST", `/api/games/${game.id}/next-hand`, { seat: game.you })));
  $("play-again").addEventListener("click", startGame);
  $("analysis-on").addEventListener("change", analyse);
  $("analysis-agent").addEventListener("change", analyse);
  $("replay-form").addEventListener("submit", openChosenRecord);
  $("record-file").addEventListener("change", uploadRecord);
  $("replay-prev").addEventListener("click", () => stepReplay(-1));
  $("replay-next").addEventListener("click", () => stepReplay(1));
  $("replay-first").addEventListener("click", () => jumpReplay(replay.hand, 0));
  $("replay-last").addEventListener("click",
    () => jumpReplay(replay.hand, replay.record.hands[replay.hand].moves.length));
  $("replay-hand").addEventListener("change", () => jumpReplay(Number($("replay-hand").value), 0));
  $("replay-close").addEventListener("click", () => {
    $("replay-view").hidden = true;
    $("game-view").hidden = false;
    history.replaceState(null, "", game ? `#game=${game.id}` : location.pathname + location.search);
  });
  opponentInputs();
  const options = await api("GET", "/api/options");
  handWords = options.hand_words;
  setUpWords();
  $("agent-names").replaceChildren(...options.agents.map((name) => {
    const option = document.createElement("option");
    option.value = name;
    return option;
  }));
  await listRecords();
  const saved = /game=([0-9a-f]{16})/.exec(location.hash);
  if (saved) await request(() => api("GET", `/api/games/${saved[1]}`));
  const replayed = /replay=([A-Za-z0-9._-]+)/.exec(location.hash);
  if (replayed) {
    await replayCall(async () => openReplay(await api("GET", `/api/records/${replayed[1]}`)));
  }
}

init().catch((err) => showError(err.message));
