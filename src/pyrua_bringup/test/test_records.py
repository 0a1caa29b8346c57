"""pyrua_msgs record messages mirror the agent's and evaluator's dataclasses, both ways."""

import dataclasses
import math

import numpy as np
from pyrua_agent.accounting import CallRecord
from pyrua_agent.episode import EpisodeResult
from pyrua_agent.runtime.results import CellResult, ImageObservation, PrimitiveCall
from pyrua_primitives.conversions import from_message, to_fields
from pyrua_sim.evaluator import EvaluationResult
import pytest

MIRRORS = [
    # (message type, dataclass, envelope fields only in the message, dataclass fields left out)
    ('pyrua_msgs/msg/LlmCall', CallRecord, {'cell_index'}, set()),
    ('pyrua_msgs/msg/PrimitiveCall', PrimitiveCall, set(), set()),
    ('pyrua_msgs/msg/ShownImage', ImageObservation, set(), {'pixels'}),
    ('pyrua_msgs/msg/CellRecord', CellResult, {'code'}, set()),
    ('pyrua_msgs/srv/TaskStatus_Response', EvaluationResult, set(), set()),
    ('pyrua_msgs/msg/EpisodeEvent', EpisodeResult, {'event', 'instruction'},
     {'ledger', 'cell_results', 'run_dir'}),  # run_dir: where the bag itself lies
]


def _message_fields(typestore, type_name):
    return [name for name, _ in typestore.fielddefs[type_name][1]]


@pytest.mark.parametrize('type_name, cls, envelope, left_out', MIRRORS,
                         ids=[m[0].split('/')[-1] for m in MIRRORS])
def test_record_messages_mirror_their_dataclass_both_ways(typestore, type_name, cls, envelope,
                                                          left_out):
    message = set(_message_fields(typestore, type_name))
    fields = {f.name for f in dataclasses.fields(cls)}
    assert message - envelope == fields - left_out, (
        f'{type_name} {sorted(message - envelope)} vs {cls.__name__} '
        f'{sorted(fields - left_out)}; keep them one to one')


def test_llm_call_round_trips_with_an_unpriced_model(typestore, make):
    record = CallRecord(model='local', input_tokens=1200, cached_input_tokens=1000,
                        output_tokens=80, reasoning_tokens=20, images_sent=2, latency_s=1.5,
                        retries=0, cost_usd=None)
    fields = to_fields(record, cell_index=3)
    assert math.isnan(fields['cost_usd'])
    raw = typestore.serialize_cdr(make('pyrua_msgs/msg/LlmCall', **fields),
                                  'pyrua_msgs/msg/LlmCall')
    back = typestore.deserialize_cdr(raw, 'pyrua_msgs/msg/LlmCall')
    assert back.cell_index == 3 and from_message(CallRecord, back) == record


def test_task_status_round_trips(typestore, make):
    status = EvaluationResult(success=False, reason='block not in bowl', score=0.4,
                              stages_seen=7)
    name = 'pyrua_msgs/srv/TaskStatus_Response'
    raw = typestore.serialize_cdr(make(name, **to_fields(status)), name)
    assert from_message(EvaluationResult, typestore.deserialize_cdr(raw, name)) == status


def test_cell_record_carries_images_and_calls(typestore, make):
    images = [make('pyrua_msgs/msg/ShownImage', camera='head', note='look', index=1, offset=12)]
    calls = [make('pyrua_msgs/msg/PrimitiveCall', name='locate', args="('cup',)", kwargs='{}',
                  result_repr='LocateResult(found=False)', started_s=0.1, duration_s=0.2)]
    record = make('pyrua_msgs/msg/CellRecord', index=1, code='print(1)', output='1\n',
                  images=images, error='', stopped_reason='', duration_s=0.5,
                  namespace_lost=False, calls=calls)
    raw = typestore.serialize_cdr(record, 'pyrua_msgs/msg/CellRecord')
    back = typestore.deserialize_cdr(raw, 'pyrua_msgs/msg/CellRecord')
    assert back.images[0].note == 'look' and back.calls[0].name == 'locate'
    assert np.isclose(back.calls[0].duration_s, 0.2)
