"""``expert``: each game's strongest hand-written player (:mod:`spinner_env.agents.heuristic`
has how one agent plays every game; the experts themselves are the games' own, such as
:mod:`spinner_env.games.spinner.expert`)."""

from __future__ import annotations

from spinner_env.agents.heuristic import HandWrittenAgent


class ExpertAgent(HandWrittenAgent):
    """Each game's hand-written expert: the heuristic's considerations and what the game's
    strong players add (counting what the other seats may hold)."""

    name = "expert"


__all__ = ["ExpertAgent"]
