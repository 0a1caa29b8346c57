"""
Recorded episodes as training data (``pyrua export``).

``export_sft`` writes chat-format samples of the code interface (system prompt, task card,
cells as ``python`` tool calls, their outputs) from the recordings of any planner, the
bundled programs included; ``read_sft`` reads them back.
"""

from .sft import episode_sample, export_sft, ExportSummary, find_runs, read_sft

__all__ = ['ExportSummary', 'episode_sample', 'export_sft', 'find_runs', 'read_sft']
