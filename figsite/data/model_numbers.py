"""The model in numbers, as a run records it (figsite.data.run.Run): its size, read from the model record, and its
weights, counted by the capture (figsite.model.counts). A base of Run, for the figures (figures.numbers)."""

from __future__ import annotations

from figsite.data.records import ModelRecord, Parameters, WeightPart


class ModelNumbers:
    """What a run says of its model in numbers; Run holds the two records it reads."""

    model: ModelRecord  # name, revision, n_layer, n_head, d_model, vocab_size, n_ctx
    parameters: Parameters  # weights by part, feed-forward shapes

    @property
    def n_layer(self) -> int:
        return self.model["n_layer"]

    @property
    def n_head(self) -> int:
        """Heads in one layer."""
        return self.model["n_head"]

    @property
    def n_heads(self) -> int:
        """Heads in the whole model."""
        return self.model["n_layer"] * self.model["n_head"]

    @property
    def n_stages(self) -> int:
        """Stages of the read-out: after the embedding (0) and after each layer."""
        return self.model["n_layer"] + 1

    @property
    def d_model(self) -> int:
        """The model's width: the numbers of one token in the residual stream."""
        return self.model["d_model"]

    @property
    def n_ctx(self) -> int:
        """The model's context length: the most tokens it reads at once."""
        return self.model["n_ctx"]

    @property
    def is_random(self) -> bool:
        name = self.model["name"]  # a run's record names its model (None only before one loads)
        return name is not None and name.startswith("random")

    def weights(self, part: WeightPart | None = None) -> int:
        """How many weights sit in one part of the model ("embedding", "attention", "feed-forward", "layer norm",
        "other"), or in all of it (tied weights counted once)."""
        return self.parameters["total"] if part is None else self.parameters["parts"][part]

    @property
    def feed_forward_shapes(self) -> tuple[list[int], list[int]]:
        """The feed-forward step's two matrices, [in, out] each: [d_model, neurons] and [neurons, d_model]."""
        return self.parameters["feed_forward_in"], self.parameters["feed_forward_out"]

    @property
    def n_neurons(self) -> int:
        """How many neurons one feed-forward step has (its second matrix's rows)."""
        return self.parameters["feed_forward_out"][0]

    @property
    def head_width(self) -> int:
        """The numbers one head works with (its query's, key's and value's width)."""
        return self.parameters["head_width"]
