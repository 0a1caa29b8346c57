"""
The lab: evaluation at scale, analysis, the cost model, GRPO training, export and the report.

It runs the agent's episodes (``pyrua_agent``) many at a time and learns from them; the agent
never imports it at module level. Its ``pyrua`` subcommands (eval, analyze, train, export,
report) come from ``cli.add_lab_commands``. Rooms: ``evaluation`` (specs, executors, resume,
``analysis``, ``cost_model``, ``specs/*.yaml``), ``training`` (``pyrua train``, the rollout
engines, the toy world), ``export`` (SFT samples, GGUF) and ``report`` (the episode page).
"""

from .evaluation import load_spec, make_executor, run_eval
from .evaluation.analysis import write_analysis
from .export import export_sft
from .report import write_report
from .training import load_train_config, train

__all__ = [
    'export_sft',
    'load_spec',
    'load_train_config',
    'make_executor',
    'run_eval',
    'train',
    'write_analysis',
    'write_report',
]
