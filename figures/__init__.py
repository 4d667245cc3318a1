"""The figures: each module turns the run's plain data into a printed figure, an Altair chart and the words
beside it, with pure functions. A module offers KIND, TITLE, FIELDS (its config keys), requests (the texts and
targets it needs the model to read), check (what needs the tokens and the model's size), text_figure, page
and chart.
"""

from figures import attention, compare, cost, findhead, heads, lens, numbers, readout, shapes

KINDS = {module.KIND: module for module in (attention, readout, shapes, numbers, cost, heads, lens, findhead, compare)}
EXPLORE = {"heads", "lens", "find-head", "compare"}  # kinds the index lists under "Explore further"
