"""GPT-2 as OpenAI built it and as Hugging Face's checkpoints hold it, in the manner of nanoGPT's model.py.

Why our own rather than transformers' GPT2LMHeadModel: importing transformers' GPT-2 takes two seconds of a
build of the chapter that takes about four (torch itself takes one); this file is the model in a hundred lines.
It keeps what the build relies on of Hugging Face's model, so that its checkpoints fit:

- the same parameter names (transformer.h.0.attn.c_attn.weight, ...) and weight layouts (Conv1D keeps
  (in, out)): a save_pretrained directory or the hub's `gpt2` loads as it is, and save_pretrained here
  writes a directory that transformers loads;
- the same modules at the same places (transformer.drop after the embedding, each block's attn, mlp,
  attn.c_proj, mlp.c_proj, transformer.ln_f), with the same outputs (an attention module returns its output
  and its shares), so that transformers' own tests' hooks fit too;
- the same operations in the same order, so the same numbers to the last bit: tests/unit/test_gpt2.py holds the
  shares, the residual stream and the scores equal to transformers' on the same weights.

What the model computes is read at its hook points (HookPoint, TransformerLens's names: `hook_embed`,
`blocks.L.attn.hook_pattern`, `blocks.L.hook_resid_post`, ...): the capture adds functions there with
`hooks({name: function})` (figsite.capture.hooks) and never reaches into a module's inputs or outputs.

The tokenizer is figsite.model.tokens.Tokenizer (also reached here, as gpt2.Tokenizer); GPT-2's initialisation
of a model with random weights is figsite.model.load's.
"""

from __future__ import annotations

import json
import math
import os
import re
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

# The same inputs must give the same bytes. Intel's BLAS may otherwise pick its thread count by the machine's
# load and its code path by memory alignment, and a last-bit difference can flip a rounded share. These must
# be set before torch loads the library.
os.environ.setdefault("MKL_DYNAMIC", "FALSE")
os.environ.setdefault("OMP_DYNAMIC", "FALSE")
os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from figsite.model.tokens import Tokenizer  # noqa: E402,F401 - the model's tokenizer, beside it as Hugging Face's is

ACTIVATIONS = {
    # GPT-2's own: the tanh approximation of GELU, written as OpenAI (and transformers' "gelu_new") write it.
    "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0)))),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu": F.gelu,
    "relu": F.relu,
}


@dataclass
class GPT2Config:
    """A GPT-2's shape, as config.json gives it (the names are Hugging Face's)."""

    vocab_size: int = 50257
    n_positions: int = 1024
    n_embd: int = 768
    n_layer: int = 12
    n_head: int = 12
    n_inner: int | None = None  # the feed-forward step's width; None: 4 x n_embd
    layer_norm_epsilon: float = 1e-5
    activation_function: str = "gelu_new"
    scale_attn_weights: bool = True  # fits divided by sqrt(head width)
    scale_attn_by_inverse_layer_idx: bool = False  # and by the layer's number (a later variant)
    tie_word_embeddings: bool = True  # the unembedding is the token embedding
    model_type: str = "gpt2"
    architectures: list = field(default_factory=lambda: ["GPT2LMHeadModel"])

    @classmethod
    def from_dict(cls, values: dict) -> GPT2Config:
        """The config of config.json's values; ValueError names what this model cannot be."""
        if values.get("model_type") != "gpt2":
            raise ValueError(f"a '{values.get('model_type')}' model")
        if values.get("add_cross_attention"):
            raise ValueError("a GPT-2 with cross-attention (an encoder-decoder's half)")
        known = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        config = cls(**known)
        if config.activation_function not in ACTIVATIONS:
            raise ValueError(f"activation_function {config.activation_function!r}; allowed: {', '.join(ACTIVATIONS)}")
        if config.n_embd % config.n_head:
            raise ValueError(f"n_embd {config.n_embd} is not a multiple of n_head {config.n_head}")
        return config

    @classmethod
    def from_file(cls, path: Path) -> GPT2Config:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def to_json_file(self, path) -> None:
        """config.json as transformers writes it (n_ctx too, the name older readers use for n_positions)."""
        values = {**asdict(self), "n_ctx": self.n_positions}
        Path(path).write_text(json.dumps(values, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    @property
    def d_head(self) -> int:
        return self.n_embd // self.n_head


class Embedding(nn.Embedding):
    """A table of vectors made without drawing them: they come from a checkpoint, or from GPT-2's initialisation
    (figsite.model.load.random_model)."""

    def reset_parameters(self) -> None:
        pass


class Linear(nn.Linear):
    """A linear map made without drawing its weights (GPT-2's unembedding is the token embedding)."""

    def reset_parameters(self) -> None:
        pass


class Conv1D(nn.Module):
    """A linear map stored as GPT-2's checkpoints store it: weight (in, out), applied as bias + x @ weight."""

    def __init__(self, n_in: int, n_out: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)  # (rows, out)
        return out.view(*x.shape[:-1], out.size(-1))


class HookPoint(nn.Module):
    """An identity at one activation, named as TransformerLens names it (`blocks.3.attn.hook_pattern`).

    What the model computes there passes through each function added with `Transformer.hooks`, called as
    function(activation, name): it may read the activation (and return None) or return a tensor of the same
    shape that the model goes on with. With no function added, it hands the activation on untouched."""

    def __init__(self):
        super().__init__()
        self.name = ""  # set by Transformer: the name readers of the model use
        self.functions = []

    def forward(self, activation: torch.Tensor) -> torch.Tensor:
        for function in self.functions:
            replaced = function(activation, self.name)
            if replaced is not None:
                activation = replaced
        return activation


class LayerNorm(nn.LayerNorm):
    """torch's layer norm, with a hook point at its scale: the standard deviation it divides by, (..., 1).
    The scale is worked out again only where a function reads it (and is read only: the norm uses its own)."""

    def __init__(self, n_embd: int, eps: float):
        super().__init__(n_embd, eps=eps)
        self.hook_scale = HookPoint()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.hook_scale.functions:
            self.hook_scale(torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + self.eps))  # (..., 1)
        return super().forward(x)


def causal_mask(n: int, like: torch.Tensor) -> torch.Tensor:
    """What the attention adds to its fits, (1, 1, query, key): the lowest number where a key comes after the
    query (a token never looks right: its share comes out exactly 0), 0 elsewhere."""
    lowest = torch.finfo(like.dtype).min
    return torch.full((n, n), lowest, dtype=like.dtype, device=like.device).triu(1)[None, None]


class Attention(nn.Module):
    """Each head: every token's query against the keys of the tokens up to it, shares by softmax, and the
    values mixed by those shares; the heads' outputs side by side, then one projection (c_proj)."""

    def __init__(self, config: GPT2Config, layer: int):
        super().__init__()
        self.n_head, self.n_embd = config.n_head, config.n_embd
        self.c_attn = Conv1D(config.n_embd, 3 * config.n_embd)  # query, key and value of every head at once
        self.c_proj = Conv1D(config.n_embd, config.n_embd)
        self.scaling = (config.d_head ** -0.5 if config.scale_attn_weights else 1.0)
        if config.scale_attn_by_inverse_layer_idx:
            self.scaling /= float(layer + 1)
        self.hook_q, self.hook_k, self.hook_v = HookPoint(), HookPoint(), HookPoint()  # (batch, position, heads, d_head)
        self.hook_attn_scores = HookPoint()  # (batch, heads, query, key): the fits, scaled and masked
        self.hook_pattern = HookPoint()  # (batch, heads, query, key): the shares
        self.hook_z = HookPoint()  # (batch, position, heads, d_head): the values mixed by the shares, per head

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor | None = None,
                past: tuple | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (batch, position, d_model) -> the output (batch, position, d_model), the shares (batch, heads,
        query, key). past: the keys and values of positions before x's, (1, heads, earlier, d_head) each, the same
        for every row (then attention_mask must say what each query may see, (1, 1, query, earlier + position))."""
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)  # each (batch, position, d_model)
        q, k, v = (t.view(*t.shape[:-1], self.n_head, -1) for t in (q, k, v))  # each (batch, position, heads, d_head)
        q, k, v = (hook(t).transpose(1, 2) for hook, t in ((self.hook_q, q), (self.hook_k, k), (self.hook_v, v)))
        if past is not None:  # each now (batch, heads, earlier + position, d_head)
            k, v = (torch.cat([kept.expand(len(x), -1, -1, -1), t], dim=2) for kept, t in zip(past, (k, v)))
        fits = torch.matmul(q, k.transpose(-1, -2)) * self.scaling  # (batch, heads, query, key)
        fits = fits + (causal_mask(x.size(1), fits) if attention_mask is None else attention_mask)
        shares = self.hook_pattern(F.softmax(self.hook_attn_scores(fits), dim=-1))  # (batch, heads, query, key)
        z = self.hook_z(torch.matmul(shares, v).transpose(1, 2))  # (batch, position, heads, d_head)
        mixed = z.reshape(*z.shape[:-2], -1).contiguous()  # (batch, position, d_model): heads side by side
        return self.c_proj(mixed), shares


class FeedForward(nn.Module):
    """Each token alone: widen (c_fc), the activation, narrow back (c_proj)."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        inner = config.n_inner or 4 * config.n_embd
        self.c_fc = Conv1D(config.n_embd, inner)
        self.c_proj = Conv1D(inner, config.n_embd)
        self.act = ACTIVATIONS[config.activation_function]
        self.hook_pre, self.hook_post = HookPoint(), HookPoint()  # (batch, position, inner): before, after act

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(self.hook_post(self.act(self.hook_pre(self.c_fc(x)))))


class Block(nn.Module):
    """One layer: the attention adds its correction to the residual stream, then the feed-forward step adds its."""

    def __init__(self, config: GPT2Config, layer: int):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.attn = Attention(config, layer)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.mlp = FeedForward(config)
        # The residual stream before, between and after the layer's two steps, and what each step adds to it;
        # all (batch, position, d_model).
        self.hook_resid_pre, self.hook_resid_mid, self.hook_resid_post = HookPoint(), HookPoint(), HookPoint()
        self.hook_attn_out, self.hook_mlp_out = HookPoint(), HookPoint()

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor | None = None, past=None) -> torch.Tensor:
        resid_pre = self.hook_resid_pre(x)
        attention, _ = self.attn(self.ln_1(resid_pre), attention_mask, past)
        resid_mid = self.hook_resid_mid(self.hook_attn_out(attention) + resid_pre)
        return self.hook_resid_post(resid_mid + self.hook_mlp_out(self.mlp(self.ln_2(resid_mid))))


@dataclass
class Output:
    last_hidden_state: torch.Tensor  # (batch, position, d_model), the final layer norm applied
    attentions: tuple | None = None  # per layer (batch, heads, query, key), where asked for


def hook_name(path: str) -> str:
    """A hook point's module path under Transformer -> TransformerLens's name for it:
    h.3.attn.hook_pattern -> blocks.3.attn.hook_pattern, ln_f.hook_scale -> ln_final.hook_scale."""
    return re.sub(r"^h\.", "blocks.", re.sub(r"^ln_f\.", "ln_final.", path))


class Transformer(nn.Module):
    """The embedding, the layers and the final layer norm: token ids -> the normalised residual stream.

    Its hook points (`hook_points`: name -> HookPoint) carry TransformerLens's names; `hooks` adds functions to
    them for a while. The modules keep Hugging Face's names, which the checkpoints' weights are stored under."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.wte = Embedding(config.vocab_size, config.n_embd)
        self.wpe = Embedding(config.n_positions, config.n_embd)
        self.hook_embed, self.hook_pos_embed = HookPoint(), HookPoint()  # (batch, position, d_model)
        self.drop = nn.Identity()  # where GPT-2 trains with dropout (Hugging Face's module, kept in its place)
        self.h = nn.ModuleList(Block(config, layer) for layer in range(config.n_layer))
        self.ln_f = LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.hook_points = {hook_name(path): module for path, module in self.named_modules()
                            if isinstance(module, HookPoint)}
        for name, point in self.hook_points.items():
            point.name = name

    @contextmanager
    def hooks(self, functions: dict):
        """Adds {hook point name: function} (or a list of functions) while the block runs, and always takes them
        off again, whatever the block raises. KeyError names a hook point that does not exist."""
        unknown = sorted(functions.keys() - self.hook_points.keys())
        if unknown:
            raise KeyError(f"no hook point {unknown[0]!r}; e.g. {', '.join(list(self.hook_points)[:3])}")
        added = []
        try:
            for name, function in functions.items():
                for one in function if isinstance(function, (list, tuple)) else [function]:
                    self.hook_points[name].functions.append(one)
                    added.append((self.hook_points[name], one))
            yield self
        finally:
            for point, one in added:
                point.functions.remove(one)

    def forward(self, input_ids: torch.Tensor, output_attentions: bool = False) -> Output:
        n = input_ids.size(1)
        embed = self.hook_embed(self.wte(input_ids))  # (batch, position, d_model)
        pos_embed = self.hook_pos_embed(self.wpe(torch.arange(n, device=input_ids.device))[None])  # (1, position, d_model)
        x = self.drop(embed + pos_embed)
        mask = causal_mask(n, x)
        attentions = []
        keep = {f"blocks.{layer}.attn.hook_pattern": lambda shares, _name: attentions.append(shares)
                for layer in range(len(self.h))} if output_attentions else {}
        with self.hooks(keep):
            for block in self.h:
                x = block(x, attention_mask=mask)
        return Output(self.ln_f(x), tuple(attentions) if output_attentions else None)


class GPT2LMHeadModel(nn.Module):
    """GPT-2: the transformer, and the unembedding (lm_head) that turns its last stream into scores."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.config = config
        self.transformer = Transformer(config)
        self.lm_head = Linear(config.n_embd, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.transformer.wte.weight

    @property
    def device(self) -> torch.device:
        return self.transformer.wte.weight.device

    @property
    def hook_points(self) -> dict:
        """name -> HookPoint, TransformerLens's names (see Transformer)."""
        return self.transformer.hook_points

    def hooks(self, functions: dict):
        """Transformer.hooks: {hook point name: function} added while a `with` block runs."""
        return self.transformer.hooks(functions)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Token ids (batch, position) -> scores (batch, position, vocab)."""
        return self.lm_head(self.transformer(input_ids).last_hidden_state)

    def save_pretrained(self, directory) -> None:
        """config.json and model.safetensors as transformers writes them (the tied unembedding left out)."""
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.config.to_json_file(directory / "config.json")
        state = {name: tensor.detach().contiguous().cpu() for name, tensor in self.state_dict().items()}
        if self.config.tie_word_embeddings:
            del state["lm_head.weight"]
        save_file(state, str(directory / "model.safetensors"), metadata={"format": "pt"})


# ---------------------------------------------------------------------------------------------- loading

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")  # what a checkpoint's weights may be called, in order


def from_weights(config: GPT2Config, weights_file: Path) -> GPT2LMHeadModel:
    """The model with the weights of `weights_file` (model.safetensors or pytorch_model.bin), in float32, on the
    CPU (figsite.model.load.load moves it to the device asked for).

    The modules are made with weights left undrawn (memory never written takes none) and take the loaded tensors
    as they are: the weights are held once, which for gpt2-xl is 6 GiB rather than 12. (Made on torch's "meta"
    device instead, they would take 0.8 s.) Errors: safetensors' SafetensorError for a damaged file, ValueError
    for names that do not fit."""
    model = GPT2LMHeadModel(config)
    state = _state_of(model, _read_weights(Path(weights_file)))
    model.load_state_dict(state, strict=True, assign=True)
    if config.tie_word_embeddings:
        model.lm_head.weight = model.transformer.wte.weight
    return model.requires_grad_(False).eval()  # nothing here is trained: no autograd graph is kept


def _read_weights(path: Path) -> dict:
    if path.name.endswith(".safetensors"):
        from safetensors.torch import load_file

        return load_file(str(path))
    return torch.load(str(path), map_location="cpu", weights_only=True)


def _state_of(model: GPT2LMHeadModel, raw: dict) -> dict:
    """A checkpoint's tensors under this model's names: with or without the "transformer." prefix (the hub's
    gpt2 has none), without the causal-mask buffers old checkpoints keep, and the unembedding tied."""
    state = {}
    for name, tensor in raw.items():
        if name.endswith((".attn.bias", ".attn.masked_bias")) and tensor.dim() in (0, 4):
            continue  # the causal mask, which older transformers stored as a buffer
        if not name.startswith(("transformer.", "lm_head.")):
            name = "transformer." + name
        state[name] = tensor.float()
    if model.config.tie_word_embeddings:
        state.pop("lm_head.weight", None)
        if "transformer.wte.weight" in state:
            state["lm_head.weight"] = state["transformer.wte.weight"]
    expected = {name: param.shape for name, param in model.state_dict().items()}
    missing = sorted(expected.keys() - state.keys())
    unexpected = sorted(state.keys() - expected.keys())
    wrong = sorted(name for name in expected.keys() & state.keys() if tuple(state[name].shape) != tuple(expected[name]))
    if missing or unexpected or wrong:
        said = [f"{len(names)} {what} (first {names[0]})" for what, names in
                (("missing", missing), ("unexpected", unexpected), ("of the wrong shape", wrong)) if names]
        raise ValueError("the weights do not fit the config: " + "; ".join(said))
    return state
