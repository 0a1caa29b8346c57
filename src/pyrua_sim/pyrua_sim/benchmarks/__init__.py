"""
Third-party benchmarks as worlds: a Station over the benchmark's robot plus a task source.

Each adapter uses the benchmark's own scenes, init states and success checks, never copies.
Task names carry the benchmark's suite: ``'libero_spatial/3'`` is task 3 of LIBERO-Spatial.
The adapters' packages are optional extras, imported only when a benchmark task is loaded.
"""

from __future__ import annotations

from .registry import benchmark_suites, is_benchmark_task, load

__all__ = ['benchmark_suites', 'is_benchmark_task', 'load']
