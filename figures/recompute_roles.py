"""The code the head-roles notebook shows and runs to recompute every head's habits (figures.notebook:
recompute(model, ids, tables) -> [(table, row, column, value)]), from the attention patterns transformers gives
out: no import of this project. ROLE_SCORES is a function of one model, so that a figure of several models can
call it for each (ROLES: the head-roles figure's recompute with it)."""

from __future__ import annotations

# Every head's score for each habit, on the text and on the random tokens said twice: one model's.
ROLE_SCORES = """\
def role_scores(model, ids, repeated):
    \"\"\"Every head's score for each habit, a (layers, heads) tensor each: the share of its attention that goes
    where the habit looks, on average over the tokens. On the text `ids`: "previous" (each token to the one before
    it, from the second token on), "first" (to the first token, from the second on), "self" (to itself) and
    "duplicate_text" (None where no token repeats an earlier one). On `repeated`, random tokens said twice:
    "duplicate" and "induction" (each token of the second copy to the token after its earlier copy).\"\"\"
    with torch.no_grad():
        text, twice = (torch.stack(model(torch.tensor([t]), output_attentions=True).attentions)[:, 0].double()
                       for t in (ids, repeated))  # (layers, heads, query, key) each
    after, length = torch.arange(1, len(ids)), len(repeated) // 2
    second = torch.arange(length, 2 * length)  # the second copy's tokens
    return {
        "previous": text[..., after, after - 1].mean(dim=-1),
        "first": text[..., after, 0].mean(dim=-1),
        "self": text.diagonal(dim1=-2, dim2=-1).mean(dim=-1),
        "duplicate_text": duplicate(text, ids),
        "duplicate": duplicate(twice, repeated),
        "induction": twice[..., second, second - length + 1].mean(dim=-1),
    }


def duplicate(shares, ids):
    \"\"\"Per head: the shares each token gives the earlier tokens that hold the same token, summed, on average over
    the tokens that have such an earlier copy; None where none has.\"\"\"
    t = torch.tensor(ids)
    same = (t[:, None] == t[None, :]).tril(-1).double()  # (query, key): an earlier copy of the query's token
    having = same.sum(dim=-1) > 0  # (query,)
    return (shares * same).sum(dim=-1)[..., having].mean(dim=-1) if having.any() else None


"""

# The head-roles figure: the random tokens are the build's own draw (SEQUENCE, its first copy), said twice.
ROLES = (
    ROLE_SCORES
    + """\
def recompute(model, ids, tables):
    \"\"\"Each head's habits, a row of the page's table `heads` (layer and head from 1): previous, first, self and
    duplicate_on_text measured on the text, duplicate and induction on SEQUENCE said twice (role_scores).\"\"\"
    scores = role_scores(model, ids, SEQUENCE + SEQUENCE)
    columns = {"previous": "previous", "first": "first", "self": "self", "duplicate": "duplicate",
               "induction": "induction", "duplicate_text": "duplicate_on_text"}
    return [("heads", i, column, float(scores[role][row["layer"] - 1, row["head"] - 1]))
            for role, column in columns.items() if scores[role] is not None
            for i, row in enumerate(tables["heads"])]
"""
)
