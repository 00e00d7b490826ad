"""What every game and every layer above the games share, without PettingZoo.

- :mod:`~spinner_env.core.tiles`: the tile base class and tile parsing.
- :mod:`~spinner_env.core.match`: the match state every rules engine extends (hands,
  boneyard, turns, totals, draws and passes, validation, ``to_dict``/``from_dict``).
- :mod:`~spinner_env.core.encoding`: action ids and observation vectors (``Encoding``),
  the reward schemes, and the checks of seeds and action ids.
- :mod:`~spinner_env.core.game`: the record a game registers (``GameSpec``) and the
  compiled twins of players (``CompiledPlayer``).

The games (:mod:`spinner_env.games`) import the core; the core imports no game, no
agent and not PettingZoo.
"""
