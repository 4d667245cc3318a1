"""The one error a build reports to its author: a single line, exit code 2, no traceback."""


class BuildError(Exception):
    """Bad input or an unusable model. The message is one line that names what was wrong and what is allowed."""

    exit_code = 2

    def __init__(self, message: str):
        # Keep the promise of one line even when a library's message spans several.
        super().__init__(" ".join(str(message).split()))
