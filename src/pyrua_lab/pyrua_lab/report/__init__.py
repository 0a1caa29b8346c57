"""The episode report: a self-contained HTML page from an episode bag (``pyrua report``)."""

from .page import render_report, write_report

__all__ = [
    'render_report',
    'write_report',
]
