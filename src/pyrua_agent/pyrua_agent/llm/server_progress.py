"""
A live line on the terminal while a local model computes: prompt tokens read, tokens written.

``ServerProgressLine`` polls the server's ``GET /progress`` (pyrua_local's server answers it
at once, outside its compute lock) from a daemon thread and redraws one line on a terminal,
the way tqdm shows a download:

    [model] reading prompt 1,536/5,379 tokens (reused 0)  31.2 tok/s  49 s
    [model] writing 112/768 tokens  5.3 tok/s  71 s

It writes to a terminal only (nothing when the stream is not a TTY, so logs stay clean) and
nothing of it reaches a record, a transcript or a bag. A server without the route (another
OpenAI-compatible server) is left alone after the first 404.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, TextIO
import urllib.error
import urllib.request

POLL_INTERVAL_S = 0.5


def progress_text(state: dict[str, Any]) -> str:
    """Return the line for one ``/progress`` snapshot ('' when the server is idle)."""
    if not state.get('busy'):
        return ''
    elapsed = f"{state.get('elapsed_s', 0):.0f} s"
    if state.get('phase') == 'generate':
        speed = state.get('generate_tps')
        rate = f'  {speed:.1f} tok/s' if speed else ''
        return (f"[model] writing {state['generated']}/{state['max_tokens']} tokens{rate}  "
                f'{elapsed}')
    speed = state.get('prompt_tps')
    rate = f'  {speed:.1f} tok/s' if speed else ''
    return (f"[model] reading prompt {state['prompt_done']:,}/{state['prompt_tokens']:,} tokens "
            f"(reused {state['prompt_reused']:,}){rate}  {elapsed}")


class ServerProgressLine:
    """
    Show a local model server's progress on a terminal while a block runs.

    :param base_url: the server's ``.../v1`` URL; ``/progress`` is beside ``/v1``.
    :param stream: where the line goes (stderr by default); nothing unless it is a TTY.
    :param interval_s: seconds between polls.
    """

    def __init__(self, base_url: str, *, stream: TextIO | None = None,
                 interval_s: float = POLL_INTERVAL_S) -> None:
        root = base_url.rstrip('/')
        self.url = (root[:-3] if root.endswith('/v1') else root) + '/progress'
        self.stream = stream if stream is not None else sys.stderr
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = 0

    def __repr__(self) -> str:
        return f'ServerProgressLine({self.url})'

    def __enter__(self) -> ServerProgressLine:
        isatty = getattr(self.stream, 'isatty', None)
        if isatty is not None and isatty():
            self._thread = threading.Thread(target=self._loop, name='server-progress',
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._draw('')

    def poll(self) -> dict[str, Any] | None:
        """Return one ``/progress`` snapshot, or None when the server has no such route."""
        try:
            with urllib.request.urlopen(self.url, timeout=2) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return None if exc.code == 404 else {'busy': False}
        except (OSError, ValueError):
            return {'busy': False}

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            state = self.poll()
            if state is None:
                return
            self._draw(progress_text(state))

    def _draw(self, text: str) -> None:
        if not text and not self._shown:
            return
        pad = ' ' * max(0, self._shown - len(text))
        self.stream.write(f'\r{text}{pad}' + ('' if text else '\r'))
        self.stream.flush()
        self._shown = len(text)
