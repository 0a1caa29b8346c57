"""
Episode recording: a rosbag2 (MCAP) bag and a JSONL transcript per episode, and reading them.

``Recorder`` writes both as the episode runs, flushed so a killed process loses no
finished message; ``read_bag`` and ``read_transcript`` read them back (repairing a bag
whose writer was killed). See ``recording.topics`` for the bag layout.
"""

from .bag_reader import BagRecording, read_bag
from .bag_repair import repair_bag
from .observer import EpisodeObserver, EpisodeRecorder
from .recorder import Recorder
from .run_dir import default_run_dir
from .session import RecordedChatClient
from .transcript import read_cells, read_transcript, Transcript
from .transport import RecordedTransport

__all__ = [
    'BagRecording',
    'EpisodeObserver',
    'EpisodeRecorder',
    'RecordedChatClient',
    'RecordedTransport',
    'Recorder',
    'Transcript',
    'default_run_dir',
    'read_bag',
    'read_cells',
    'read_transcript',
    'repair_bag',
]
