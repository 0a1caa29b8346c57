"""
Cost model of the code and tool-calling interfaces on a fixed plan: LLM calls, input tokens.

A scripted loopback server (``pyrua_agent.llm.reference_server.LoopbackLLMServer``, real ``openai``
client, o200k token counts and OpenAI's image formula) plays one reference program twice:

- code interface: one LLM call per program cell (``python(code)``);
- tool calling: one LLM call per primitive call the program made, with every camera's
  picture after each motion or gripper call (the ``tools`` planner).

Both runs go through ``run_episode`` on a fresh world. This is a cost model of the interface
on a fixed plan, not a measurement of a model's behaviour: a real model plans, retries and
fails differently under each interface.

Budgets are raised to 400 calls and cells so that both plans run to their end; a plan past
the default 40-call budget is flagged.

Run: ``.venv/bin/python benchmarks/bench_interfaces.py`` (toy world, about 15 s), or
``.venv/bin/python benchmarks/bench_interfaces.py --twin [--layout N]`` (MuJoCo twin with the
bundled reference programs, about 2 min; ``--program FILE`` for one task).
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Callable, Sequence
import math
from pathlib import Path

import numpy as np
from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.episode import EpisodeResult, EpisodeWorld, run_episode
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.llm.reference_server import code_turn, LoopbackLLMServer, text_turn, tool_turn
from pyrua_agent.planners import CodeAgentPlanner, ReplayPlanner, TaskCard, ToolCallingPlanner
from pyrua_agent.planners.percent import parse_percent, read_percent_file, ScriptCell
from pyrua_lab.evaluation.cost_model import plan_tool_calls
from pyrua_primitives.results import GripperResult, MoveResult

TASKS = ('pick_place', 'stack_three')
CAMERAS = ('head', 'left_wrist', 'right_wrist')
TABLE_Z = 0.765
HALF_BLOCK_M = 0.02
NOTE = ('Cost model of the interface on a fixed plan: the loopback server plays the same '
        'reference program as code cells and as one primitive call per LLM call (camera '
        "images after each motion). Not a measurement of a model's behaviour.")

TOY_PROGRAMS = {
    'pick_place': """
# %% look
block = robo.locate('red block')
bowl = robo.locate('blue bowl')
print(block, bowl)
arm = 'left' if block[0] < 0 else 'right'
# %% grasp
print(robo.open_gripper(arm))
print(robo.move_to(arm, [block[0], block[1], block[2] + 0.10]))
print(robo.move_to(arm, block))
print(robo.close_gripper(arm))
# %% place
print(robo.move_to(arm, [block[0], block[1], block[2] + 0.10]))
print(robo.move_to(arm, [bowl[0], bowl[1], bowl[2] + 0.10]))
print(robo.open_gripper(arm))
robo.show('head', 'is the block in the bowl?')
""",
    'stack_three': """
# %% look
names = ['red block', 'green block', 'blue block']
where = {name: robo.locate(name) for name in names}
print(where)
# %% a helper that moves one block onto a point
def carry(name, onto):
    p = where[name]
    arm = 'left' if p[0] < 0 else 'right'
    print(robo.open_gripper(arm))
    print(robo.move_to(arm, [p[0], p[1], p[2] + 0.10]))
    print(robo.move_to(arm, p))
    grasp = robo.close_gripper(arm)
    print(grasp)
    print(robo.move_to(arm, [p[0], p[1], p[2] + 0.10]))
    print(robo.move_to(arm, [onto[0], onto[1], onto[2] + 0.10]))
    print(robo.move_to(arm, [onto[0], onto[1], onto[2] + 0.045]))
    print(robo.open_gripper(arm))
    where[name] = robo.locate(name)
    return grasp.held
# %% green on red
print(carry('green block', where['red block']))
robo.show('head', 'green on red?')
# %% blue on green
print(carry('blue block', where['green block']))
robo.show('head', 'three blocks stacked?')
""",
}


class ToyStation:
    """
    Blocks and a bowl on the table; a closed gripper at a block carries it.

    Primitives mirror the robo API's names and arguments (metres, station frame) with no
    physics: the plan's calls, results and pictures are what the cost model needs.
    """

    def __init__(self, task: str) -> None:
        self.task = task
        self.objects = {'red block': [-0.15, -0.15, TABLE_Z + HALF_BLOCK_M]}
        if task == 'pick_place':
            self.objects['blue bowl'] = [-0.25, 0.0, TABLE_Z]
        else:
            self.objects['green block'] = [-0.05, -0.05, TABLE_Z + HALF_BLOCK_M]
            self.objects['blue block'] = [0.15, -0.10, TABLE_Z + HALF_BLOCK_M]
        self.tcp = {'left': [-0.30, -0.25, 1.0], 'right': [0.30, -0.25, 1.0]}
        self.held: dict[str, str | None] = {'left': None, 'right': None}

    def locate(self, query: str) -> tuple[float, float, float] | None:
        """
        Find an object by its description.

        :param query: e.g. ``'red block'``.
        :returns: its centre (x, y, z) in metres, or None when no camera sees it.
        """
        found = self.objects.get(query)
        return None if found is None else tuple(round(v, 4) for v in found)

    def move_to(self, arm: str, xyz: Sequence[float], heading: float | None = None) -> MoveResult:
        """
        Move the tool centre point of ``arm`` to ``xyz`` (metres, station frame).

        :param arm: ``'left'`` or ``'right'``.
        :param xyz: the target.
        :param heading: gripper yaw in radians; unchanged when None.
        :returns: the move's result; a target below the table is refused.
        """
        target = tuple(float(v) for v in xyz)
        if target[2] < TABLE_Z:
            return MoveResult(False, f'z={target[2]:.3f} m is below the table top; raise z',
                              arm, target, tuple(self.tcp[arm]), 0.0, 0.0, 0.0)
        self.tcp[arm] = list(target)
        if self.held[arm] is not None:
            self.objects[self.held[arm]] = list(target)
        return MoveResult(True, '', arm, target, target, heading or 0.0, 0.0, 1.0)

    def open_gripper(self, arm: str) -> GripperResult:
        """
        Open the gripper of ``arm``, releasing what it holds onto what lies below.

        :param arm: ``'left'`` or ``'right'``.
        """
        name = self.held[arm]
        if name is not None:
            self.held[arm] = None
            x, y, _ = self.objects[name]
            below = [p[2] + HALF_BLOCK_M for n, p in self.objects.items()
                     if n != name and n.endswith('block') and math.dist(p[:2], (x, y)) < 0.02]
            self.objects[name][2] = max(below, default=TABLE_Z) + HALF_BLOCK_M
        return GripperResult(False, '', arm, 'open', 0.088, 0.088)

    def close_gripper(self, arm: str) -> GripperResult:
        """
        Close the gripper of ``arm``.

        :param arm: ``'left'`` or ``'right'``.
        :returns: held=True when the fingers stopped on a block.
        """
        for name, position in self.objects.items():
            if name.endswith('block') and math.dist(position, self.tcp[arm]) < 0.01:
                self.held[arm] = name
                return GripperResult(True, '', arm, 'close', 0.04, 0.0)
        return GripperResult(False, 'the fingers closed fully: nothing held', arm, 'close',
                             0.0, 0.0)

    def image(self, camera: str) -> np.ndarray:
        """
        Take a 640x480 RGB picture.

        :param camera: ``'head'``, ``'left_wrist'`` or ``'right_wrist'``.
        """
        frame = np.full((480, 640, 3), 90, np.uint8)
        frame[:, :, CAMERAS.index(camera)] = 160
        return frame

    def success(self) -> bool:
        """Return whether the task's goal holds with both grippers released."""
        if any(self.held.values()):
            return False
        o = self.objects
        if self.task == 'pick_place':
            return math.dist(o['red block'][:2], o['blue bowl'][:2]) < 0.04
        chain = [o['red block'], o['green block'], o['blue block']]
        return all(math.dist(a[:2], b[:2]) < 0.02 and 0.03 < b[2] - a[2] < 0.05
                   for a, b in zip(chain, chain[1:], strict=False))

    def world(self) -> EpisodeWorld:
        """Return the episode description of this toy layout."""
        card = TaskCard(
            task=self.task,
            instruction=('Put the red block in the blue bowl.' if self.task == 'pick_place'
                         else 'Stack the green block on the red one and the blue on top.'),
            robot_state='\n'.join(f'{arm}: tcp {tuple(p)} m, gripper open'
                                  for arm, p in self.tcp.items()),
            images=tuple((camera, self.image(camera)) for camera in CAMERAS))
        primitives = {name: getattr(self, name) for name in
                      ('locate', 'move_to', 'open_gripper', 'close_gripper', 'image')}
        return EpisodeWorld(task=self.task, seed=0, layout=0, card=card,
                            primitives=primitives,
                            acting=('move_to', 'open_gripper', 'close_gripper'),
                            success=self.success)


def run_interface(interface: str, world: EpisodeWorld, turns: list, model: str,
                  budgets: BudgetConfig) -> tuple[EpisodeResult, LoopbackLLMServer]:
    """Run one episode with the server playing ``turns`` (then a closing text answer)."""
    server = LoopbackLLMServer([*turns, text_turn('Done.')])
    endpoint = EndpointConfig(base_url=server.base_url, model=model, max_retries=0)
    if interface == 'code':
        planner = CodeAgentPlanner(endpoint, world.primitives)
    else:
        planner = ToolCallingPlanner(endpoint, world.primitives, images='after_motion')
    try:
        result = run_episode(world, planner, budgets=budgets)
    finally:
        server.close()
    totals = result.ledger.totals()
    if totals.input_tokens != sum(u['prompt_tokens'] for u in server.usages):
        raise RuntimeError(f'{interface}: ledger input tokens {totals.input_tokens} vs the '
                           'server-reported sum; the accounting is broken')
    return result, server


def measure(task: str, cells: Sequence[ScriptCell], open_world: Callable[[], tuple],
            model: str) -> list[tuple[str, EpisodeResult]]:
    """
    Run the program, then the code and tool interfaces on fresh worlds; return results.

    Programs read the task's text from ``instruction``, as under the script planner; here
    the first cell defines it, so the model-free run and the code interface run the same
    cells with no extra LLM call.
    """
    budgets = BudgetConfig(max_llm_calls=400, max_cells=400)
    world, close = open_world()
    try:
        codes = [cell.code for cell in cells]
        codes[0] = f'instruction = {world.card.instruction!r}\n{codes[0]}'
        program = run_episode(world, ReplayPlanner.from_codes(codes, task), budgets=budgets)
        calls = plan_tool_calls(world, program)
    finally:
        close()
    if program.end_reason != 'solved':
        print(f'note: the reference program of {task} ended {program.end_reason} '
              f'({program.end_detail}); the plan is priced as it ran')
    rows = []
    for interface, turns in (('code', [code_turn(c) for c in codes[:program.cells]]),
                             ('tools', [tool_turn(n, a) for n, a in calls])):
        world, close = open_world()
        try:
            result, _ = run_interface(interface, world, turns, model, budgets)
        finally:
            close()
        rows.append((interface, result))
    return rows


def _toy(task: str) -> Callable[[], tuple]:
    return lambda: (ToyStation(task).world(), lambda: None)


def _twin(task: str, seed: int, layout: int) -> Callable[[], tuple]:
    from pyrua_agent.episode import open_twin_world

    def open_world():
        world, twin = open_twin_world(task, seed, layout)
        return world, twin.close

    return open_world


def _program(task: str, path: Path | None, twin: bool) -> list[ScriptCell]:
    """Return the program's cells that hold a statement (a comment-only cell costs a call)."""
    if path is not None:
        cells = read_percent_file(path)
    elif not twin:
        cells = parse_percent(TOY_PROGRAMS[task])
    else:
        from pyrua_agent.episode import bundled_program

        cells = read_percent_file(bundled_program(task))
    return [cell for cell in cells if ast.parse(cell.code).body]


def main(argv: list[str] | None = None) -> None:
    """Print calls, input tokens and their ratios for each task and interface."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--twin', action='store_true',
                        help='run on the MuJoCo twin (default: the toy world)')
    parser.add_argument('--task', nargs='+', default=list(TASKS), help='tasks to run')
    parser.add_argument('--program', type=Path, default=None,
                        help='percent file of the reference program (one task only)')
    parser.add_argument('--seed', type=int, default=0, help='twin layout seed')
    parser.add_argument('--layout', type=int, default=0, help='twin layout index')
    parser.add_argument('--model', default='gpt-5-mini', help='model name for the price table')
    args = parser.parse_args(argv)
    if args.program is not None and len(args.task) != 1:
        parser.error('--program needs exactly one --task')
    world_name = 'MuJoCo twin' if args.twin else 'toy world'
    print(NOTE)
    print(f'World: {world_name}; prices: {args.model} from pyrua_agent/prices.yaml.\n')
    print(f'{"task":<12} {"interface":<9} {"end":<8} {"calls":>5} {"cells":>5} '
          f'{"input tok":>10} {"cached":>8} {"images":>6} {"output tok":>10} {"cost $":>8}')
    for task in args.task:
        cells = _program(task, args.program, args.twin)
        opener = _twin(task, args.seed, args.layout) if args.twin else _toy(task)
        rows = measure(task, cells, opener, args.model)
        for interface, result in rows:
            t = result.ledger.totals()
            cost = 'n/a' if t.cost_usd is None else f'{t.cost_usd:.4f}'
            print(f'{task:<12} {interface:<9} {result.end_reason:<8} {t.llm_calls:>5} '
                  f'{result.cells:>5} {t.input_tokens:>10,} {t.cached_input_tokens:>8,} '
                  f'{t.images_sent:>6} {t.output_tokens:>10,} {cost:>8}')
        code, tools = (r.ledger.totals() for _, r in rows)
        limit = BudgetConfig().max_llm_calls
        for (interface, _), t in zip(rows, (code, tools), strict=True):
            if t.llm_calls > limit:
                print(f'{"":<12} note: {interface} made {t.llm_calls} calls vs the default budget '
                      f'of {limit}; it ran to the end here, the protocol would stop it')
        per_call = (code.input_tokens / code.llm_calls) / (tools.input_tokens / tools.llm_calls)
        print(f'{"":<12} code/tools: calls {code.llm_calls / tools.llm_calls:.2f}, input tokens '
              f'{code.input_tokens / tools.input_tokens:.2f}, tokens per call {per_call:.2f}')


if __name__ == '__main__':
    main()
