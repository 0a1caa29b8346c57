"""
The lab's ``pyrua`` subcommands: from ``pyrua_lab`` where it is installed, else stand-ins.

Evaluation, analysis, training, export and the episode report live in the ``pyrua_lab``
package, which depends on this one (never the other way round: nothing here imports it at
module level). ``pyrua`` stays one command: ``add_lab_parsers`` adds the lab's own
subcommands (``pyrua_lab.cli.add_lab_commands``) or, where the lab is not installed,
stand-ins that take any arguments and say exactly what to install (exit status 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

LAB_COMMANDS = ('analyze', 'eval', 'export', 'report', 'train')
"""The subcommands ``pyrua_lab.cli.add_lab_commands`` adds where ``pyrua_lab`` is installed."""


def add_lab_parsers(commands) -> None:
    """Add the lab's subcommands to ``commands``; each one's handler is ``args.handler``."""
    try:
        from pyrua_lab.cli import add_lab_commands
    except ModuleNotFoundError as exc:
        if exc.name != 'pyrua_lab':
            raise
        for name in LAB_COMMANDS:
            missing = commands.add_parser(name, add_help=False, help='(needs pyrua_lab)')
            missing.add_argument('ignored', nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
            missing.set_defaults(handler=lab_missing)
    else:
        add_lab_commands(commands)


def lab_install_command() -> str:
    """Return the pip command that installs ``pyrua_lab`` into this interpreter."""
    checkout = Path(__file__).resolve().parents[2] / 'pyrua_lab'  # src/pyrua_agent/pyrua_agent
    where = f'-e {checkout}' if (checkout / 'setup.py').is_file() else 'pyrua_lab'
    return f'{sys.executable} -m pip install {where}'


def lab_missing(args: argparse.Namespace) -> int:
    """Say that ``pyrua <command>`` needs ``pyrua_lab`` and how to install it; return 2."""
    print(f'pyrua {args.command}: error: this command is part of pyrua_lab (evaluation, '
          'analysis, training, export, the episode report), which is not installed in this '
          f'environment; install it with:\n  {lab_install_command()}\n(its extras: [ray] for '
          'pyrua eval --executor ray, [train] for pyrua train)', file=sys.stderr)
    return 2
