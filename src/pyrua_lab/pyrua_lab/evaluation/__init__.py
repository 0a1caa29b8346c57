"""
Evaluation at scale: specs, episode lists, executors (local pool, Ray), resume, analysis.

``pyrua eval SPEC --out DIR`` is ``run_eval(load_spec(SPEC), DIR, make_executor(...))``;
``pyrua analyze DIR...`` is ``write_analysis(...)``. Records are the ``pyrua run --json``
dictionaries plus the spec's labels, one JSON file per episode under ``DIR/episodes/``.
"""

from .evaluate import EvalSummary, run_eval
from .executors import EXECUTORS, make_executor
from .jobs import EpisodeJob, expand
from .spec import EvalSpec, InterfaceSpec, load_spec, parse_spec
from .store import read_records, ResultStore

__all__ = [
    'EXECUTORS',
    'EpisodeJob',
    'EvalSpec',
    'EvalSummary',
    'InterfaceSpec',
    'ResultStore',
    'expand',
    'load_spec',
    'make_executor',
    'parse_spec',
    'read_records',
    'run_eval',
]
