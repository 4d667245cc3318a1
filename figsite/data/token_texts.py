"""A text's tokens as the figures read them: their texts, and whether a model's start token leads them (a Llama's
<s>), which readers never count among the tokens of their text. No torch here: the config's checks use it too."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from figsite.data.records import ModelRecord


class TokenTexts(list[str]):
    """A text's tokens as texts, in the order the model reads them, and `start`: how many of them lead (1: the
    model's start token, a Llama's <s>, which the tokenizer puts in front of every text; 0: none, as on GPT-2).
    Readers count the tokens of their text from 1 after it (`number`); positions stay the model's."""

    def __init__(self, texts: Iterable[str] = (), start: int = 0):
        super().__init__(texts)
        self.start = start

    def number(self, position: int) -> int:
        """The token at a position (0-based, the model's) as readers number it: from 1, the start token 0."""
        return position + 1 - self.start

    def is_start(self, position: int) -> bool:
        return position < self.start


def reader(tokens: Mapping[str, list[str]], model: ModelRecord) -> Callable[[str], TokenTexts]:
    """What the figures' checks call as `tokens(string)`: the texts of a string's tokens (`tokens`: string -> list,
    as the cache keeps them) as TokenTexts. A string whose first token is the model's start token (every text, where
    the tokenizer puts one in front: model["start_token"]; never on GPT-2) has start 1: the config counts the
    reader's tokens only."""
    start = model.get("start_token")

    def texts(string: str) -> TokenTexts:
        found = tokens[string]
        return TokenTexts(found, int(start is not None and found[:1] == [start]))

    return texts
