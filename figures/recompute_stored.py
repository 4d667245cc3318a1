"""What the notebooks of the figures that read the page's stored attention shares (attention, heads, find-head) put
before their recompute: STORED, the code of stored(shares) (the lowest and the highest each share may be as the
page's data keep it) and within(...), and `storage`, the parameters it reads for a text.

A text's data keep every share to 6 decimals, which the check's tolerance covers. A long text's (data format 3,
above about 117 tokens on GPT-2 small: figsite.data.format.is_long) keep only shares of MIN_SHARE (0.5%) or more,
each to the nearest SHARE_UNIT (0.0001): a step and a cut that a number summed or ranked from them carries whole,
far beyond the tolerance. There the recompute keeps its own shares as the page keeps them; and since the build's
float32 run may lie a little way from the notebook's (SLACK: the check's own tolerance), a share that close to a
step's middle or to the cut may have been kept either way, and the page's number may be any the two ways give.
"""

from __future__ import annotations

from figsite.data.format import ATTENTION_DECIMALS
from figsite.data.run import MIN_SHARE, SHARE_UNIT, Run
from figures.notebook import TOLERANCE

STORED = '''\
def stored(shares, slack=None):
    """The lowest and the highest each share may be as the page's data keep it: to the nearest SHARE_UNIT, and 0
    below MIN_SHARE (a long text's data leave those out). A share within `slack` (SLACK unless given) of a step's
    middle or of MIN_SHARE may have been kept either way: the build's float32 run, which rounds in float32 too, may
    lie that far off."""
    slack = SLACK if slack is None else slack

    def kept(s):
        return torch.where(s >= MIN_SHARE, torch.round(s / SHARE_UNIT) * SHARE_UNIT, torch.zeros_like(s))

    return kept(shares - slack), kept(shares + slack)


def within(shown, low, high):
    """The number the recompute gives for one the page shows as `shown`: as the shares may have been kept, it may be
    anything from low to high (one number where no share is in doubt), so the page's own where it lies between
    them, else the nearer end, which the check then finds off."""
    return min(max(shown, float(low)), float(high))


if MIN_SHARE:
    print(f"A long text: its page keeps only shares of {MIN_SHARE:.1%} or more, each to {SHARE_UNIT}. Each number is "
          f"checked against what that makes of this run's shares, a share within {SLACK} of a step's middle or of "
          f"{MIN_SHARE:.1%} taken either way.")


'''


def storage(run: Run, text: str) -> dict[str, float]:
    """What stored() reads: how the text's data keep a share (a long text's: SHARE_UNIT, MIN_SHARE; a short one's:
    6 decimals, none left out), and SLACK, how far the build's share may lie from the notebook's (0 for a short
    text, whose 6 decimals the check's tolerance covers)."""
    if run.is_long(text):
        return {"SHARE_UNIT": SHARE_UNIT, "MIN_SHARE": MIN_SHARE, "SLACK": TOLERANCE}
    return {"SHARE_UNIT": 10.0**-ATTENTION_DECIMALS, "MIN_SHARE": 0.0, "SLACK": 0.0}
