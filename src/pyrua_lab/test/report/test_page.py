"""The HTML episode report: content from the bag, images in place, and a real browser render."""

import os
from pathlib import Path
import re
import shutil
import subprocess

import cv2
import numpy as np
from pyrua_agent.accounting import CallRecord, Ledger
from pyrua_agent.episode import EpisodeResult
from pyrua_agent.llm import ChatReply, RawToolCall, system_message, user_message
from pyrua_agent.planners.base import Cell, TaskCard
from pyrua_agent.recording import Recorder
from pyrua_agent.runtime import CellResult
from pyrua_agent.runtime.results import ImageObservation, PrimitiveCall
from pyrua_lab.report import write_report
import pytest

CODE = "robo.show('head', 'where is the cup?')\nprint(robo.locate('red cup'))"
OUTPUT = ('[image 1: head — where is the cup?]\n'
          "LocateResult(found, 'red cup' at (0.120, 0.300, 0.760) m, 60x60x90 mm)\n")


def _scene() -> np.ndarray:
    """Return a 240x320 table picture with a red square cup."""
    rgb = np.full((240, 320, 3), (190, 170, 140), np.uint8)
    rgb[100:160, 140:200] = (220, 30, 30)
    return rgb


def _record_episode(run_dir: Path) -> None:
    card = TaskCard(task='pick_place', instruction='Put the red cup on the plate.',
                    robot_state='both arms at home', images=(('head', _scene()),))
    record = CallRecord(model='gpt-test', input_tokens=1834, cached_input_tokens=1024,
                        output_tokens=96, reasoning_tokens=32, images_sent=1, latency_s=1.25,
                        retries=0, cost_usd=0.0123)
    reply = ChatReply(content='I will look first.', finish_reason='tool_calls', record=record,
                      tool_calls=(RawToolCall('call_1', 'python', '{"code": "robo.show()"}'),))
    ledger = Ledger()
    ledger.add_call(record)
    image = ImageObservation(camera='head', note='where is the cup?', pixels=_scene(), index=1,
                             offset=0)
    call = PrimitiveCall(name='locate', args=('red cup',), kwargs={}, result_repr='Locate..',
                         started_s=0.1, duration_s=0.2)
    result = CellResult(index=1, output=OUTPUT, images=(image,), error=None,
                        stopped_reason=None, duration_s=0.4, namespace_lost=False,
                        calls=(call,))
    with Recorder(run_dir) as recorder:
        recorder.episode_started({'planner': {'model': 'gpt-test'}}, card, seed=4, layout=2,
                                 planner='code_agent')
        recorder.llm_call(record, [system_message('sys'), user_message('task')], reply)
        recorder.cell(Cell(code=CODE, label='call_1'), result)
        recorder.episode_ended(EpisodeResult(
            task='pick_place', seed=4, layout=2, planner='code_agent', end_reason='gave_up',
            end_detail='the model answered without a tool call', success=False, score=0.25,
            cells=1, wall_s=12.5, ledger=ledger, cell_results=(result,)))


@pytest.fixture(scope='module')
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp('report')
    _record_episode(root / 'run')
    return write_report(root / 'run', root / 'out' / 'report.html')


def test_report_shows_task_calls_cells_images_and_end(report):
    page = report.read_text()
    for text in ('Put the red cup on the plate.', 'pick_place', 'LLM call 1', '1,834 in',
                 '$0.0123', 'I will look first.', 'robo.locate(&#x27;red cup&#x27;)',
                 'End: gave_up', 'score 0.25', 'no success', 'the model answered without'):
        assert text in page, text
    assert page.count('<img src="data:image/png;base64,') == 2  # task card + robo.show
    # The cell image follows its placeholder line and precedes the rest of the output.
    placeholder = page.index('[image 1: head')
    figure = page.index('<figure>', placeholder)
    assert placeholder < figure < page.index('LocateResult(found')


def test_report_is_self_contained(report):
    page = report.read_text()
    assert not re.search(r'(src|href)="(https?:|file:|//)', page)
    assert '<link' not in page and '<script' not in page


def test_report_of_a_run_without_end_record_says_so(tmp_path):
    with Recorder(tmp_path / 'run') as recorder:
        recorder.episode_started({}, TaskCard('t', 'do it', ''), seed=0, layout=0,
                                 planner='script')
    page = write_report(tmp_path / 'run' / 'bag', tmp_path / 'r.html').read_text()
    assert 'No end record' in page


def _chromium() -> str | None:
    return shutil.which('chromium') or shutil.which('chromium-browser')


@pytest.mark.skipif(_chromium() is None,
                    reason='chromium is not installed (apt-get install chromium; '
                           'scripts/setup.sh --test installs it)')
def test_report_renders_in_headless_chromium(report, tmp_path):
    """Render the page; PYRUA_REPORT_SCREENSHOT=<png> keeps the screenshot to look at."""
    shot = tmp_path / 'report.png'
    command = [_chromium(), '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
               '--no-first-run', '--disable-background-networking',
               '--disable-component-update', '--disable-sync',
               f'--user-data-dir={tmp_path / "profile"}', f'--screenshot={shot}',
               '--window-size=1200,2000', report.resolve().as_uri()]
    subprocess.run(command, check=True, timeout=60, capture_output=True,
                   env={**os.environ, 'HOME': str(tmp_path)})
    pixels = cv2.imread(str(shot))
    assert pixels is not None and pixels.shape[:2] == (2000, 1200)
    assert pixels.std() > 10  # not a blank page
    red = (pixels[..., 2] > 200) & (pixels[..., 1] < 60) & (pixels[..., 0] < 60)
    assert red.sum() > 2 * 50 * 50  # both cup pictures were drawn
    keep = os.environ.get('PYRUA_REPORT_SCREENSHOT')
    if keep:
        shutil.copy(shot, keep)
