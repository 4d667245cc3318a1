"""The keys of a figure that several kinds share, each defined once, and the checks that resolve a figure's
tokens, layers and heads against the text's tokens and the model's size (a kind's `check`).

The config counts tokens, layers and heads from 1, as readers do; what the checks resolve is 0-based.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from figsite.config import Field, Figure
from figures.toolkit.words import shown

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord
    from figsite.data.token_texts import TokenTexts
    from figures.kind import Tokens

TEXT_FIELD = Field("text", "a non-empty text of at most the model's context length in tokens", required=True)
TARGET_FIELD = Field("text", "one token that the figure follows, e.g. ' France'", required=True)


def token_field(role: str) -> Field:
    """A token of the figure's text in one role (the one it opens on, the one whose guess is read): by its
    number or by its text; the last where the config leaves it out (see `opening`)."""
    return Field("position_or_text", f"{role}: its number (1 = first) or its text; default the last")


FOCUS_FIELD = token_field("the token the figure opens on")  # attention, heads
POSITION_FIELD = token_field("the token whose next-token guess is read")  # readout, ledger, knockout


# ---------------------------------------------------------------------------------------------- checks


def start_of(tokens: Sequence[str]) -> int:
    """How many of a text's tokens lead it as the model's own (1: a start token, figsite.data.run.TokenTexts), not
    the reader's: the config counts the reader's tokens from 1 after them."""
    return getattr(tokens, "start", 0)


def check_text(fig: Figure, key: str, tokens: Sequence[str], n_ctx: int) -> None:
    """A text must hold at least one token of its own and fit the model's positions (the start token's too)."""
    room = n_ctx - start_of(tokens)
    if len(tokens) <= start_of(tokens):
        raise fig.error(key, "the text has no tokens", f"a text of 1 to {room:,} tokens")
    if len(tokens) > n_ctx:
        raise fig.error(
            key,
            f"the text is {len(tokens) - start_of(tokens):,} tokens long",
            f"at most {room:,} tokens, the model's context" + (" after its start token" if room < n_ctx else ""),
        )


def check_layer(fig: Figure, key: str, layer: int, n_layer: int) -> None:
    if not 1 <= layer <= n_layer:
        raise fig.error(key, f"layer {layer} is not in the model", f"layers 1 to {n_layer}")


def check_head(fig: Figure, key: str, head: int, n_head: int) -> None:
    if not 1 <= head <= n_head:
        raise fig.error(key, f"head {head} is not in the model", f"heads 1 to {n_head}")


def check_view(fig: Figure, key: str, pair: Sequence[int], model: ModelRecord) -> tuple[int, int]:
    """A `[layer, head]` pair of the config, numbered from 1, that the model has."""
    if len(pair) != 2:
        raise fig.error(key, f"{pair} is not one [layer, head] pair", "[layer, head], numbered from 1")
    check_layer(fig, key, pair[0], model["n_layer"])
    check_head(fig, key, pair[1], model["n_head"])
    return pair[0], pair[1]


def check_one_token(fig: Figure, key: str, tokens: Sequence[str]) -> None:
    """A token given by its text (a target, a followed token) must be exactly one token, and not the model's start
    token (which the model puts before every text: no word of the reader's, never a guess worth following)."""
    if start_of(tokens):
        raise fig.error(
            key,
            f"{fig[key]!r} is the model's start token, which it puts before every text",
            "one token of the text's words, e.g. ' France'",
        )
    if len(tokens) != 1:
        raise fig.error(
            key,
            f"{fig[key]!r} is {len(tokens)} tokens ({' '.join(shown(t) for t in tokens) or 'none'})",
            "exactly one token; mind the leading space, as in ' France'",
        )


def check_read_target(fig: Figure, tokens: Tokens, model: ModelRecord) -> tuple[TokenTexts, TokenTexts, int]:
    """What every figure that reads one target token at one position checks: its text, that the target is one
    token, and the read position ("position", default the last). Returns the text's tokens, the target's
    tokens and the 0-based read position."""
    text_tokens = tokens(fig["text"])
    check_text(fig, "text", text_tokens, model["n_ctx"])
    target_tokens = tokens(fig["target"])
    check_one_token(fig, "target", target_tokens)
    return text_tokens, target_tokens, opening(fig, "position", text_tokens)


def opening(fig: Figure, key: str, tokens: Sequence[str]) -> int:
    """The 0-based position of the token a figure opens on: the one `key` names, else the last."""
    return resolve_position(fig, key, fig.values.get(key, len(tokens) - start_of(tokens)), tokens)


def resolve_position(fig: Figure, key: str, ref: int | str, tokens: Sequence[str]) -> int:
    """A token named in the config, by 1-based position or by its text ('street'), as a 0-based position of the
    model's. Both count the reader's tokens only: a start token ahead of them (start_of) is never one of them."""
    start = start_of(tokens)
    n = len(tokens) - start
    if isinstance(ref, int):
        if not 1 <= ref <= n:
            raise fig.error(key, f"token {ref} is outside the text", f"a token number from 1 to {n}")
        return ref - 1 + start
    if start and ref.strip() == tokens[0].strip():
        raise fig.error(
            key,
            f"{ref!r} is the model's start token, which it puts before every text",
            "a token of the text's words, by its text or its number (1 = the first)",
        )
    matches = [i + start for i, t in enumerate(tokens[start:]) if t.strip() == ref.strip()]
    if not matches:
        raise fig.error(
            key,
            f"no token of the text reads {ref!r}",
            "the text of one token, e.g. "
            + ", ".join(repr(t.strip()) for t in tokens[start : start + 4])
            + ", or its number",
        )
    if len(matches) > 1:
        raise fig.error(
            key,
            f"{ref!r} is tokens " + " and ".join(str(i + 1 - start) for i in matches),
            "the token's number, to say which one",
        )
    return matches[0]
