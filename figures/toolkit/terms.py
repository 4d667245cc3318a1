"""The words a reader of the chapter may not know, in one place: each term a page could use, and the words that
explain it. A page either never uses a term, or uses it first in a sentence that explains it (one that holds one of
the term's `explained` words); the pages take those sentences from here. tests/kinds/test_terms.py holds every
page of built sites to this list, and finds the terms by their `pattern`.

The chapter's own words need no entry: token, layer, head, attention, share, question, description, fit, chance,
embedding, feed-forward step, neuron, layer normalisation, read-out, vocabulary, weights."""

from __future__ import annotations

from dataclasses import dataclass

# The sentences that explain a term where a page first uses it. The pages say them as they are here.

# The chapter's notation for a token that begins with a space, said on every page that shows tokens (one line on a
# phone: the chart stays within the first screen).
SPACE = "In a token, _ is a space: _France is “ France”."
# The number the model gives each token before it picks the next one (the ledger's caption, patching's details).
SCORE = (
    "Before it picks a next token, the model gives every token in its vocabulary a score; the higher the "
    "score, the more likely the token."
)
LOGIT = "Logit: the name researchers give that score (it is what the model's last step turns into chances)."
# The "Spread the shares" slider of the question-and-keys figure (scores.py), in its "More detail".
SPREAD = (
    'The "Spread the shares" slider sets the temperature T, which divides each fit again, by T, before the '
    "formula of Chapter 7 (the softmax) turns the fits into shares: above 1 the shares even out, below 1 they "
    "sharpen towards the best fit. The model itself always works at T = 1."
)
# How the live page's tokens drawn by chance are set (its "Let the model go on" box).
DRAWN = (
    "Drawn by chance, a token comes as often as its chance says, set by the temperature T, which evens the chances "
    "out above 1 and sharpens them towards the likeliest below 1, and by a seed: drawn again with the same seed, "
    "the same tokens come."
)
# How a site of a random model says where its weights come from (the About page).
SEED = (
    "Its weights were drawn at random from seed {seed}: built again with the same seed, the model and every "
    "number on these pages come out the same."
)
CHECKSUM = (
    "Every file the figures read, with its SHA-256 checksum, a number worked out from the file's bytes that "
    "any change to the file changes:"
)
VEGA_LITE = "Vega-Lite, a language for charts"
ONNX = "ONNX, a file format for models that a browser can run"


@dataclass(frozen=True)
class Term:
    """A word a reader may not know: how a page writes it (`pattern`, a regular expression matched as a whole word
    in any case), the words of which one explains it in the sentence of its first use (none: no page uses it), and
    what the pages say instead where it is never used."""

    word: str
    pattern: str
    explained: tuple[str, ...] = ()
    instead: str = ""


TERMS = (
    Term("lens", r"lens(es)?", instead='"the guess at every position" (the lens figure\'s title)'),
    Term("logit", r"logits?", ("the name researchers give that score",)),
    Term(
        "score",
        r"scores?",
        (
            "the higher the score, the more likely the token",
            "one per token in the vocabulary",  # figure (f), as the chapter prints it
            "the name researchers give that score",
        ),
    ),
    Term(
        "temperature",
        r"temperature",
        ("sets the temperature T, which divides each fit", "the temperature T, which evens"),
    ),
    Term("softmax", r"softmax", ("the formula of Chapter 7 (the softmax)",)),
    Term("term", r"terms?", instead='"fixed part" (a part the same for every text)'),
    Term("spec", r"specs?|specification", instead='"the chart itself as Vega-Lite"'),
    Term("Vega-Lite", r"vega-lite", (VEGA_LITE,)),
    Term("seed", r"seeds?", ("from seed", "with the same seed")),
    Term("revision", r"revisions?", instead='"version"'),
    Term("hub", r"hub", instead="Hugging Face's"),
    Term("checksum", r"checksums?", ("a number worked out from the file's bytes",)),
    Term("query", r"query|queries", ("the question (the query)",)),
    Term("σ", r"σ", ("divides them by σ",)),
    Term("induction", r"induction", ("researchers' name for",)),
    Term("ONNX", r"onnx", (ONNX,)),
    Term("WebAssembly", r"webassembly|wasm", instead='"in your browser"'),
    Term("tokenizer", r"tokeni[sz]er", instead='"cuts the text into tokens"'),  # "tokenizers": a library's name
    Term("residual stream", r"residual|stream", instead='"the numbers of a token"'),
    Term("ablation", r"ablat\w*", instead='"taken out"'),
    Term("patching", r"patch(es|ed|ing)?", instead='"put back"'),
    Term("attribution", r"attribution", instead='"who wrote the answer"'),
)
# The chapter's notation for a space ("_France"): a token a page shows with its space as "_", first said in SPACE.
SPACE_TERM = Term("_ (a space)", r"(?<![\w\"'])_(?=[^\W_])", ("In a token, _ is a space",))
