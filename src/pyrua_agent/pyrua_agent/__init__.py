"""Cell runtime, planners, prompt, accounting, recording, evaluation and the pyrua CLI."""

__all__: list[str] = []
