"""
The ``pyrua`` command: run episodes, look at task layouts.

The lab's subcommands (eval, analyze, train, export, report) are added by ``pyrua_lab.cli``
where that package is installed; elsewhere they say what to install (exit status 2).
Only parsing lives here: each command builds its configuration and calls the core.
Heavy imports happen inside the command that needs them.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import json
import logging
from pathlib import Path
import sys

RUN_EXAMPLE = """examples:
  pyrua run --task pick_place --seed 0                 # bundled reference program
  pyrua run --task stack_blocks --seed 0 --layout 3 --script my_program.py --json out.json
  OPENAI_API_KEY=... pyrua run --task pick_place --planner code --model gpt-5-mini
  pyrua run --task pick_place --planner tools --base-url http://127.0.0.1:8000/v1 \\
      --model Qwen/Qwen3-8B                            # any OpenAI-compatible server
  pyrua run --task pick_place --planner code --model local   # a local open model, no key
  pyrua run --task pick_place --planner tools --model local:qwen2.5-coder-0.5b
  pyrua run --task libero_spatial/3 --layout 7 --perception oracle   # LIBERO (extra)
"""
PROMPT_EXAMPLE = """examples:
  pyrua prompt --task pick_place                        # code interface, local model
  pyrua prompt --task sort_by_color --layout 3 --planner tools --model gpt-5-mini
  pyrua prompt --task pick_place --raw                  # the template-rendered text
"""
SERVE_EXAMPLE = """examples:
  pyrua serve                                  # Qwen2.5-Coder-0.5B at 127.0.0.1:8080/v1
  pyrua serve --model local:smollm2-135m --port 0
  pyrua run --task pick_place --planner code --base-url http://127.0.0.1:8080/v1 --model local
"""
VIEW_EXAMPLE = """examples:
  pyrua view --task pick_place --seed 0 --layouts 0 1 2 --out views/
  pyrua view --task sort_by_color --seed 0 --layouts 0-9 --sheet --out views/
  pyrua view --task libero_goal/2 --layouts 0-3 --out views/   # init states 0..3
"""


def _layouts(text: str) -> list[int]:
    if '-' in text:
        first, last = text.split('-', 1)
        return list(range(int(first), int(last) + 1))
    return [int(text)]


def _common_task_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--task', required=True,
                        help='task name, e.g. pick_place, or a benchmark task <suite>/<index>, '
                             'e.g. libero_spatial/3 (pyrua tasks lists them)')
    parser.add_argument('--seed', type=int, default=0, help='layout seed, 0..999 (default 0)')


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``pyrua`` command."""
    from .lab_commands import add_lab_parsers
    from .planners import PLANNERS  # the registry names the choices
    from .runtime.sandbox import SANDBOX_MODES

    parser = argparse.ArgumentParser(prog='pyrua', description=(
        'Run language-model robot agents on the ARX-X5 station or its MuJoCo twin.'))
    parser.add_argument('-v', '--verbose', action='store_true', help='log at INFO level')
    commands = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

    run = commands.add_parser(
        'run', help='run one episode on the embedded twin', epilog=RUN_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _common_task_args(run)
    run.add_argument('--layout', type=int, default=0,
                     help='layout index, 0..49 (default 0); a benchmark task: its init state')
    run.add_argument('--depth', action='store_true',
                     help='enable depth images (locate uses them; robo.back_project(..., '
                          'depth=True) grounds a pixel in 3-D)')
    run.add_argument('--perception', default='rgb', choices=('rgb', 'oracle', 'rgbd'),
                     help='how robo.locate sees: rgb (cameras, default), oracle (PRIVILEGED '
                          'ground truth by object name, where the world has it: LIBERO) or '
                          'rgbd (LIBERO: depth + colour segments named by the asset catalogue)')
    run.add_argument('--planner', default='script', choices=sorted(PLANNERS),
                     help='who writes the cells: ' + '; '.join(
                         f'{name}: {kind.summary}' for name, kind in sorted(PLANNERS.items()))
                     .replace('%', '%%') + ' (default: script)')
    run.add_argument('--script', type=Path, default=None,
                     help='percent file (# %%%% cells) for --planner script (default: the '
                          "task's bundled reference program), transcript.jsonl for replay")
    run.add_argument('--base-url', default=None,
                     help='OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 '
                          "(default: OpenAI's)")
    run.add_argument('--model', default=None,
                     help="model name sent to the endpoint; 'local' or 'local:<name>' serves "
                          'an open model on 127.0.0.1 for the run (no endpoint, no key; '
                          'setup.sh --local installs it)')
    run.add_argument('--reasoning-effort', default=None,
                     help='reasoning effort sent to the endpoint (only when given)')
    run.add_argument('--api-key-env', default=None,
                     help='environment variable holding the API key (default OPENAI_API_KEY)')
    run.add_argument('--prices', type=Path, default=None,
                     help='price table YAML over the packaged one (USD per million tokens)')
    run.add_argument('--max-calls', type=int, default=None, help='LLM call budget (default 40)')
    run.add_argument('--json', type=Path, default=None, help='write the episode result here')
    run.add_argument('--images', type=Path, default=None,
                     help='folder for the images the cells showed (default: none written)')
    run.add_argument('--max-cells', type=int, default=None, help='cell budget')
    run.add_argument('--wall-clock', type=float, default=None, help='wall-clock budget, s')
    run.add_argument('--cell-timeout', type=float, default=None, help='per-cell limit, s')
    run.add_argument('--no-guard', action='store_true',
                     help='do not stop cells once the task has succeeded')
    run.add_argument('--no-progress', action='store_true',
                     help='no live line while a local model reads the prompt and writes '
                          '(shown on a terminal only; never recorded)')
    run.add_argument('--call-form', default=None, choices=('tool', 'fence'),
                     help='how the model of the code interface writes a cell: tool (a JSON '
                          'python(code) call) or fence (a ```python block); default: tool '
                          'for hosted endpoints, fence for --model local')
    run.add_argument('--record', type=Path, default=Path('runs'),
                     help='folder for the episode recording: one sub-folder per episode with '
                          'a rosbag2 (MCAP) bag and transcript.jsonl (default: runs/)')
    run.add_argument('--no-record', action='store_true', help='record nothing')
    run.add_argument('--sandbox', default='auto', choices=SANDBOX_MODES,
                     help='cell isolation: bwrap (bubblewrap), none (process only), auto '
                          '(bwrap where it works here; default)')
    run.add_argument('--foxglove', nargs='?', const=8765, type=int, metavar='PORT',
                     help='stream the episode to Foxglove Studio at ws://127.0.0.1:PORT '
                          '(default 8765; needs the live extra)')

    replay = commands.add_parser(
        'replay', help='re-run a recorded episode against its bag (no robot, no simulator) '
                       'and report divergence',
        epilog='examples:\n  pyrua replay runs/<episode>\n'
               '  pyrua replay runs/<episode> --export cells.py   # edit, then\n'
               '  pyrua replay runs/<episode> --script cells.py',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument('run', type=Path, help='episode folder (or its bag/ folder)')
    replay.add_argument('--script', type=Path, default=None,
                        help='run these cells (a # %%%% file) instead of the recorded ones')
    replay.add_argument('--export', type=Path, default=None,
                        help='write the recorded cells as a # %%%% file and exit')

    commands.add_parser('tasks', help='list the built-in tasks and the benchmark suites')
    _add_model_parsers(commands)
    add_lab_parsers(commands)

    view = commands.add_parser(
        'view', help="render a task layout's camera images to PNG", epilog=VIEW_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _common_task_args(view)
    view.add_argument('--layouts', nargs='+', default=['0'],
                      help='layout indices, e.g. 0 1 2 or 0-9 (default 0)')
    view.add_argument('--sheet', action='store_true',
                      help='one contact sheet of the head camera instead of three PNGs each')
    view.add_argument('--out', type=Path, default=Path('views'), help='output folder')
    return parser


def _add_model_parsers(commands) -> None:
    from pyrua_local.cli import add_serve_arguments

    from .planners import PLANNERS

    serve = commands.add_parser(
        'serve', help='serve a local open model (OpenAI API on 127.0.0.1) for other clients',
        epilog=SERVE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_serve_arguments(serve)
    prompt = commands.add_parser(
        'prompt', help='print exactly what the model reads at the start of an episode, with '
                       'its token count', epilog=PROMPT_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _common_task_args(prompt)
    prompt.add_argument('--layout', type=int, default=0, help='layout index (default 0)')
    prompt.add_argument('--planner', default='code',
                        choices=sorted(n for n, k in PLANNERS.items() if k.needs_endpoint),
                        help='the interface (default code)')
    prompt.add_argument('--model', default='local',
                        help="the model: 'local' (default), 'local:<name>' (counted in its own "
                             'tokenizer) or a hosted name (counted in o200k)')
    prompt.add_argument('--raw', action='store_true',
                        help="print the prompt text as a local model's chat template renders it")


def _serve(args: argparse.Namespace) -> int:
    from pyrua_local.cli import serve

    return serve(args)


def _prompt(args: argparse.Namespace) -> int:
    from pyrua_primitives.world import world_of

    from .episode import EpisodeSpec
    from .llm import EndpointConfig
    from .episode.opening_view import opening_view

    spec = EpisodeSpec(task=args.task, seed=args.seed, layout=args.layout,
                       planner=args.planner, world=world_of(args.task),
                       endpoint=EndpointConfig(model=args.model), record=False)
    view = opening_view(spec)
    if args.raw and view.prompt_text is None:
        raise ValueError(f'--raw needs a local model (its chat template) vs {args.model!r}; '
                         'use --model local or local:<name>')
    print(view.prompt_text if args.raw else view.text())
    print(f'\n# {view.prompt_tokens} prompt tokens in {view.tokenizer}', file=sys.stderr)
    return 0


def _print_cell(index: int, label: str, code: str, output: str) -> None:
    from .runtime.output import terminal_safe  # model-written code may hold escapes too

    print(f'\n--- cell {index}: {label}' if label else f'\n--- cell {index}')
    print('\n'.join(f'>>> {line}' for line in terminal_safe(code).splitlines()))
    print(output.rstrip('\n') if output.strip() else '(no output)')


def spec_from_args(args: argparse.Namespace):
    """Return the ``EpisodeSpec`` of ``pyrua run``'s arguments (nothing else is decided here)."""
    from .budgets import BudgetConfig
    from .episode import EpisodeSpec
    from .llm import EndpointConfig
    from .planners import needs_endpoint

    budget_args = {}
    for flag, name in (('max_cells', 'max_cells'), ('wall_clock', 'wall_clock_s'),
                       ('max_calls', 'max_llm_calls')):
        if getattr(args, flag) is not None:
            budget_args[name] = getattr(args, flag)
    endpoint = {'base_url': args.base_url, 'model': args.model,
                'reasoning_effort': args.reasoning_effort, 'api_key_env': args.api_key_env,
                'call_form': getattr(args, 'call_form', None)}
    from pyrua_primitives.library import LibraryConfig

    llm = needs_endpoint(args.planner)
    from pyrua_primitives.world import world_of

    world = world_of(args.task)
    library = LibraryConfig(use_depth=bool(getattr(args, 'depth', False)))
    if getattr(args, 'perception', 'rgb') == 'oracle':
        library = LibraryConfig(segmenter='oracle', allow_privileged=True,
                                use_depth=library.use_depth)
    elif getattr(args, 'perception', 'rgb') == 'rgbd':
        library = LibraryConfig(segmenter='rgbd', use_depth=True)
    return EpisodeSpec(
        task=args.task, seed=args.seed, layout=args.layout, planner=args.planner, world=world,
        library=library, station=_station_config(world, library),
        source=None if args.script is None else str(args.script),
        endpoint=EndpointConfig(**{k: v for k, v in endpoint.items() if v is not None}),
        prices_file=None if args.prices is None or not llm else str(args.prices),
        budgets=BudgetConfig(**budget_args), cell_timeout_s=args.cell_timeout,
        success_guard=not args.no_guard, record=not args.no_record, runs_dir=str(args.record),
        sandbox=args.sandbox)


def _station_config(world: str, library):
    """Return the twin's station settings: depth rendered only when asked for."""
    if world != 'twin' or not library.use_depth:
        return None
    from pyrua_sim.config import StationConfig

    return StationConfig(depth_enabled=True)


def _run(args: argparse.Namespace) -> int:
    from pyrua_sim.benchmarks import is_benchmark_task
    from pyrua_sim.tasks import get_task

    from .episode import planner_source, run_episode_spec

    if not is_benchmark_task(args.task):  # benchmark tasks are checked by spec_from_args
        get_task(args.task)  # refuse an unknown task before anything else, with suggestions
    spec = spec_from_args(args)
    what = spec.endpoint.model if spec.uses_endpoint else planner_source(spec)
    print(f'pyrua run: task {spec.task}, seed {spec.seed}, layout {spec.layout}, '
          f'planner {spec.planner} ({what}), perception {args.perception}')
    observers = []
    if args.foxglove is not None:
        from .live import FoxgloveLiveView

        live = FoxgloveLiveView(port=args.foxglove)
        print(f'live view: ws://127.0.0.1:{live.port} (open it in Foxglove Studio)')
        observers.append(live)
    shown: list[tuple[int, object]] = []

    def on_cell(cell, result) -> None:
        _print_cell(result.index, cell.label, cell.code, result.output)
        shown.extend((result.index, image) for image in result.images)

    result = run_episode_spec(
        spec, observers=observers, on_cell=on_cell,
        on_begin=lambda world: print(f'instruction: {world.card.instruction}'),
        on_call=lambda ledger: print(f'[llm] {ledger.progress()}', flush=True),
        progress=not args.no_progress)
    if args.images is not None:
        _write_images(args.images, shown)
    score = 'n/a' if result.score is None else f'{result.score:.2f}'
    print(f'\nend reason: {result.end_reason} ({result.end_detail})')
    print(f'success: {result.success}   score: {score}   cells: {result.cells}   '
          f'wall: {result.wall_s:.1f} s   perception: {args.perception}')
    for line in result.unmet:  # why not solved, then what the score counts
        print(f'  not solved: {line}')
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        record = {**result.to_dict(), 'perception': args.perception}  # oracle or not
        args.json.write_text(json.dumps(record, indent=2) + '\n')
        print(f'episode result: {args.json}')
    if result.run_dir is not None:
        print(f'recording: {result.run_dir}/  (pyrua report {result.run_dir})')
    return 0


def _replay(args: argparse.Namespace) -> int:
    from .replay import replay_episode, write_script

    if args.export is not None:
        print(write_script(args.run, args.export))
        return 0

    def on_cell(cell, result, comparison) -> None:
        _print_cell(result.index, cell.label, cell.code, result.output)
        print(f'[{comparison.status} vs the recording]')

    outcome = replay_episode(args.run, script=args.script, on_cell=on_cell)
    print(outcome.report.text())
    return 0 if outcome.report.identical else 1


def _write_images(folder: Path, shown: Sequence[tuple[int, object]]) -> None:
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    for cell_index, image in shown:
        path = folder / f'cell{cell_index:02d}_img{image.index}_{image.camera}.png'
        cv2.imwrite(str(path), image.pixels[:, :, ::-1])
    print(f'{len(shown)} shown images written to {folder}/')


def _tasks(args: argparse.Namespace) -> int:
    from pyrua_sim.benchmarks import benchmark_suites
    from pyrua_sim.tasks import TASKS

    print('built-in tasks (pyrua run --task NAME --seed S --layout 0..49):')
    for name in sorted(TASKS):
        print(f'  {name:16s} {TASKS[name].dimension}')
    for benchmark, suites in benchmark_suites().items():
        print(f'\n{benchmark} suites (pyrua run --task SUITE/INDEX --layout INIT_STATE; '
              f'needs: pip install -e src/pyrua_sim[{benchmark}]):')
        for suite in suites:
            print(f'  {suite}')
    return 0


def _view(args: argparse.Namespace) -> int:
    from pyrua_sim.view import contact_sheet, render_views

    indices = [i for text in args.layouts for i in _layouts(text)]
    make = contact_sheet if args.sheet else render_views
    for path in make(args.task, args.seed, indices, args.out):
        print(path)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pyrua`` command line; return the exit status."""
    from pyrua_local.errors import LocalModelError
    from pyrua_primitives.errors import MissingDependency

    from .lab_commands import lab_missing

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)  # a lab stand-in takes any arguments
    if extra and getattr(args, 'handler', None) is not lab_missing:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format='%(levelname)s %(name)s: %(message)s')
    handlers = {'replay': _replay, 'run': _run, 'tasks': _tasks, 'view': _view,
                'prompt': _prompt, 'serve': _serve}
    try:
        handler = getattr(args, 'handler', None) or handlers[args.command]
        return handler(args)
    except (KeyError, ValueError, FileNotFoundError, MissingDependency,
            LocalModelError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f'pyrua {args.command}: error: {message}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
