"""The web game: play Spinner or Mexican Train against agents in a browser (with an
agent's analysis of your moves if you ask), and replay match records.

    python -m spinner_env.web            # then open http://127.0.0.1:8000

:mod:`spinner_env.web.app` is the FastAPI app (page and JSON API),
:mod:`spinner_env.web.store` keeps the games in memory and on disk, and the records the
replay viewer opens.
"""

from spinner_env.web.app import create_app

__all__ = ["create_app"]
