"""--watch and --serve: build, then build again whenever the config, a template or a static file changes.

watchfiles (inotify on Linux) reports the changes. The config's folder and each folder of templates/ are
watched on their own, not recursively, so that the site written beside the config and its staging folders
cost nothing. A rebuild whose model and texts did not change comes from the build's cache. A rebuild that
fails prints the usual one-line error and the watch goes on: the output folder keeps the last good site (the
build swaps a site in only when it is whole). Ctrl-C or SIGTERM ends the watch with one line.
"""

from __future__ import annotations

import dataclasses
import os
import time
from contextlib import nullcontext
from pathlib import Path

import click
import watchfiles

from figsite.errors import BuildError
from figsite.pipeline import Progress, Settings, build_site
from figsite.site.render import TEMPLATES

# The pages' ES modules: the build never reads them, only the bundles `npm run bundle` writes from them (in
# templates/static/ and templates/live/, watched), so a change to a module calls for no rebuild until it is bundled.
MODULES = TEMPLATES / "js"


class Watched(watchfiles.DefaultFilter):
    """The changes that call for a rebuild: the config file, and any file under templates/ but its ES modules (editors'
    swap and backup files aside, as watchfiles leaves them out by default)."""

    def __init__(self, config: Path):
        super().__init__()
        self.config = config

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        path = Path(path)
        return super().__call__(change, str(path)) and (path == self.config or TEMPLATES in path.parents
                                                        and path != MODULES and MODULES not in path.parents)


def watched_folders(config: Path) -> list[Path]:
    """The folders to watch, each on its own: the config's, templates/ and each folder below it but the modules'."""
    below = sorted(p for p in TEMPLATES.rglob("*") if p.is_dir() and p != MODULES and MODULES not in p.parents)
    folders = [config.parent, TEMPLATES, *below]
    return list(dict.fromkeys(folders))


def shown(path: Path) -> str:
    """A path as the author would type it: relative to the working folder where it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def watch_site(settings: Settings, verbosity: int = 1, port: int | None = None, interrupted=lambda: False,
               changes=None) -> int:
    """Builds the site, then rebuilds it after each change until Ctrl-C or SIGTERM; returns the exit code (0).

    port: serve the site on localhost at this port (0: any free one) and reload open pages; None: don't serve.
    interrupted: whether a stop was asked for (a library may turn Ctrl-C into an error of its own).
    changes: the sets of changes to rebuild after (tests); default watchfiles over `watched_folders`.
    """
    from figsite.author import serve

    config = Path(settings.config).resolve()
    out = Path(settings.out).resolve()
    if not config.parent.is_dir():
        raise BuildError(f"--config: the folder {config.parent} does not exist; allowed: a TOML file in a folder "
                         "that exists, to watch")
    settings = dataclasses.replace(settings, config=config, out=out)
    state = serve.LiveState()
    say = (lambda line: click.echo(line)) if verbosity >= 1 else (lambda line: None)
    server = serve.Server(out, port, state, log=click.echo if verbosity >= 2 else None) if port is not None \
        else nullcontext()
    watched = [shown(config), shown(TEMPLATES) + os.sep]
    good = False
    try:
        with server:
            if port is not None:
                say(f"serving {shown(out)}{os.sep} at {server.url} (localhost only); open pages reload after "
                    "each rebuild")
            good = rebuild(settings, verbosity, state, interrupted) or good
            say(f"watching {' and '.join(watched)} for changes; Ctrl-C ends")
            if changes is None:
                changes = watchfiles.watch(*watched_folders(config), watch_filter=Watched(config), recursive=False,
                                           debounce=1_000, step=50)
            for changed in changes:
                names = sorted({shown(Path(path)) for _, path in changed})
                good = rebuild(settings, verbosity, state, interrupted, after=names) or good
    except KeyboardInterrupt:
        pass
    kept = f"{shown(out)}{os.sep} holds the last good site" if good or out.is_dir() else "no site was written"
    click.echo(f"stopped watching; {kept}", err=True)
    return 0


def rebuild(settings: Settings, verbosity: int, state, interrupted, after: list[str] | None = None) -> bool:
    """One build (after a change to the files `after` names): says how long it took, or prints its one-line
    error; True where it succeeded. Ctrl-C goes through."""
    progress = Progress(verbosity=verbosity)
    start = time.perf_counter()
    try:
        run = build_site(settings, progress)
    except BuildError as exc:
        line = f"error: {exc}"
    except Exception as exc:  # noqa: BLE001 - a rebuild that fails must not end the watch
        if interrupted():
            raise KeyboardInterrupt from None
        line = f"error: the build failed ({type(exc).__name__}: {' '.join(str(exc).split())}); the last good " \
               "site is kept"
    else:
        state.built()
        if verbosity >= 1:
            took = time.perf_counter() - start
            source = "from the cache" if "run" not in progress.phases else f"{run.model['name']} ran"
            what = f"rebuilt {shown(settings.out)}{os.sep} after a change to {', '.join(after)}" if after \
                else f"built {shown(settings.out)}{os.sep}"
            click.echo(f"{what} in {took:.2f} s ({source}: {progress})")
        return True
    click.echo(line, err=True)
    state.failed(line)
    return False
