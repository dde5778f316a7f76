"""Training and evaluation of learned agents (stable-baselines3, docs/training.md).

``config`` (the validated YAML configuration), ``envs`` (several scenarios behind
one env), ``train`` (``escaramuza train``), ``selfplay`` (a pool of frozen
snapshots as the opponent), ``evaluate`` and ``ratings`` (``escaramuza
evaluate``: win matrix, OpenSkill ratings, heat map), ``cli`` (the two
subcommands). The ``policy:PATH`` agent is ``escaramuza.agents.policy``.
"""
