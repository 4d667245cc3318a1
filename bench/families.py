"""Times each model family's own implementation (figsite/model/) against transformers' on a model of the same
shape, so that a family is seen to cost no more than GPT-2 per weight (issue 45, point 8). Run by hand (a
benchmark, not a test):

    python bench/families.py [--layers 12] [--width 768] [--tokens 128] [--texts 4]

For each family (GPT-2, Llama-style with grouped-query attention, GPT-NeoX with parallel layers), a model of the
given shape with seeded random weights is saved once (untimed) with transformers' own class and a tokenizer made
for it. Then two fresh processes each, taking turns (ours, theirs, theirs, ours), load it and read TEXTS texts of
TOKENS tokens:

- the floor: transformers' class loaded with from_pretrained, eager attention, one forward pass per text asking
  for the attentions and the hidden states (what our capture reads);
- ours: figsite.model.load.load and one run_with_cache per text at every layer's attention pattern and residual
  stream, and the read-out of the last position (what a build reads).

Each process reports its own time for the load and for the passes, and its own peak memory (getrusage: ru_maxrss).
The table prints per family: the weights, ours / floor for the passes and for the whole process, and each peak.
A family "costs no more than GPT-2 per weight" where its ratio of passes is within GPT-2's (x 1.1 for noise).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOISE = 1.1  # a family's ratio within GPT-2's times this passes

SAVE = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, str(Path(sys.argv[1]) / "tests"))
import conftest
family, directory, shape = sys.argv[2], Path(sys.argv[3]), json.loads(sys.argv[4])
layers, width, heads = shape["layers"], shape["width"], shape["heads"]
if family == "gpt2":
    from figsite.model.load import random_gpt2
    from figsite.model.tokens import gpt2_tokenizer
    random_gpt2(0, n_layer=layers, n_embd=width, n_head=heads).save_pretrained(directory)
    gpt2_tokenizer().save_pretrained(directory)
else:
    common = dict(vocab_size=50257, hidden_size=width, intermediate_size=4 * width, num_hidden_layers=layers,
                  num_attention_heads=heads, max_position_embeddings=1024)
    corpus = conftest.TOKENIZER_CORPUS * 50
    if family == "llama":  # a Llama-style SwiGLU's three matrices at 8/3 x the width hold GPT-2's 2 at 4 x
        conftest.llama_dir(directory, corpus=corpus, **{**common, "intermediate_size": 8 * width // 3,
                                                        "num_key_value_heads": max(1, heads // 3)})
    else:
        conftest.neox_dir(directory, corpus=corpus, **common)
print("BENCH {}")
"""

OURS = r"""
import time
t0 = time.perf_counter()
import json, resource, sys
directory, texts = sys.argv[1], json.loads(sys.argv[2])
from figsite.model.load import load
from figsite.model.tokens import token_ids
import torch
loaded = load(directory, None, 0, "cpu")
model, n = loaded.model, loaded.model.config.n_layer
names = [f"blocks.{l}.attn.hook_pattern" for l in range(n)] + [f"blocks.{l}.hook_resid_post" for l in range(n)]
t1 = time.perf_counter()
with torch.no_grad():
    for text in texts:
        cache = model.run_with_cache(torch.tensor([token_ids(loaded, text)]), names)
        model.read_out(cache[f"blocks.{n - 1}.hook_resid_post"][:, -1])
t2 = time.perf_counter()
weights = sum(p.numel() for p in model.parameters())
print("BENCH " + json.dumps({"load": t1 - t0, "passes": t2 - t1, "weights": weights,
                             "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

FLOOR = r"""
import time
t0 = time.perf_counter()
import json, resource, sys
directory, texts = sys.argv[1], json.loads(sys.argv[2])
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
model = AutoModelForCausalLM.from_pretrained(directory, attn_implementation="eager").eval()
tokenizer = AutoTokenizer.from_pretrained(directory)
t1 = time.perf_counter()
with torch.no_grad():
    for text in texts:
        model(torch.tensor([tokenizer(text)["input_ids"]]), output_attentions=True, output_hidden_states=True)
t2 = time.perf_counter()
print("BENCH " + json.dumps({"load": t1 - t0, "passes": t2 - t1,
                             "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def child(script: str, args: list[str], what: str) -> dict:
    """Runs `script` in a fresh interpreter; its BENCH line, with its wall time from spawn to exit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOKENIZERS_PARALLELISM": "false"}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    lines = [line for line in done.stdout.splitlines() if line.startswith("BENCH ")]
    if done.returncode != 0 or not lines:
        sys.exit(f"error: {what} failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-4000:]}")
    return {**json.loads(lines[-1][len("BENCH ") :]), "wall": wall}


def texts_of(count: int, tokens: int) -> list[str]:
    """`count` texts of about `tokens` tokens each (English words, which every tokenizer here splits alike)."""
    words = (
        "the animal did not cross the street because it was too tired and Maya lives in Paris the capital of France"
    ).split()
    return [" ".join(words[(i + k) % len(words)] for k in range(tokens)) for i in range(count)]


def measure(directory: Path, texts: list[str], family: str) -> tuple[dict, dict]:
    """Ours and the floor, two runs each taking turns (ours, floor, floor, ours): the medians of each figure."""
    args = [str(directory), json.dumps(texts)]
    runs = {"ours": [], "floor": []}
    for who in ("ours", "floor", "floor", "ours"):
        runs[who].append(child(OURS if who == "ours" else FLOOR, args, f"{family}: {who}"))
    median = {who: {key: statistics.median(r[key] for r in got) for key in got[0]} for who, got in runs.items()}
    return median["ours"], median["floor"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--width", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--texts", type=int, default=4)
    options = parser.parse_args(argv)
    shape = {"layers": options.layers, "width": options.width, "heads": options.heads}
    texts = texts_of(options.texts, options.tokens)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="bench-families-") as work:
        for family in ("gpt2", "llama", "neox"):
            directory = Path(work) / family
            print(f"untimed: saving a {family} model of {shape} ...", flush=True)
            child(SAVE, [str(ROOT), family, str(directory), json.dumps(shape)], f"saving {family}")
            rows[family] = measure(directory, texts, family)
    print(
        f"\n{options.texts} texts of about {options.tokens} tokens; medians of 2 fresh processes each; "
        f"load average now {os.getloadavg()[0]:.1f}"
    )
    print(f"{'family':<8}{'weights':>14}{'passes ours/floor':>30}{'process ours/floor':>30}{'peak ours / floor':>24}")
    gpt2_ratio = rows["gpt2"][0]["passes"] / rows["gpt2"][1]["passes"]
    ok = True
    for family, (ours, floor) in rows.items():
        ratio = ours["passes"] / floor["passes"]
        ok &= ratio <= gpt2_ratio * NOISE
        passes = f"{ours['passes']:.2f} s / {floor['passes']:.2f} s = {ratio:.2f}"
        process = f"{ours['wall']:.1f} s / {floor['wall']:.1f} s = {ours['wall'] / floor['wall']:.2f}"
        peaks = f"{ours['maxrss_kb'] / 1024:.0f} / {floor['maxrss_kb'] / 1024:.0f} MiB"
        print(f"{family:<8}{int(ours['weights']):>14,}{passes:>30}{process:>30}{peaks:>24}")
    print(
        f"\ntarget: each family's passes ratio within GPT-2's ({gpt2_ratio:.2f}) x {NOISE}: {'PASS' if ok else 'FAIL'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
