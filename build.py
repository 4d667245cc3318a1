"""Builds the chapter's figure site: `python build.py --help`."""

from __future__ import annotations

from pathlib import Path

import click

from figsite.errors import BuildError

ROOT = Path(__file__).resolve().parent


class OneLineError(click.ClickException):
    """Bad input ends with one line naming what was wrong and what is allowed, exit code 2, no traceback."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"error: {self.format_message()}", err=True)


class Command(click.Command):
    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:  # click's own errors come with usage lines; keep the one that matters
            raise OneLineError(exc.format_message()) from None


@click.command(cls=Command)
@click.option("--model", default="gpt2", show_default=True, metavar="ID_OR_DIR",
              help="A Hugging Face hub id, a directory written by save_pretrained, or 'random' "
                   "(GPT-2 small's shape with seeded random weights; needs no network).")
@click.option("--revision", default=None, metavar="REV", help="The hub revision (branch, tag or commit) to load.")
@click.option("--config", "config", type=click.Path(path_type=Path), default=ROOT / "chapter.toml",
              show_default="chapter.toml", help="The TOML file that lists the figures.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("site"), show_default=True,
              help="The folder the site is written to; replaced only once the new site is complete.")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of --model random.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="Where the model runs.")
def cli(model, revision, config, out, seed, device):
    """Runs GPT-2 once over the chapter's texts and writes the figures' site into OUT."""
    from figsite.pipeline import Timings, build_site

    timings = Timings()
    try:
        run = build_site(config, model, revision, out, seed, device, timings)
    except BuildError as exc:
        raise OneLineError(str(exc)) from None
    except KeyboardInterrupt:
        raise OneLineError("interrupted; the previous site is unchanged") from None
    size = sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file())
    click.echo(f"wrote {out}/ ({size / 1e6:.1f} MB) from {len(run.texts)} texts read once by {run.model['name']}: "
               f"{timings}")


if __name__ == "__main__":
    cli()
