"""The command line: `python build.py --help`, or `figsite-build --help` once the package is installed (both run
`main`). Options in, one `Settings` to the pipeline, one line out; bad input ends in one line and no traceback."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import click

from figsite.errors import BuildError

ROOT = Path(__file__).resolve().parents[1]  # the project: chapter.toml beside build.py


class OneLineError(click.ClickException):
    """Ends the build with one line and no traceback: bad input (exit code 2), a fault of the machine or the
    files around the build (1), a stop asked for (130 for Ctrl-C, 143 for SIGTERM)."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file=None):
        click.echo(f"error: {self.format_message()}", err=True)


def interrupted() -> OneLineError:
    """Ctrl-C or SIGTERM (what timeout, systemd and CI runners send): one line, the shell's exit code for it."""
    signum = INTERRUPTED[-1] if INTERRUPTED else signal.SIGINT
    if signum == signal.SIGTERM:
        return OneLineError("stopped (SIGTERM); the previous site is unchanged", 128 + signal.SIGTERM)
    return OneLineError("interrupted; the previous site is unchanged", 128 + signal.SIGINT)


INTERRUPTED = []  # set by the signal handler: libraries may turn the KeyboardInterrupt into errors of their own


def note_interrupt(signum, frame):
    INTERRUPTED.append(signum)
    raise KeyboardInterrupt


class Command(click.Command):
    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:  # click's own errors come with usage lines; keep the one that matters
            raise OneLineError(exc.format_message()) from None


@click.command(cls=Command)
@click.option(
    "--model",
    default="gpt2",
    show_default=True,
    metavar="ID_OR_DIR",
    help="A Hugging Face hub id, a directory written by save_pretrained, or 'random' "
    "(GPT-2 small's shape with seeded random weights; needs no network).",
)
@click.option("--revision", default=None, metavar="REV", help="The hub revision (branch, tag or commit) to load.")
@click.option(
    "--config",
    "config",
    type=click.Path(path_type=Path),
    default=ROOT / "chapter.toml",
    show_default="chapter.toml",
    help="The TOML file that lists the figures.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("site"),
    show_default=True,
    help="The folder the site is written to; replaced only once the new site is complete.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of --model random.")
@click.option(
    "--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True, help="Where the model runs."
)
@click.option("--rerun", is_flag=True, help="Run the model again even where the cache holds this run.")
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Where runs are cached  [default: $GPT2_FIGURES_CACHE, else ~/.cache/gpt2-chapter-figures].",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True, help="Say what each phase does and how long it takes.")
@click.option(
    "--watch",
    is_flag=True,
    help="After the build, build again whenever the config, a template, a static file or the code changes.",
)
@click.option(
    "--serve",
    "port",
    type=click.IntRange(0, 65535),
    is_flag=False,
    flag_value=8000,
    default=None,
    metavar="[PORT]",
    help="Watch, and serve the site on localhost at PORT (8000; 0: any free port), "
    "reloading open pages after each rebuild.",
)
@click.option(
    "--live",
    is_flag=True,
    help="Let each figure the model can compute take the reader's own text, the model running in the page; "
    "live.html lists them (needs ./setup.sh --live).",
)
@click.option(
    "--notebooks",
    is_flag=True,
    help="Write a notebook for each figure that offers one (notebooks/): it recomputes the figure with transformers "
    "and checks it against the page (as the config's [notebooks] table asks).",
)
@click.option(
    "--check-book",
    "book",
    type=click.Path(path_type=Path),
    default=None,
    metavar="FILE",
    help="Write no site: compare the figures printed in FILE with this run's (exit 0: all match, 1: any differs).",
)
def cli(quiet, verbose, watch, port, book, **options):
    """Runs the model (GPT-2 small by default) once over the chapter's texts and writes the figures' site into OUT."""
    if book is not None and (watch or port is not None):
        raise OneLineError(
            "--check-book: it writes no site, so there is nothing to watch or serve; allowed: "
            "--check-book FILE, or --watch / --serve [PORT]"
        )
    previous = {signum: signal.signal(signum, note_interrupt) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        from sitegen.pipeline import Progress, build_site

        progress = Progress(verbosity=0 if quiet else 2 if verbose else 1)
        settings = settings_of(**options)
        if book is not None:
            from sitegen.author.book import check_book

            raise click.exceptions.Exit(check_book(settings, book, progress))
        if watch or port is not None:
            from sitegen.author.watch import watch_site

            raise click.exceptions.Exit(watch_site(settings, progress.verbosity, port, lambda: bool(INTERRUPTED)))
        run = build_site(settings, progress)
    except click.exceptions.Exit:
        raise
    except BuildError as exc:
        raise OneLineError(str(exc), exc.exit_code) from None
    except KeyboardInterrupt:
        raise interrupted() from None
    except Exception:
        # A library can turn Ctrl-C into its own error (a lazy import can raise ModuleNotFoundError).
        if INTERRUPTED:
            raise interrupted() from None
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if not quiet:
        out = settings.out
        size = sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file())
        others = (
            f" and {progress.models - 1} other model{'s' if progress.models > 2 else ''}" if progress.models > 1 else ""
        )
        click.echo(
            f"wrote {out}/ ({size / 1e6:.1f} MB) from {len(run.texts)} text{'s' if len(run.texts) != 1 else ''} read by {run.model['name']}"
            f"{others}: {progress}"
        )


def settings_of(model, revision, config, out, seed, device, rerun, cache_dir, no_cache, live, notebooks):
    """The command's options as one Settings object (sitegen.pipeline), the cache's folder resolved."""
    from figsite.data import cache
    from sitegen.pipeline import Settings

    return Settings(
        config=config,
        model=model,
        revision=revision,
        out=out,
        seed=seed,
        device=device,
        cache_dir=None if no_cache else (cache_dir or cache.default_dir()),
        rerun=rerun,
        live=live,
        notebooks=notebooks,
    )


def end(code) -> None:
    """Ends the process at once. Every file is written and closed and the drawing process has ended by now;
    what Python would still do is tear down torch's modules, which takes a good part of a second and
    serves no one."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


def main() -> None:
    """Runs the command and ends the process (see `end`): build.py's and the figsite-build command's entry."""
    try:
        cli()
    except KeyboardInterrupt:  # Ctrl-C before the command began
        click.echo("error: interrupted; the previous site is unchanged", err=True)
        end(130)
    except SystemExit as done:  # click ends every run, good or bad, with SystemExit
        if isinstance(done.code, str):
            click.echo(done.code, err=True)
        end(done.code)
