"""What the tests share beyond conftest's fixtures: a static host (hosting.py), the sites built once for a whole run,
however many workers run it (shared.py)."""
