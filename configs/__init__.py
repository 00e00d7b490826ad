"""The training configs, shipped with the package as ``spinner_env.configs`` so that a
command run outside a checkout finds them by name (``spinner-train --config quick``;
``spinner_env.train.config.config_path``)."""
