"""Opens a config file: its name for messages and its TOML, each fault one line that says what is allowed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

from figsite.errors import BuildError


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """The config's file name (for messages) and its TOML (its tables as parsed, not yet checked), or a one-line
    error."""
    path = Path(path)
    source = path.name
    if path.is_dir():
        raise BuildError(
            f"--config: {path} is a folder; allowed: a TOML file with [[figure]] tables, such as "
            f"{path / 'chapter.toml'}"
        )
    if not path.is_file():
        raise BuildError(f"--config: {path} does not exist; allowed: a TOML file with [[figure]] tables")
    try:
        return source, tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BuildError(f"{source}: not valid TOML ({exc}); allowed: a TOML file with [[figure]] tables") from None
