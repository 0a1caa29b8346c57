"""
The cost model of an interface: a fixed plan, replayed by the loopback server through it.

The task's reference program runs once model-free on a fresh world; its cells become the
code interface's replies (one LLM call per cell), and the primitive calls it made become the
tool interfaces' replies (one LLM call per primitive call). ``LoopbackLLMServer`` (a real
OpenAI-compatible peer with o200k token counts and OpenAI's image formula) then plays those
replies to the real planner. This prices the interface on a fixed plan; it is not a
measurement of a model's behaviour: a real model plans, retries and fails differently under
each interface.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
import inspect
from pathlib import Path
from typing import Any

import numpy as np
from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.episode import EpisodeResult, EpisodeWorld, run_episode
from pyrua_agent.llm.reference_server import code_turn, end_turns, ScriptedReply, tool_turn
from pyrua_agent.planners import PLANNERS, ReplayPlanner
from pyrua_agent.planners.percent import read_percent_file, ScriptCell

PICTURE_ONLY = ('image', 'show')
COST_MODEL_NOTE = (
    'Cost model of the interface on a fixed plan: the loopback server plays the same '
    'reference program as code cells and as one primitive call per LLM call. Not a '
    "measurement of a model's behaviour.")


def jsonable(value: Any) -> Any:
    """
    Return ``value`` as JSON types (what a tool call can carry).

    :raises TypeError: for a value JSON cannot hold, naming its type.
    """
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f'argument {value!r} of type {type(value).__name__} vs JSON data; a '
                    'tool call can only carry numbers, strings, lists and objects')


def plan_tool_calls(world: EpisodeWorld, result: EpisodeResult,
                    keep: Sequence[str] = ()) -> list[tuple[str, dict]]:
    """
    Return the primitive calls a program run made, as tool calls with named arguments.

    :param world: the world the program ran in (its primitives' signatures).
    :param result: the program's episode record.
    :param keep: picture calls (``'image'``, ``'show'``) to keep; the others are left out
        because the ``tools`` interface gets pictures after each motion instead.
    """
    calls = []
    for cell in result.cell_results:
        for call in cell.calls:
            if call.name in PICTURE_ONLY and call.name not in keep:
                continue
            function = world.primitives.get(call.name)
            if function is None:
                calls.append((call.name, jsonable(dict(call.kwargs))))
                continue
            bound = inspect.signature(function).bind(*call.args, **call.kwargs)
            calls.append((call.name, jsonable(dict(bound.arguments))))
    return calls


def program_cells(path: str | Path) -> list[ScriptCell]:
    """Return the program's cells that hold a statement (a comment-only cell costs a call)."""
    return [cell for cell in read_percent_file(path) if ast.parse(cell.code).body]


def reference_turns(interface: str, cells: Sequence[ScriptCell],
                    open_world: Callable[[], tuple[EpisodeWorld, Callable[[], None]]]
                    ) -> tuple[list[ScriptedReply], EpisodeResult]:
    """
    Run the program model-free on a fresh world; return the server's turns for ``interface``.

    The program reads the task's text from ``instruction``: the first cell defines it, so the
    model-free run and the code interface run the same cells with no extra LLM call.

    :param interface: ``'code'``, ``'tools'`` or ``'tools_on_request'``.
    :param cells: the program's cells.
    :param open_world: returns a fresh world and its close function.
    :returns: the turns (ending with a closing text answer) and the program's own record.
    """
    budgets = BudgetConfig(max_llm_calls=400, max_cells=400)
    world, close = open_world()
    try:
        codes = [cell.code for cell in cells]
        codes[0] = f'instruction = {world.card.instruction!r}\n{codes[0]}'
        program = run_episode(world, ReplayPlanner.from_codes(codes, 'reference program'),
                              budgets=budgets)
        keep = ('show',) if PLANNERS[interface].images == 'on_request' else ()
        calls = plan_tool_calls(world, program, keep)
    finally:
        close()
    if interface == 'code':
        turns = [code_turn(code) for code in codes[:program.cells]]
    else:
        turns = [tool_turn(name, arguments) for name, arguments in calls]
    return [*turns, *end_turns('Done.')], program
