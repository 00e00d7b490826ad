"""Training (MaskablePPO self-play, ``spinner-train``), evaluation (``spinner-evaluate``) and best
response (``spinner-exploit``)."""
