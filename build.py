"""Builds the chapter's figure site: `python build.py --help` (the command itself: sitegen.cli)."""

from sitegen.cli import cli, main

__all__ = ["cli", "main"]

if __name__ == "__main__":
    main()
