"""Gymnasium and PettingZoo adapters over the engine (no rules live here)."""
