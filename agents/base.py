"""The agent interface under the name users import, ``spinner_env.agents.base``: it is
:mod:`spinner_env.core.agent`, below the games, so that each game's package can hold its
hand-written players."""

from spinner_env.core.agent import *  # noqa: F403
from spinner_env.core.agent import __all__  # noqa: F401
