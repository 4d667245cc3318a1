"""The site's outputs are writers (sitegen/site/writers.py): each owns its files, none sets anything on a page, and
a new output (a print edition) is one writer appended to WRITERS, leaving every other file as it was."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import SMALL_CONFIG, built, snapshot

from sitegen import pipeline
from figsite.config import load_config
from figsite.data.run import Run
from sitegen.site import writers
from sitegen.site.render import Page, ShownPage
from figures import KINDS

MODEL = {
    "name": "random (seed 0)",
    "revision": None,
    "n_layer": 2,
    "n_head": 3,
    "d_model": 12,
    "vocab_size": 50257,
    "n_ctx": 1024,
}
OWNED = {  # what each writer's files are: a name, or a folder's
    "Assets": ["assets/"],
    "Data": ["data/"],
    "Downloads": ["downloads/"],
    "Notebooks": ["notebooks/"],
    "FiguresText": ["figures.txt"],
    "FigurePages": ["figure-", "embed-"],
    "Drawings": ["img/", "assets/vega"],
    "PrintEdition": ["print/"],
    "TextPages": ["text-"],
    "Live": ["live"],
    "About": ["about.html"],
    "Index": ["index.html"],
}


class PrintEdition:
    """A new output: every figure's name and caption, one a line."""

    def write(self, folder, site):
        (folder / "print.txt").write_text(
            "".join(f"{page.full_name}\t{page.caption}\n" for page in site.pages), encoding="utf-8"
        )


def test_a_new_output_is_one_writer_appended_and_every_other_file_stays_as_it_was(
    small_model_dir, small_build, tmp_path, monkeypatch
):
    monkeypatch.setattr(writers, "WRITERS", [*writers.WRITERS, PrintEdition()])
    site = built(small_model_dir, SMALL_CONFIG, tmp_path)
    lines = (site / "print.txt").read_text(encoding="utf-8").splitlines()
    assert [line.split("\t")[0] for line in lines] == [KINDS[kind].TITLE for kind in ("attention", "readout", "shapes")]
    files = snapshot(site)
    del files["print.txt"]
    assert files == snapshot(small_build)


def test_each_writer_writes_only_its_own_files_and_together_they_write_the_whole_site(
    small_model_dir, tmp_path, monkeypatch
):
    wrote = {}

    class Recorded:
        def __init__(self, writer):
            self.writer = writer

        def write(self, folder, site):
            before = snapshot(folder)
            self.writer.write(folder, site)
            wrote[type(self.writer).__name__] = {
                file for file, digest in snapshot(folder).items() if before.get(file) != digest
            }  # new or changed

    monkeypatch.setattr(writers, "WRITERS", [Recorded(writer) for writer in writers.WRITERS])
    site = built(small_model_dir, SMALL_CONFIG, tmp_path)
    assert list(wrote) == list(OWNED)
    for name, files in wrote.items():
        assert all(file.startswith(tuple(OWNED[name])) for file in files), (name, files)
        # the small config has no text page, no --live, no [print], no --notebooks
        assert files or name in ("TextPages", "Live", "PrintEdition", "Notebooks"), name
    assert set().union(*wrote.values()) == set(snapshot(site)) - {".gpt2-figures-site"}
    assert sum(len(files) for files in wrote.values()) == len(set().union(*wrote.values()))


def test_a_page_is_built_once_and_what_the_writing_knows_is_a_shown_page_of_its_own(tmp_path):
    (tmp_path / "chapter.toml").write_text(
        '[[figure]]\nkind = "cost"\nlabel = "c"\nlengths = [9, 1000]\n', encoding="utf-8"
    )
    fig = load_config(tmp_path / "chapter.toml", KINDS)[0].with_resolved({})
    page = pipeline.gather_page(fig, Run(model=MODEL))
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.caption = "another"
    shown = ShownPage.of(page, address="https://example.org/figure-c.html", chart={"marks": []})
    assert isinstance(shown, Page) and shown.address.endswith("figure-c.html") and shown.chart == {"marks": []}
    assert all(getattr(shown, field) == getattr(page, field) for field in Page.__dataclass_fields__)
    assert not hasattr(page, "chart") and not hasattr(page, "address")
