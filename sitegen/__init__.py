"""The layers above figures/: the site (render, writers, drawings, print, the live page's files), the pages gathered
from the runs, the pipeline that runs the models and writes the site, the author's tools and the CLI. Below figures/,
figsite/ holds what everything shares (errors, the config, the data format, paths and cache), the model and the
capture."""
