"""
The lab's subcommands of ``pyrua``: eval, analyze, train, export and report.

``pyrua`` is one command (``pyrua_agent.cli``); where this package is installed it calls
``add_lab_commands`` to add these subcommands, each with its handler as ``args.handler``.
Only parsing lives here: each handler calls the lab's core, and heavy imports happen inside
the handler that needs them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

EVAL_EXAMPLE = """examples:
  pyrua eval spec.yaml --out evals/code_vs_tools --workers 2   # rerun to resume
  pyrua eval spec.yaml --out evals/run1 --executor ray --ray-address auto
spec (YAML): tasks (names, dimensions, 'stack_*'), seeds, layouts, interfaces
  (label -> {planner, endpoint, source, plan}), budgets, perception, labels;
  see the README section "Evaluation at scale".
"""
ANALYZE_EXAMPLE = """examples:
  pyrua analyze evals/code_vs_tools                  # writes evals/code_vs_tools/analysis/
  pyrua analyze evals/code evals/tools --out report/  # several runs together
"""
TRAIN_EXAMPLE = """examples:
  pyrua train spec.yaml --out runs/train1            # GRPO on the code interface (README)
  pyrua train spec.yaml --out runs/train1 --resume   # continue from the last checkpoint
  pyrua train --plot runs/train1                     # write runs/train1/curve.svg
"""
EXPORT_EXAMPLE = """examples:
  pyrua export runs/ --format sft --out data/sft   # all runs in runs/
  pyrua export evals/run1 --format sft --only-solved --out data/solved
  pyrua export runs/train1/checkpoints/iter-0030 --format gguf --out t.gguf
"""


def add_lab_commands(commands) -> None:
    """
    Add eval, analyze, train, export and report to ``pyrua``'s subparsers ``commands``.

    Each subcommand's handler (``Namespace -> exit status``) is its ``handler`` default.
    """
    _add_eval_parsers(commands)
    _add_train_parser(commands)
    _add_export_parser(commands)
    report = commands.add_parser(
        'report', help='write a self-contained HTML page of a recorded episode',
        epilog='example:\n  pyrua report runs/20261129-101500_pick_place_s0_l0 --out ep.html',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    report.add_argument('run', type=Path, help='episode folder (or its bag/ folder)')
    report.add_argument('--out', type=Path, default=None,
                        help='HTML file to write (default: report.html in the episode folder)')
    report.set_defaults(handler=_report)


def _add_eval_parsers(commands) -> None:
    evaluate = commands.add_parser(
        'eval', help='run a spec of episodes (tasks x seeds x layouts x interfaces), '
                     'resumable, on a local process pool or Ray', epilog=EVAL_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    evaluate.add_argument('spec', type=Path, help='the spec YAML')
    evaluate.add_argument('--out', type=Path, required=True,
                          help='output folder: episodes/ (records), runs/ (recordings)')
    evaluate.add_argument('--executor', default='pool',
                          help='local process pool (default) or Ray')
    evaluate.add_argument('--workers', type=int, default=None,
                          help='pool processes (default 1); with Ray, CPUs of a local Ray')
    evaluate.add_argument('--ray-address', default=None,
                          help='Ray cluster address (default: start a local Ray)')
    evaluate.add_argument('--no-progress', action='store_true', help='no progress bar')
    evaluate.set_defaults(handler=_eval)

    analyze = commands.add_parser(
        'analyze', help='tables (Markdown, CSV), plots (PNG) and an HTML page from eval '
                        'records', epilog=ANALYZE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    analyze.add_argument('dirs', type=Path, nargs='+', help='`pyrua eval` output folders')
    analyze.add_argument('--out', type=Path, default=None,
                         help='output folder (default: <first DIR>/analysis)')
    analyze.set_defaults(handler=_analyze)


def _add_train_parser(commands) -> None:
    train = commands.add_parser(
        'train', help='train an open model with GRPO on code-agent episodes',
        epilog=TRAIN_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    train.add_argument('spec', type=Path, nargs='?', help='training spec (YAML)')
    train.add_argument('--out', type=Path, help='run folder: config, logs, checkpoints')
    train.add_argument('--resume', action='store_true',
                       help='continue the run in --out from its latest checkpoint')
    train.add_argument('--plot', type=Path, metavar='RUN',
                       help='write RUN/curve.svg from RUN/train_log.jsonl and exit')
    train.set_defaults(handler=_train)


def _add_export_parser(commands) -> None:
    export = commands.add_parser(
        'export', help='recorded episodes as training data (SFT samples); a trained '
                       'checkpoint as a GGUF file',
        epilog=EXPORT_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    export.add_argument('runs', type=Path, nargs='+',
                        help='run folders of pyrua run / pyrua eval, or folders holding them; '
                             'for gguf: one checkpoint folder of pyrua train')
    export.add_argument('--format', choices=('sft', 'gguf'), default='sft',
                        help='sft: one chat sample per episode (system prompt, task card, cells '
                             'as python tool calls, outputs) in OUT/sft.jsonl; gguf: the '
                             'checkpoint as one GGUF file OUT (pyrua_local serves it)')
    export.add_argument('--out', type=Path, required=True, help='the export folder or file (new)')
    export.add_argument('--only-solved', action='store_true',
                        help='sft: keep only episodes whose task succeeded')
    export.add_argument('--dtype', choices=('f32', 'f16'), default='f32',
                        help='gguf: weight type (f32 keeps the trained weights exactly)')
    export.add_argument('--tokenizer-gguf', type=Path, default=None,
                        help='gguf: copy the tokenizer from this GGUF (default: the one the '
                             'run started from)')
    export.set_defaults(handler=_export)


def _eval(args: argparse.Namespace) -> int:
    from .evaluation import load_spec, make_executor, run_eval

    spec = load_spec(args.spec)
    executor = make_executor(args.executor, workers=args.workers, ray_address=args.ray_address)
    try:
        summary = run_eval(spec, args.out, executor, progress=not args.no_progress)
    except KeyboardInterrupt:
        print(f'pyrua eval: interrupted; finished episodes are kept in {args.out}/episodes/. '
              'Run the same command again to resume.', file=sys.stderr)
        return 130
    print(f'{summary!r}\n{summary.tally.line()}\nrecords: {args.out}/episodes/  '
          f'(pyrua analyze {args.out})')
    return 0


def _analyze(args: argparse.Namespace) -> int:
    from .evaluation.analysis import write_analysis

    out = args.out or args.dirs[0] / 'analysis'
    for path in write_analysis(args.dirs, out):
        print(path)
    return 0


def _report(args: argparse.Namespace) -> int:
    from .report.page import write_report

    out = args.out or (args.run.parent if args.run.name == 'bag' else args.run) / 'report.html'
    print(write_report(args.run, out))
    return 0


def _export(args: argparse.Namespace) -> int:
    try:
        if args.format == 'gguf':
            from .export.gguf_file import export_checkpoint

            if len(args.runs) != 1:
                raise ValueError(f'--format gguf takes {len(args.runs)} folders vs one '
                                 'checkpoint folder')
            print(repr(export_checkpoint(args.runs[0], args.out, dtype=args.dtype,
                                         tokenizer_gguf=args.tokenizer_gguf)))
            return 0
        from .export import export_sft

        summary = export_sft(args.runs, args.out, only_solved=args.only_solved)
    except FileExistsError as exc:
        print(f'pyrua export: error: {exc}', file=sys.stderr)
        return 2
    print(f'{summary!r}\nsamples: {args.out}/sft.jsonl')
    return 0


def _train(args: argparse.Namespace) -> int:
    from .training import load_train_config, train, TrainingError, write_curve

    if args.plot is not None:
        print(write_curve(args.plot, args.plot / 'curve.svg'))
        return 0
    if args.spec is None or args.out is None:
        raise ValueError('pyrua train needs SPEC.yaml and --out DIR (or --plot RUN)')
    config = load_train_config(args.spec)
    print(f'pyrua train: {config.model}, {len(config.instance_keys())} instances, '
          f'{config.iterations} iterations of {config.episodes_per_iteration} episodes -> '
          f'{args.out}')

    def show(record: dict) -> None:
        print(f"iteration {record['iteration']}: mean reward {record['mean_reward']:.3f}, "
              f"loss {record['loss']:.4g}, {record['tokens_generated']} tokens, "
              f"{record['groups_dropped']} groups dropped, episodes {record['episode_s']:.0f} s, "
              f"optimizer {record['optimizer_s']:.0f} s", flush=True)

    try:
        train(config, args.out, resume=args.resume, on_iteration=show)
    except TrainingError as exc:
        print(f'pyrua train: error: {exc}', file=sys.stderr)
        return 2
    print(f'checkpoints: {args.out}/checkpoints/  log: {args.out}/train_log.jsonl')
    return 0
