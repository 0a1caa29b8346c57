"""
Start and stop a local model server as a child process (``python -m pyrua_local serve``).

``LocalServer`` joins/verifies the model (``ensure_gguf``), starts the server on a free
loopback port, waits for its ready line with a deadline, and stops it on ``close()`` (or
when the ``with`` block ends). The model runs in its own process, so a crash of the runtime
never takes the episode down: the client sees a dead endpoint (``infra_error``).
"""

from __future__ import annotations

from collections import deque
import importlib.util
import json
import os
from pathlib import Path
import subprocess
import sys
import threading
import time
import urllib.request

from .backend import BackendConfig, import_llama_cpp
from .errors import ServerStartFailed
from .models import ensure_gguf, LocalModel, resolve_model

READY_PREFIX = 'pyrua_local ready '
DEFAULT_START_TIMEOUT_S = 300.0


class LocalServer:
    """
    A local model behind an OpenAI-compatible endpoint, for the life of a ``with`` block.

    :param model: a ``LocalModel`` or a name (``'local'``, ``'local:<name>'``, ``'<name>'``).
    :param config: how the model runs (threads, context, tool-call mode).
    :param start_timeout_s: how long loading may take before ``ServerStartFailed``.
    :param log_path: where the server's stderr goes (kept in memory when ``None``).
    """

    def __init__(self, model: str | LocalModel = 'local', *,
                 config: BackendConfig | None = None,
                 start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
                 log_path: Path | None = None) -> None:
        self.model = model if isinstance(model, LocalModel) else resolve_model(model)
        self.config = config or BackendConfig()
        self.start_timeout_s = start_timeout_s
        self.log_path = log_path
        self.base_url: str | None = None
        self.info: dict = {}
        self._process: subprocess.Popen | None = None
        self._drainer: threading.Thread | None = None
        self._log_tail: deque[str] = deque(maxlen=40)

    def __repr__(self) -> str:
        state = self.base_url or 'not started'
        return f'LocalServer({self.model.name!r}, {state})'

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def command(self, path: Path) -> list[str]:
        """Return the server process's command line."""
        cfg = self.config
        name = self.model.file or self.model.name
        argv = [sys.executable, '-m', 'pyrua_local', 'serve', '--model', name,
                '--gguf', str(path), '--port', '0', '--tool-calls', cfg.tool_calls,
                '--temperature', repr(cfg.temperature), '--seed', str(cfg.seed),
                '--repeat-penalty', repr(cfg.repeat_penalty), '--die-with-parent']
        argv += ['--prefix-cache-mb', str(-(-cfg.prefix_cache_bytes >> 20)),
                 '--prompt-lookup', str(cfg.prompt_lookup)]
        if cfg.threads is not None:
            argv += ['--threads', str(cfg.threads)]
        if cfg.context_tokens is not None:
            argv += ['--context', str(cfg.context_tokens)]
        return argv

    def start(self) -> str:
        """
        Start the server and return its base URL once it answers.

        :raises MissingRuntime: when llama-cpp-python is not installed.
        :raises MissingModel: / ``ModelCorrupt``: from ``ensure_gguf``.
        :raises ServerStartFailed: when the process exits or does not get ready in time.
        """
        if self.base_url is not None:
            return self.base_url
        if importlib.util.find_spec('llama_cpp') is None:
            import_llama_cpp()  # raises MissingRuntime with the install command
        path = ensure_gguf(self.model)
        env = dict(os.environ, PYTHONUNBUFFERED='1')
        stderr = subprocess.PIPE if self.log_path is None else self.log_path.open('ab')
        self._process = subprocess.Popen(
            self.command(path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=stderr, env=env, text=False, start_new_session=True)
        if self.log_path is None:
            self._drainer = threading.Thread(target=self._drain, args=(self._process.stderr,),
                                             daemon=True)
            self._drainer.start()
        else:
            stderr.close()
        ready = self._wait_ready()
        self.base_url = ready['base_url']
        self.info = ready
        return self.base_url

    def _drain(self, stream) -> None:
        for line in iter(stream.readline, b''):
            self._log_tail.append(line.decode('utf-8', 'replace').rstrip())

    def _wait_ready(self) -> dict:
        deadline = time.monotonic() + self.start_timeout_s
        lines: deque[dict | None] = deque()

        def read() -> None:
            for raw in iter(self._process.stdout.readline, b''):
                text = raw.decode('utf-8', 'replace')
                if text.startswith(READY_PREFIX):
                    lines.append(json.loads(text[len(READY_PREFIX):]))
                    return
            lines.append(None)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        while time.monotonic() < deadline:
            if lines:
                ready = lines.popleft()
                if ready is not None:
                    return ready
                break
            if self._process.poll() is not None and not reader.is_alive() and not lines:
                break
            time.sleep(0.05)
        code = self._process.poll()
        self.close()
        what = (f'exited with code {code}' if code is not None else
                f'was not ready within start_timeout_s={self.start_timeout_s:g} s')
        tail = '\n'.join(self._log_tail) or (f'see {self.log_path}' if self.log_path else '')
        raise ServerStartFailed(f'local model server for {self.model.name!r} {what}; its log:\n'
                                f'{tail}')

    def health(self, timeout_s: float = 5.0) -> bool:
        """Return True when the server answers ``/health``."""
        if self.base_url is None:
            return False
        url = self.base_url[:-len('/v1')] + '/health'
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as response:
                return response.status == 200
        except OSError:
            return False

    def close(self) -> None:
        """Stop the server process (terminate, then kill after 10 s)."""
        process, self._process = self._process, None
        self.base_url = None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._drainer is not None:
            self._drainer.join(timeout=5)  # EOF once the process is gone
            self._drainer = None
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
