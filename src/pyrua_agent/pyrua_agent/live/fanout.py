"""
Several episode observers as one: the recorder and the live view get every call.

``ObserverFanout(recorder, live_view)`` has the recorder's methods, so it goes wherever a
recorder goes (``run_recorded_episode``, ``RecordedChatClient``, the primitive library's
and the world's ``observer``). The first observer is the primary one: its goal ids are the
ones returned, its errors propagate, and other attributes (``run_dir``) are its. A failure
in another observer (a live view) is logged once per observer and never stops the episode,
whose record is the primary's.
"""

from __future__ import annotations

from collections.abc import Mapping
import logging
import threading
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..recording.observer import EpisodeRecorder

_LOG = logging.getLogger(__name__)


class ObserverFanout:
    """
    Forward each recorder call to several observers, the first one primary.

    :param primary: the recorder (its errors propagate; its attributes are the fanout's).
    :param others: further observers with some of the recorder's methods (a live view).
    :raises ValueError: without a primary observer.
    """

    def __init__(self, primary: Any, *others: Any) -> None:
        if primary is None:
            raise ValueError('ObserverFanout needs a primary observer vs None; pass the '
                             'Recorder first')
        self._primary = primary
        self._others = [o for o in others if o is not None]
        self._failed: set[int] = set()
        self._lock = threading.Lock()
        self._goal_ids: dict[int, list[tuple[Any, int]]] = {}

    def __repr__(self) -> str:
        names = ', '.join(type(o).__name__ for o in (self._primary, *self._others))
        return f'ObserverFanout({names})'

    def __getattr__(self, name: str) -> Any:
        if name.startswith('_'):
            raise AttributeError(name)
        return getattr(self._primary, name)

    def __enter__(self) -> ObserverFanout:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _other(self, observer: EpisodeRecorder, name: str, args: tuple, kwargs: dict) -> Any:
        method = getattr(observer, name, None)
        if method is None:
            return None
        try:
            return method(*args, **kwargs)
        except Exception:
            if id(observer) not in self._failed:
                self._failed.add(id(observer))
                _LOG.warning('%s.%s failed; the episode goes on and its recording is kept '
                             '(further failures of this observer are not logged)',
                             type(observer).__name__, name, exc_info=True)
            return None

    def _each(self, name: str, args: tuple, kwargs: dict) -> None:
        getattr(self._primary, name)(*args, **kwargs)
        for observer in self._others:
            self._other(observer, name, args, kwargs)

    def episode_started(self, *args: Any, **kwargs: Any) -> None:
        """Forward ``Recorder.episode_started``."""
        self._each('episode_started', args, kwargs)

    def llm_call(self, *args: Any, **kwargs: Any) -> None:
        """Forward ``Recorder.llm_call``."""
        self._each('llm_call', args, kwargs)

    def cell(self, *args: Any, **kwargs: Any) -> None:
        """Forward ``Recorder.cell`` (fits ``run_episode``'s ``on_cell``)."""
        self._each('cell', args, kwargs)

    def frame(self, *args: Any, **kwargs: Any) -> None:
        """Forward ``Recorder.frame``."""
        self._each('frame', args, kwargs)

    def joint_state(self, *args: Any, **kwargs: Any) -> None:
        """Forward ``Recorder.joint_state``."""
        self._each('joint_state', args, kwargs)

    def episode_ended(self, *args: Any, **kwargs: Any) -> None:
        """Forward ``Recorder.episode_ended``."""
        self._each('episode_ended', args, kwargs)

    def primitive_goal(self, name: str, args: tuple, kwargs: Mapping[str, Any]) -> int:
        """Send the goal to every observer; return the primary's goal id."""
        goal_id = self._primary.primitive_goal(name, args, kwargs)
        ids = [(o, self._other(o, 'primitive_goal', (name, args, kwargs), {}))
               for o in self._others]
        with self._lock:
            self._goal_ids[goal_id] = [(o, i) for o, i in ids if i is not None]
        return goal_id

    def primitive_result(self, goal_id: int, result: Any, *, duration_s: float,
                         error: str | None = None) -> None:
        """Send the result to every observer under the goal id each one gave."""
        self._primary.primitive_result(goal_id, result, duration_s=duration_s, error=error)
        with self._lock:
            ids = self._goal_ids.pop(goal_id, [])
        for observer, own_id in ids:
            self._other(observer, 'primitive_result', (own_id, result),
                        {'duration_s': duration_s, 'error': error})

    def close(self) -> None:
        """Close every observer; the primary last, its error propagating."""
        for observer in self._others:
            self._other(observer, 'close', (), {})
        self._primary.close()
