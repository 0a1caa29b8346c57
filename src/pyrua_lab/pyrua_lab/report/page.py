"""
The episode report: one self-contained HTML page from an episode bag.

The page shows the task and instruction, the task card images, then for each cell the
model calls that led to it (tokens, cost, latency, what the model said) and the cell's code
and output with the images the model saw placed where their placeholders are in the
output, and finally the end reason, success and score. CSS is inline and images are PNG
data URLs, so the file can be mailed or archived alone.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
import html
import json
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from pyrua_agent.recording.bag_reader import BagRecording, read_bag

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px;
       color: #1d232a; background: #fafbfc; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: #56606b; }
.card { background: #fff; border: 1px solid #d8dee4; border-radius: 6px; padding: 12px 16px;
        margin: 12px 0; }
.ok { color: #116329; font-weight: 600; } .bad { color: #a40e26; font-weight: 600; }
.warn { background: #fff8c5; border-color: #d4a72c; }
pre { background: #f3f5f7; border-radius: 4px; padding: 8px 10px; overflow-x: auto;
      white-space: pre-wrap; margin: 6px 0; font: 12.5px/1.4 ui-monospace, monospace; }
pre.code { background: #0d1117; color: #e6edf3; }
figure { display: inline-block; margin: 6px 8px 6px 0; }
figure img { max-width: 480px; border: 1px solid #d8dee4; border-radius: 4px; display: block; }
figcaption { font-size: 12px; color: #56606b; }
table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; }
.llm { border-left: 4px solid #8250df; } .cell { border-left: 4px solid #0969da; }
.tag { font-size: 12px; color: #56606b; }
"""


def png_data_url(rgb: np.ndarray) -> str:
    """Return an H x W x 3 uint8 RGB image as a ``data:image/png;base64,`` URL."""
    ok, encoded = cv2.imencode('.png', cv2.cvtColor(np.ascontiguousarray(rgb),
                                                    cv2.COLOR_RGB2BGR))
    if not ok:
        raise ValueError(f'OpenCV could not encode an image of shape {rgb.shape} as PNG')
    return 'data:image/png;base64,' + base64.b64encode(encoded.tobytes()).decode('ascii')


def _e(value: Any) -> str:
    return html.escape('' if value is None else str(value))


def _figure(pixels: np.ndarray | None, caption: str) -> str:
    if pixels is None:
        return f'<p class="bad">[image missing from the bag: {_e(caption)}]</p>'
    return (f'<figure><img src="{png_data_url(pixels)}" alt="{_e(caption)}">'
            f'<figcaption>{_e(caption)}</figcaption></figure>')


def _money(value: float | None) -> str:
    return 'n/a' if value is None else f'${value:.4f}'


def output_with_images(output: str, images: Sequence[Mapping[str, Any]]) -> str:
    """
    Return a cell's output as HTML with each image right after its placeholder line.

    :param output: the text the model read.
    :param images: ``{'offset', 'camera', 'note', 'index', 'pixels'}`` per image.
    """
    parts, start = [], 0
    for image in sorted(images, key=lambda i: i.get('offset', 0)):
        offset = max(start, min(len(output), int(image.get('offset', 0))))
        line_end = output.find('\n', offset)
        cut = len(output) if line_end < 0 else line_end + 1
        parts.append(f'<pre>{_e(output[start:cut])}</pre>' if output[start:cut] else '')
        caption = f'image {image.get("index", "?")}: {image.get("camera", "?")}'
        if image.get('note'):
            caption += f' — {image["note"]}'
        parts.append(_figure(image.get('pixels'), caption))
        start = cut
    if output[start:] or not parts:
        parts.append(f'<pre>{_e(output[start:])}</pre>')
    return ''.join(parts)


def _llm_call(call: Mapping[str, Any]) -> str:
    acc = call.get('accounting', {})
    rows = (f'{acc.get("input_tokens", 0):,} in (cached {acc.get("cached_input_tokens", 0):,}), '
            f'{acc.get("output_tokens", 0):,} out (reasoning {acc.get("reasoning_tokens", 0):,})'
            f', {acc.get("images_sent", 0)} images, {acc.get("latency_s", 0.0):.2f} s, '
            f'{acc.get("retries", 0)} retries, {_money(acc.get("cost_usd"))}')
    body = [f'<div class="card llm"><b>LLM call {_e(call.get("call"))}</b> '
            f'<span class="tag">{_e(acc.get("model", ""))} · {_e(rows)} · finish '
            f'{_e(call.get("finish_reason"))}</span>']
    if call.get('content'):
        body.append(f'<pre>{_e(call["content"])}</pre>')
    for tool in call.get('tool_calls', ()):
        arguments = tool.get('arguments', '')
        try:
            code = json.loads(arguments).get('code')
        except (ValueError, AttributeError):
            code = None
        shown = '(code: see cell below)' if isinstance(code, str) else arguments
        body.append(f'<div class="tag">tool call {_e(tool.get("name"))} {_e(shown)}</div>')
    body.append('</div>')
    return ''.join(body)


def _cell(cell: Mapping[str, Any]) -> str:
    state = ('<span class="ok">ok</span>' if not cell.get('error')
             and not cell.get('stopped_reason') else
             f'<span class="bad">{_e(cell.get("stopped_reason") or "error " + cell["error"])}'
             '</span>')
    label = f' · {_e(cell["label"])}' if cell.get('label') else ''
    lost = ' · <span class="bad">namespace lost</span>' if cell.get('namespace_lost') else ''
    calls = ''.join(f'<tr><td>{_e(c.get("name"))}</td><td>{_e(c.get("result_repr"))}</td>'
                    f'<td>{1000 * float(c.get("duration_s", 0.0)):.0f} ms</td></tr>'
                    for c in cell.get('calls', ()))
    table = (f'<details><summary class="tag">{len(cell.get("calls", ()))} primitive calls'
             f'</summary><table>{calls}</table></details>' if calls else '')
    return (f'<div class="card cell"><b>Cell {_e(cell.get("cell"))}</b> {state} '
            f'<span class="tag">{float(cell.get("duration_s", 0.0)):.2f} s{label}</span>{lost}'
            f'<pre class="code">{_e(cell.get("code"))}</pre>'
            f'{output_with_images(cell.get("output", ""), cell.get("images", ()))}{table}</div>')


def _summary(recording: BagRecording) -> str:
    start, end = recording.start or {}, recording.end
    lines = [f'<h1>{_e(start.get("task", "episode"))}</h1>',
             f'<div class="meta">seed {_e(start.get("seed"))} · layout '
             f'{_e(start.get("layout"))} · planner {_e(start.get("planner"))} · started '
             f'{_e(start.get("started_at"))}</div>',
             f'<div class="card"><b>Instruction</b><pre>{_e(start.get("instruction"))}</pre>']
    if start.get('robot_state'):
        lines.append(f'<b>Robot state</b><pre>{_e(start["robot_state"])}</pre>')
    for camera, pixels in recording.card_images:
        lines.append(_figure(pixels, f'task card: {camera}'))
    lines.append('</div>')
    if end is None:
        lines.append('<div class="card warn"><b>No end record:</b> the run stopped before the '
                     'episode ended (killed or crashed); everything recorded until then is '
                     'shown.</div>')
    else:
        verdict = ('<span class="ok">success</span>' if end.get('success')
                   else '<span class="bad">no success</span>')
        score = 'n/a' if end.get('score') is None else f'{end["score"]:.2f}'
        lines.append(
            f'<div class="card"><b>End: {_e(end.get("end_reason"))}</b> · {verdict} · score '
            f'{score} · {_e(end.get("cells"))} cells · {float(end.get("wall_s", 0.0)):.1f} s'
            f'<div class="tag">{_e(end.get("end_detail"))}</div>'
            f'<div>{_e(end.get("llm_calls", 0))} LLM calls · '
            f'{end.get("input_tokens", 0):,} input tokens (cached '
            f'{end.get("cached_input_tokens", 0):,}) · {end.get("output_tokens", 0):,} output '
            f'tokens · cost {_money(end.get("cost_usd"))}</div>'
            f'<div class="tag">{_e(end.get("cost_note"))}</div></div>')
    if recording.repaired:
        lines.append('<div class="card warn">This bag was repaired: its writer stopped before '
                     'closing it, and every message that reached the disk was kept.</div>')
    return ''.join(lines)


def render_report(recording: BagRecording) -> str:
    """Return the report page of ``recording`` as HTML text."""
    start = recording.start or {}
    calls_by_cell: dict[int, list[Mapping[str, Any]]] = {}
    for call in recording.llm_calls:
        calls_by_cell.setdefault(int(call.get('cell', 0)), []).append(call)
    body = [_summary(recording), '<h2>Cells</h2>']
    shown = set()
    for cell in recording.cells:
        index = int(cell['cell'])
        for key in sorted(k for k in calls_by_cell if k <= index and k not in shown):
            body.extend(_llm_call(call) for call in calls_by_cell[key])
            shown.add(key)
        body.append(_cell(cell))
    for key in sorted(k for k in calls_by_cell if k not in shown):
        body.extend(_llm_call(call) for call in calls_by_cell[key])
    config = json.dumps(start.get('config', {}), indent=2, sort_keys=True)
    body.append(f'<h2>Configuration</h2><details><summary>resolved config</summary>'
                f'<pre>{_e(config)}</pre></details>')
    counts = ''.join(f'<tr><td>{_e(t)}</td><td>{n}</td></tr>'
                     for t, n in sorted(recording.topic_counts.items()))
    body.append(f'<h2>Bag</h2><div class="tag">{_e(recording.path)}</div>'
                f'<details><summary>{sum(recording.topic_counts.values())} messages</summary>'
                f'<table>{counts}</table></details>')
    title = f'{start.get("task", "episode")} — pyrua episode report'
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<title>{_e(title)}</title><style>{CSS}</style></head><body>'
            f'{"".join(body)}</body></html>\n')


def write_report(run_dir_or_bag: str | os.PathLike[str],
                 out_html: str | os.PathLike[str]) -> Path:
    """
    Write the self-contained HTML report of an episode.

    :param run_dir_or_bag: a run directory (holding ``bag/``) or a bag directory; a bag
        whose writer was killed is repaired first.
    :param out_html: the HTML file to write (its directory is created).
    :returns: the path written.
    """
    out = Path(out_html)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report(read_bag(run_dir_or_bag)), encoding='utf-8')
    return out
