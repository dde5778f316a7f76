"""The repository's tooling checks (tests/test_tooling.py): mypy's baseline."""
