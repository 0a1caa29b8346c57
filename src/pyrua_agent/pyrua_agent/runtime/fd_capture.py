"""
Worker side: capture what C code and subprocesses write to file descriptors 1 and 2.

``sys.stdout`` only sees Python-level writes; ``os.system('ls')``, ``subprocess.run`` and C
extensions write to the descriptors. They are pointed at a pipe whose reader thread passes
the text on, and ``drain()`` collects what is still buffered before a cell reports back.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
import os
import select
import threading


class FdCapture:
    """
    Redirect descriptors 1 and 2 into a pipe and forward its text to ``write``.

    :param write: receives decoded text (UTF-8, undecodable bytes replaced).
    """

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self._read_fd, write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        for target in (1, 2):
            os.dup2(write_fd, target)
        os.close(write_fd)
        self._decoder = codecs.getincrementaldecoder('utf-8')(errors='replace')
        self._lock = threading.Lock()
        threading.Thread(target=self._pump, name='fd-capture', daemon=True).start()

    def _read_available(self) -> None:
        """Forward everything the pipe holds now (caller holds the lock)."""
        while True:
            try:
                data = os.read(self._read_fd, 65536)
            except BlockingIOError:
                return
            if not data:
                return
            text = self._decoder.decode(data)
            if text:
                self._write(text)

    def _pump(self) -> None:
        while True:
            select.select([self._read_fd], [], [])
            with self._lock:
                self._read_available()

    def drain(self) -> None:
        """Forward what C code and subprocesses wrote so far, before the cell reports."""
        with self._lock:
            self._read_available()
