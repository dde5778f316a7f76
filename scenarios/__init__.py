"""Shipped encounter files (YAML), one folder per ruleset. Data only."""
