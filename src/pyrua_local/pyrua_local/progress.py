"""
Where the request being computed stands: prompt tokens read, tokens generated, speeds.

The backend updates one ``CallProgress`` as it reads the prompt (in chunks) and after each
generated token; the HTTP server answers ``GET /progress`` with ``snapshot()`` while the
request runs (it takes no compute lock), so a client can show a live progress line.
Nothing of it reaches a response, a record or a bag.
"""

from __future__ import annotations

import threading
import time
from typing import Any


class CallProgress:
    """The progress of the request in flight (idle between requests); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {'busy': False, 'requests': 0}

    def __repr__(self) -> str:
        return f'CallProgress({self.snapshot()})'

    def start(self, prompt_tokens: int, max_tokens: int) -> None:
        """Begin a request: ``prompt_tokens`` to read, at most ``max_tokens`` to write."""
        now = time.monotonic()
        with self._lock:
            self._state = {
                'busy': True, 'requests': self._state['requests'] + 1, 'phase': 'prompt',
                'prompt_tokens': prompt_tokens, 'prompt_done': 0, 'prompt_reused': 0,
                'max_tokens': max_tokens, 'generated': 0, '_started': now,
                '_read_started': now, '_gen_started': None}

    def read(self, done: int) -> None:
        """``done`` prompt tokens are in the model (the first call sets those reused)."""
        with self._lock:
            state = self._state
            if not state.get('busy'):
                return
            if state['prompt_done'] == 0 and state['prompt_reused'] == 0:
                state['prompt_reused'] = done
                state['_read_started'] = time.monotonic()
            state['prompt_done'] = done

    def generated_one(self, *_: Any) -> bool:
        """One more token generated (a stopping criterion: always False, never stops)."""
        with self._lock:
            state = self._state
            if state.get('busy'):
                if state['_gen_started'] is None:
                    state['_gen_started'] = time.monotonic()
                    state['phase'] = 'generate'
                    state['prompt_done'] = state['prompt_tokens']
                state['generated'] += 1
        return False

    def finish(self) -> None:
        """Mark the request answered."""
        with self._lock:
            self._state = {'busy': False, 'requests': self._state['requests']}

    def snapshot(self) -> dict[str, Any]:
        """Return the state as plain data, with tokens/s of the prompt and of generation."""
        now = time.monotonic()
        with self._lock:
            state = dict(self._state)
        if not state.get('busy'):
            return {'busy': False, 'requests': state['requests']}
        read = state['prompt_done'] - state['prompt_reused']
        read_s = (state['_gen_started'] or now) - state['_read_started']
        out = {k: v for k, v in state.items() if not k.startswith('_')}
        out['elapsed_s'] = round(now - state['_started'], 2)
        out['prompt_tps'] = round(read / read_s, 2) if read > 0 and read_s > 0 else None
        gen_s = now - state['_gen_started'] if state['_gen_started'] else 0.0
        out['generate_tps'] = (round(state['generated'] / gen_s, 2)
                               if state['generated'] and gen_s > 0 else None)
        return out
