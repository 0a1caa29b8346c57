"""
``--model local``: an open model served on 127.0.0.1 by ``pyrua_local`` for the planners.

``serving(endpoint)`` is the one place a local model name becomes an endpoint. With no
``base_url`` (the default, OpenAI's), it starts the model's server for the life of the
``with`` block; with a ``base_url`` (a ``pyrua serve`` already running) it only adapts the
settings. Either way the endpoint says what the model takes (text only: images become their
labels) and its per-attempt timeout grows with the prompt (``LOCAL_PREFILL_FLOOR_TPS``): a
CPU model's prefill of a long prompt takes minutes, and a client that gives up and re-sends
only makes the server compute twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
import logging

from pyrua_local.models import is_local, resolve_model

from .config import EndpointConfig, OPENAI_BASE_URL

_LOG = logging.getLogger(__name__)
LOCAL_PREFILL_FLOOR_TPS = 4.0
"""The slowest prompt speed planned for (tokens/s): the 1.5B model on one busy core did 9-20."""
LOCAL_TIMEOUT_S = 600.0
"""Per-attempt time for generating the reply, on top of the prefill allowance."""
LOCAL_CALL_FORM = 'fence'
"""The code interface's reply form for local models (``call_form='auto'``), as measured: see
the README's section on small models (fenced blocks decoded every time; JSON calls did not)."""
LOCAL_FORCE_EVERY_CALL = True
"""Local models' tool calls are all forced (``EndpointConfig.force_every_call``), as measured:
left to ``'auto'`` after the first, the 0.5B model wrote calls as JSON lines with an invented
tool response after them, then copied the correction's last words as its answer."""
LOCAL_REPEAT_TEMPERATURE = 0.7
"""Local models sample the call after a repeated cell (``EndpointConfig.repeat_temperature``):
greedy, the 1.5B sent a refused move_to 7-13 times running, the repeat said to it or not."""
LOCAL_BAR_REPEATED_LOOKS = True
"""After a look repeated with the same result, the next tool call may not be that look
(``EndpointConfig.bar_repeated_looks``): greedy or sampled at 0.7, the 1.5B measured the one
object of lift_object 16 times running, told each time that it repeated."""
LOCAL_MAX_OUTPUT_TOKENS = 768
"""Reply cap unless the endpoint sets one: a cell is a few hundred tokens; a CPU model makes
5-40 tokens/s, so an unbounded ramble costs minutes."""


def wants_local_server(endpoint: EndpointConfig) -> bool:
    """Return True when ``endpoint`` names a local model and no server to reach it at."""
    return is_local(endpoint.model) and endpoint.base_url.rstrip('/') == OPENAI_BASE_URL


def local_endpoint(endpoint: EndpointConfig, base_url: str) -> EndpointConfig:
    """
    Return ``endpoint`` pointed at a local model's server at ``base_url``.

    :raises ValueError: for a model name not in the ``pyrua_local`` catalogue.
    """
    model = resolve_model(endpoint.model)
    return replace(endpoint, base_url=base_url, model=model.name,
                   takes_images=model.takes_images,
                   timeout_s=max(endpoint.timeout_s, LOCAL_TIMEOUT_S),
                   max_output_tokens=endpoint.max_output_tokens or LOCAL_MAX_OUTPUT_TOKENS,
                   prefill_tokens_per_s=endpoint.prefill_tokens_per_s or LOCAL_PREFILL_FLOOR_TPS,
                   max_retries=min(endpoint.max_retries, 2),
                   call_form=(LOCAL_CALL_FORM if endpoint.call_form == 'auto'
                              else endpoint.call_form),
                   force_every_call=LOCAL_FORCE_EVERY_CALL, continues_final_message=True,
                   bar_repeated_looks=LOCAL_BAR_REPEATED_LOOKS,
                   repeat_temperature=(LOCAL_REPEAT_TEMPERATURE
                                       if endpoint.repeat_temperature is None
                                       else endpoint.repeat_temperature))


@contextmanager
def serving(endpoint: EndpointConfig, *, progress: bool = False) -> Iterator[EndpointConfig]:
    """
    Yield the endpoint to use for ``endpoint``, serving a local model meanwhile if it names one.

    :param progress: show on the terminal, live, what the local model is computing
        (``server_progress.ServerProgressLine``); nothing of it is recorded.

    :raises MissingModel: / ``MissingRuntime`` / ``ServerStartFailed`` (``pyrua_local``)
        when the model cannot be served; each says what to install or where the log is.
    """
    if not is_local(endpoint.model):
        yield endpoint
        return
    if not wants_local_server(endpoint):
        with _progress(endpoint.base_url, progress):
            yield local_endpoint(endpoint, endpoint.base_url)
        return
    from pyrua_local import LocalServer

    model = resolve_model(endpoint.model)
    _LOG.info('starting the local model server for %s', model.name)
    with LocalServer(model) as server, _progress(server.base_url, progress):
        _LOG.info('local model %s at %s (%s)', model.name, server.base_url,
                  server.info.get('runtime'))
        yield local_endpoint(endpoint, server.base_url)


def _progress(base_url: str, show: bool):
    from .server_progress import ServerProgressLine

    return ServerProgressLine(base_url) if show else nullcontext()
