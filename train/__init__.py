"""Training (MaskablePPO self-play, ``train.ppo``) and evaluation (``train.evaluate``)."""
