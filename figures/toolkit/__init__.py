"""What every kind builds with, one module per concern:

- `fields`: the keys a figure's config may have that several kinds share (text, focus, position, target), and
  the checks that resolve them against the tokens and the model's size;
- `words`: how tokens, shares, chances and counts are written on pages and in printed figures;
- `terms`: the words a reader of the chapter may not know, each with the sentence that explains it;
- `colours`: every colour a chart uses, in one place;
- `charts`: Altair (imported lazily), the chart's data and params at its top, the column's width, wrapped words.

Nothing here reads a run: the kinds read it through figsite.data.run.Run's accessors.
"""
