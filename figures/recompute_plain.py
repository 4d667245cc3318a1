"""The code the notebooks of the plainer figures run to recompute their numbers (figures.notebook): the sizes of the
numbers at each step (shapes), the model's weights counted by part (numbers), the looks of attention (cost),
several models' read-out of one target side by side (side-by-side), and one habit of the heads in several models
(habit-side-by-side, with the head-roles figure's scores, figures.recompute_roles). Transformers and torch only, as
each notebook shows it: no import of this project."""

from __future__ import annotations

from figures.recompute import FINAL_NORM
from figures.recompute_roles import ROLE_SCORES

# The sizes of the tensors at each step of one real pass over the text.
SHAPES = """\
def layers_of(model):
    \"\"\"The model's layers, in order (GPT-2's h; a Llama's or a GPT-NeoX's layers).\"\"\"
    return next(getattr(model.base_model, name) for name in ("h", "layers") if hasattr(model.base_model, name))


def narrowing(layer):
    \"\"\"A layer's feed-forward matrix that narrows the neurons' answers back to the model's width.\"\"\"
    return next(getattr(layer.mlp, name) for name in ("c_proj", "down_proj", "dense_4h_to_h")
                if hasattr(layer.mlp, name))


def recompute(model, ids, tables):
    \"\"\"Each step of the page's table `steps`: its `tokens`, its `numbers_per_token` and its `numbers` (the two
    multiplied), read off the tensors of one pass over the text: the ids that go in, the numbers after the
    embedding and after each layer, the neurons' answers inside a layer's feed-forward step (what goes into its
    narrowing matrix), and the scores of the last position (the guess for the next token).\"\"\"
    handed, widened = {}, {}

    def after(i):
        def hook(module, args, output):  # a layer gives back its numbers (in a tuple in some versions)
            handed[f"after layer {i + 1}"] = tuple((output[0] if isinstance(output, tuple) else output).shape[1:])
        return hook

    def inside(i):
        def hook(module, args):  # what goes into the narrowing matrix: (batch, position, neurons)
            widened[f"inside layer {i + 1}'s feed-forward step"] = tuple(args[0].shape[1:])
        return hook

    hooks = [layer.register_forward_hook(after(i)) for i, layer in enumerate(layers_of(model))]
    hooks += [narrowing(layer).register_forward_pre_hook(inside(i)) for i, layer in enumerate(layers_of(model))]
    tokens = torch.tensor([ids])  # (batch, position)
    try:
        with torch.no_grad():
            out = model(tokens, output_hidden_states=True)
    finally:
        for hook in hooks:
            hook.remove()
    sizes = {  # (tokens, numbers per token) at each step
        "token ids": (tokens.shape[1], 1),  # one number per token: its id
        "after the embedding lookup": tuple(out.hidden_states[0].shape[1:]),  # (position, width)
        "scores for the next token": (1, out.logits[0, -1].shape[0]),  # the last position's: one per token it knows
        **handed,
        **widened,
    }
    found = []
    for i, row in enumerate(tables["steps"]):
        n, per_token = sizes[row["step"]]
        found += [("steps", i, "tokens", n), ("steps", i, "numbers_per_token", per_token)]
        found.append(("steps", i, "numbers", n * per_token))
    return found
"""

# The model's weights counted by part, from its own parameters.
NUMBERS = """\
def part_of(name):
    \"\"\"The part of the model a weight belongs to, by its name in the three families: GPT-2's (transformer.h.0.attn.
    c_attn.weight...), a Llama's (model.layers.0.self_attn.q_proj.weight...) or a GPT-NeoX's (gpt_neox.layers.0.
    attention.dense.weight...).\"\"\"
    if "norm" in name or ".ln_" in name:  # before attention: a Llama's post_attention_layernorm is a norm
        return "layer norm"
    if any(f".{word}." in name for word in ("attn", "self_attn", "attention")):
        return "attention"
    if ".mlp." in name:
        return "feed-forward"
    if any(word in name for word in ("wte", "wpe", "embed", "lm_head")):  # the token (and position) tables
        return "embedding"
    return "other"


def recompute(model, ids, tables):
    \"\"\"Each part of the page's table `parts`: its weights (`count`) and its share of all the model's weights
    (`share`), counted from the model's own parameters. A weight the embedding shares with the read-out (GPT-2's)
    is listed, and counted, once.\"\"\"
    counts = {}
    for name, weights in model.named_parameters():
        counts[part_of(name)] = counts.get(part_of(name), 0) + weights.numel()
    total = sum(counts.values())
    found = []
    for i, row in enumerate(tables["parts"]):
        count = counts.get(row["part"], 0)
        found += [("parts", i, "count", count), ("parts", i, "share", count / total)]
    return found
"""

# The looks of attention: arithmetic on the model's size.
COST = """\
def recompute(model, ids, tables):
    \"\"\"Each length of the page's table `looks`, a text of n tokens (`tokens`): its looks in one head
    (`looks_in_one_head`), 1 + 2 + ... + n, since the token at place i looks at itself and the i - 1 before it; and
    in all the model's heads (`looks_in_all_heads`), that times its layers times the heads in each, as its config
    gives them.\"\"\"
    heads = model.config.num_hidden_layers * model.config.num_attention_heads
    found = []
    for i, row in enumerate(tables["looks"]):
        one_head = sum(range(1, row["tokens"] + 1))  # = n (n + 1) / 2
        found += [("looks", i, "looks_in_one_head", one_head), ("looks", i, "looks_in_all_heads", one_head * heads)]
    return found
"""

# Several models' read-out of one target, each from its own residual stream.
SIDE_BY_SIDE = (
    FINAL_NORM
    + """\
def recompute(models, ids, tables):
    \"\"\"The chance each model gives the target after each stage (`after_layer`; 0: before any layer) at the read
    position (table `chances`, a row per model and stage, the model by its name on the page, MODELS). Each model
    reads the text as its own tokenizer cuts it (`ids`, one list per model) and has its own id for the target
    (TARGET_IDS) and its own read position (POSITIONS): the stream of each stage goes through its last norm and
    its unembedding (the last stage comes out of the model through the norm already).\"\"\"
    chances = {}
    for name, model, model_ids, target, position in zip(MODELS, models, ids, TARGET_IDS, POSITIONS):
        with torch.no_grad():
            out = model(torch.tensor([model_ids]), output_hidden_states=True)
            streams = [hidden[0, position] for hidden in out.hidden_states]  # stage 0: before any layer
            streams = [final_norm(model)(s) for s in streams[:-1]] + streams[-1:]
            chances[name] = [torch.softmax(model.get_output_embeddings()(s).double(), dim=-1)[target] for s in streams]
    rows = tables["chances"]
    return [("chances", i, "p", float(chances[row["model"]][row["after_layer"]])) for i, row in enumerate(rows)]
"""
)

# One habit of the heads in several models: each model's heads scored as the head-roles figure scores them.
HABIT = (
    ROLE_SCORES
    + """\
def recompute(models, ids, tables):
    \"\"\"Table `shares`, a row per model (by its name on the page, MODELS): the share of its attention that the
    chosen head gives where the habit ROLE looks (`chosen`), and the largest such share of any head of that model
    (`strongest`). Each model's heads are scored on the text as its tokenizer cuts it (`ids`, one list per model)
    and on its own random tokens said twice (SEQUENCES: the build's draws, the first copy of each). The chosen
    head: HEAD (layer and head from 1); where the figure names none ([]), the last model's strongest.\"\"\"
    grids = [role_scores(model, model_ids, sequence + sequence)[ROLE]  # (layers, heads) each
             for model, model_ids, sequence in zip(models, ids, SEQUENCES)]
    layer, head = (HEAD[0] - 1, HEAD[1] - 1) if HEAD else divmod(int(grids[-1].argmax()), grids[-1].shape[1])
    found = []
    for i, row in enumerate(tables["shares"]):
        grid = grids[MODELS.index(row["model"])]
        found += [("shares", i, "chosen", float(grid[layer, head])), ("shares", i, "strongest", float(grid.max()))]
    return found
"""
)
