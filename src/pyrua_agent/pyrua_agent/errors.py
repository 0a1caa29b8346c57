"""
Errors of the agent package, and the signals that stop a running cell.

Hierarchy::

    AgentError(Exception)
    +-- RuntimeClosed          the cell runtime was used after close()
    +-- WorkerStartFailed      the cell worker process could not be started
    +-- PrimitiveFailed        a primitive raised a non-builtin error on the host; the cell
                               sees it under this name, with the original type name and message

    CellStop(BaseException)    stops a cell; ``except Exception`` in a cell cannot swallow it
    +-- TaskComplete           the success guard found the task already done
    +-- EpisodeCancelled       the episode watchdog cancelled the cell (rt.cancel())
    +-- CellTimeout            the cell ran past ``cell_timeout_s``
    +-- CellInterrupted        the host interrupted cell code running pure Python
                               (also a KeyboardInterrupt)
"""


class AgentError(Exception):
    """Base class of every error raised by ``pyrua_agent``."""


class RuntimeClosed(AgentError):
    """The cell runtime was used after ``close()``."""


class WorkerStartFailed(AgentError):
    """The cell worker process could not be started; the message carries its stderr."""


class PrimitiveFailed(AgentError):
    """
    A primitive raised an error that is not a Python builtin.

    :param type_name: the primitive's exception type, e.g. ``'MissingDependency'``.
    :param message: the primitive's exception message.
    """

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f'{type_name}: {message}')
        self.type_name = type_name
        self.message = message

    def __reduce__(self):
        return (type(self), (self.type_name, self.message))


class CellStop(BaseException):
    """Base of the runtime's stop signals (BaseException, so cells cannot swallow it)."""


class TaskComplete(CellStop):
    """The success guard stopped the cell before an acting primitive."""


class EpisodeCancelled(CellStop):
    """The episode watchdog cancelled the active primitive and stopped the cell."""


class CellTimeout(CellStop):
    """The cell ran longer than ``cell_timeout_s``."""


class CellInterrupted(CellStop, KeyboardInterrupt):
    """The host interrupted a cell that was running pure Python (cancel or timeout)."""
