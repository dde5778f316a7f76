"""Training and evaluation of learned agents (stable-baselines3)."""
