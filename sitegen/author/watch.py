"""--watch and --serve: build, then build again whenever the config, a template, a static file or a Python file
of the project (build.py, figures/, figsite/) changes.

watchfiles (inotify on Linux) reports the changes. The config's folder and each folder of templates/ and of the
code are watched on their own, not recursively, so that the site written beside the config and its staging
folders cost nothing. A rebuild whose model and texts did not change comes from the build's cache. A rebuild that
fails prints the usual one-line error and the watch goes on: the output folder keeps the last good site (the
build swaps a site in only when it is whole). Ctrl-C or SIGTERM ends the watch with one line.

A change to the code restarts the process (os.execv, the same command line), so that every module, and the
digest of the figures' code that keys the page cache, is the new code's: re-importing modules in place would
leave old classes and functions referenced. The new process serves on the same port and goes on counting the
builds, so that open pages keep polling and reload once it has rebuilt (RESTARTED carries both). Code that does
not import is one line, and the watch goes on with the code it has.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import click
import watchfiles

from figsite.errors import BuildError
from sitegen.pipeline import Progress, Settings, build_site
from sitegen.site.render import TEMPLATES

# The pages' ES modules: the build never reads them, only the bundles `npm run bundle` writes from them (in
# templates/static/ and templates/live/, watched), so a change to a module calls for no rebuild until it is bundled.
MODULES = TEMPLATES / "js"


ROOT = TEMPLATES.parent  # the project: build.py, figures/, figsite/
CODE = (
    ROOT / "figures",
    ROOT / "figsite",
    ROOT / "sitegen",
)  # the packages whose Python files a change to restarts the watch
RESTARTED = "GPT2_FIGURES_RESTARTED"  # set for the process a restart starts: {"port", "build", "after"}


def is_code(path: Path) -> bool:
    """Whether `path` is a Python file of the project: build.py, or one under figures/ or figsite/."""
    return path.suffix == ".py" and (path == ROOT / "build.py" or any(folder in path.parents for folder in CODE))


class Watched(watchfiles.DefaultFilter):
    """The changes that call for a rebuild: the config file, any file under templates/ but its ES modules, and a
    Python file of the project (editors' swap and backup files aside, as watchfiles leaves them out by default)."""

    def __init__(self, config: Path):
        super().__init__()
        self.config = config

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        path = Path(path)
        return super().__call__(change, str(path)) and (
            path == self.config
            or TEMPLATES in path.parents
            and path != MODULES
            and MODULES not in path.parents
            or is_code(path)
        )


def watched_folders(config: Path) -> list[Path]:
    """The folders to watch, each on its own: the config's, templates/ and each folder below it but the modules',
    the project's (build.py), and figures/, figsite/ and each package below them."""
    code = sorted(p for folder in CODE for p in (folder, *folder.rglob("*")) if p.is_dir() and p.name != "__pycache__")
    below = sorted(p for p in TEMPLATES.rglob("*") if p.is_dir() and p != MODULES and MODULES not in p.parents)
    folders = [config.parent, TEMPLATES, *below, ROOT, *code]
    return list(dict.fromkeys(folders))


def shown(path: Path) -> str:
    """A path as the author would type it: relative to the working folder where it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def watch_site(
    settings: Settings,
    verbosity: int = 1,
    port: int | None = None,
    interrupted=lambda: False,
    changes=None,
    restart=None,
) -> int:
    """Builds the site, then rebuilds it after each change until Ctrl-C or SIGTERM; returns the exit code (0).

    port: serve the site on localhost at this port (0: any free one) and reload open pages; None: don't serve.
    interrupted: whether a stop was asked for (a library may turn Ctrl-C into an error of its own).
    changes: the sets of changes to rebuild after (tests); default watchfiles over `watched_folders`.
    restart: called where the code changed, with the changed files' names, the port served (None: none) and the
    last build's number (tests); default restart_with_new_code, which does not return.
    """
    from sitegen.author import serve

    settings = resolved(settings)
    config, out = Path(settings.config), Path(settings.out)
    restarted = json.loads(os.environ.pop(RESTARTED, "{}"))  # where a change to the code restarted the watch
    state = serve.LiveState(restarted.get("build", 0))
    say = (lambda line: click.echo(line)) if verbosity >= 1 else (lambda line: None)
    port = restarted.get("port", port) if port is not None else None
    server = (
        serve.Server(out, port, state, log=click.echo if verbosity >= 2 else None)
        if port is not None
        else nullcontext()
    )
    watched = [shown(config), shown(TEMPLATES) + os.sep, "the code"]
    good, code_changed = False, None
    try:
        with server:
            if port is not None and not restarted:
                say(
                    f"serving {shown(out)}{os.sep} at {server.url} (localhost only); open pages reload after "
                    "each rebuild"
                )
            good = rebuild(settings, verbosity, state, interrupted, after=restarted.get("after")) or good
            if not restarted:
                say(f"watching {', '.join(watched[:-1])} and {watched[-1]} for changes; Ctrl-C ends")
            changes = file_changes(config) if changes is None else changes
            for changed in changes:
                names = sorted({shown(Path(path)) for _, path in changed})
                if any(is_code(Path(path)) for _, path in changed):
                    if (problem := code_problem(names)) is None:
                        code_changed = names
                        break
                    click.echo(problem, err=True)
                    state.failed(problem)
                    continue
                good = rebuild(settings, verbosity, state, interrupted, after=names) or good
    except KeyboardInterrupt:
        pass
    if code_changed is not None:  # the server has closed its port: the new process opens it again
        say(f"restarting with the new code after a change to {', '.join(code_changed)}")
        return (restart or restart_with_new_code)(code_changed, None if port is None else server.port, state.build)
    kept = f"{shown(out)}{os.sep} holds the last good site" if good or out.is_dir() else "no site was written"
    click.echo(f"stopped watching; {kept}", err=True)
    return 0


def file_changes(config: Path):
    """The sets of changes to the watched files (watched_folders, Watched), from the system's notifications
    (watchfiles), each set a second's changes together."""
    return watchfiles.watch(
        *watched_folders(config), watch_filter=Watched(config), recursive=False, debounce=1_000, step=50
    )


def resolved(settings: Settings) -> Settings:
    """The settings with the config and the output folder as absolute paths; the config's folder must exist, to
    watch."""
    config = Path(settings.config).resolve()
    out = Path(settings.out).resolve()
    if not config.parent.is_dir():
        raise BuildError(
            f"--config: the folder {config.parent} does not exist; allowed: a TOML file in a folder "
            "that exists, to watch"
        )
    return dataclasses.replace(settings, config=config, out=out)


def code_problem(changed: list[str]) -> str | None:
    """Where the project's code as it is now does not import, its error in one line; else None. Asked of a process
    of its own before the watch restarts into the new code, so that a typo in the middle of an edit does not end
    the watch."""
    check = subprocess.run(
        [sys.executable, "-c", "import build, sitegen.pipeline, sitegen.author.watch"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if check.returncode == 0:
        return None
    last = (check.stderr.strip().splitlines() or [f"exit code {check.returncode}"])[-1]
    return (
        f"error: after the change to {', '.join(changed)} the code does not import ({last}); the watch goes on "
        "with the code it had"
    )


def restart_with_new_code(after: list[str], port: int | None, build: int) -> int:
    """Starts the watch again in this process with the new code (os.execv): the same command line, serving on the
    same `port`, its builds counted on from `build` (RESTARTED tells the new process). Does not return."""
    os.environ[RESTARTED] = json.dumps({"port": port, "build": build, "after": after})
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


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
        line = (
            f"error: the build failed ({type(exc).__name__}: {' '.join(str(exc).split())}); the last good site is kept"
        )
    else:
        state.built()
        if verbosity >= 1:
            took = time.perf_counter() - start
            source = "from the cache" if "run" not in progress.phases else f"{run.model['name']} ran"
            what = (
                f"rebuilt {shown(settings.out)}{os.sep} after a change to {', '.join(after)}"
                if after
                else f"built {shown(settings.out)}{os.sep}"
            )
            click.echo(f"{what} in {took:.2f} s ({source}: {progress})")
        return True
    click.echo(line, err=True)
    state.failed(line)
    return False
