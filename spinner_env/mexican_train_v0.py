"""Mexican Train's PettingZoo env under the name users import, ``spinner_env.mexican_train_v0``.

It is :mod:`spinner_env.games.mexican_train.env`, gathered here as PettingZoo's
``classic/connect_four_v3.py`` gathers its game's folder. A change to the observation, the
actions or the rules bumps the version.
"""

from spinner_env.games.mexican_train.env import *  # noqa: F403
from spinner_env.games.mexican_train.env import __all__  # noqa: F401
