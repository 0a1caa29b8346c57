"""
Recorded episodes as chat-format SFT samples for the code interface (``pyrua export``).

One sample per episode, one JSON line of ``sft.jsonl``::

    {"messages": [system, user (task card), assistant (python tool call), tool (output),
                  ...], "tools": [the python tool], "meta": {task, seed, layout, ...}}

The messages are those the code agent exchanges with its model, in the OpenAI chat format:
the system prompt (API reference, operating notes, station facts), the task card (text, then
each camera image as a ``[image: head camera, 640x480]`` label and an
``{"type": "image", "path": ...}`` part), one ``python(code)`` tool call per cell and its
output as the tool message (a cell's ``robo.show`` images as label + image parts there).

Where the episode comes from decides how the messages are found:

- a code-planner recording replays its ``message`` records (exactly what the model saw
  and wrote, its text between calls included); tool calls the model made last, whose
  answers were never sent, are answered from their cell records;
- any other planner (the bundled programs, replay, tool calling) is rebuilt from its cells:
  the system prompt the code agent would have had in that world (the world is opened once
  to read its primitives and station facts; nothing is run), the recorded task card, and
  every cell as a tool call with its recorded output.

Image files are copied beside ``sft.jsonl`` under ``images/<sample>/``; paths in the
messages are relative to the output folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import json
import logging
import os
from pathlib import Path
import shutil
from typing import Any

from pyrua_agent.recording.transcript import read_transcript, Transcript, TRANSCRIPT_NAME

_LOG = logging.getLogger(__name__)
SFT_NAME = 'sft.jsonl'


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """
    What one export wrote.

    :param out: the output folder.
    :param episodes: samples written (one per episode).
    :param skipped: episodes left out (``only_solved``, or no end record), with why.
    :param bytes_written: size of ``sft.jsonl`` plus the copied images.
    """

    out: Path
    episodes: int
    skipped: tuple[str, ...]
    bytes_written: int

    def __repr__(self) -> str:
        per = self.bytes_written / self.episodes if self.episodes else 0
        return (f'ExportSummary({self.out}: {self.episodes} episodes, {len(self.skipped)} '
                f'skipped, {self.bytes_written / 1e6:.2f} MB, {per / 1e3:.0f} kB/episode)')


def find_runs(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """
    Return the run folders (those holding ``transcript.jsonl``) under ``paths``, sorted.

    :param paths: run folders, or folders that hold run folders at any depth.
    :raises FileNotFoundError: for a path that does not exist or holds no recording.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise FileNotFoundError(f'{path} does not exist; give a run folder of pyrua run '
                                    '(runs/<...>/) or a folder that holds them')
        runs = [path] if (path / TRANSCRIPT_NAME).is_file() else sorted(
            p.parent for p in path.rglob(TRANSCRIPT_NAME))
        if not runs:
            raise FileNotFoundError(f'{path} holds no {TRANSCRIPT_NAME} vs at least one '
                                    'recorded episode; record with pyrua run (default) or '
                                    'pyrua eval')
        found.extend(r for r in runs if r not in found)
    return found


def python_tools() -> list[dict[str, Any]]:
    """Return the code agent's tool list (the one ``python`` tool, as sent to models)."""
    from pyrua_agent.llm import python_tool
    from pyrua_agent.planners.code_agent import PYTHON_TOOL_DESCRIPTION

    return [python_tool(PYTHON_TOOL_DESCRIPTION)]


def code_system_prompt(header: Mapping[str, Any]) -> str:
    """
    Return the code agent's system prompt in the recorded episode's world.

    The world is opened (its layout loaded, nothing run) to read the primitives' API
    reference and the Station's facts, exactly as the code agent's episode builds them.

    :param header: the transcript's header (task, seed, layout, ``config.world``).
    """
    from pyrua_agent.episode import EpisodeSpec, open_spec_world
    from pyrua_agent.planners import interface_prompt
    from pyrua_agent.prompt import code_api_reference

    world = (header.get('config') or {}).get('world', 'twin')
    spec = EpisodeSpec(task=header['task'], seed=int(header['seed']),
                       layout=int(header['layout']), world=world, record=False)
    episode, close = open_spec_world(spec)
    try:
        return interface_prompt('code', code_api_reference(episode.primitives),
                                episode.card.station_facts)
    finally:
        close()


class _Images:
    """Copies an episode's image files into ``out/images/<key>/`` and labels them."""

    def __init__(self, run: Path, out: Path, key: str) -> None:
        self.run, self.out, self.key = run, out, key
        self.bytes = 0

    def part(self, relative: str) -> dict[str, Any]:
        source = self.run / relative
        target = self.out / 'images' / self.key / Path(relative).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        self.bytes += target.stat().st_size
        return {'type': 'image', 'path': str(target.relative_to(self.out))}

    def labelled(self, label: str, relative: str) -> list[dict[str, Any]]:
        import cv2

        image = cv2.imread(str(self.run / relative), cv2.IMREAD_UNCHANGED)
        if image is None:
            raise ValueError(f'{self.run / relative} is not a readable image; the recording '
                             'is damaged')
        height, width = image.shape[:2]
        return [{'type': 'text', 'text': f'[image: {label}, {width}x{height}]'},
                self.part(relative)]


def _tool_message(call_id: str, cell: Any, images: _Images) -> dict[str, Any]:
    from pyrua_agent.planners.code_agent import EMPTY_OUTPUT

    text = cell.output or EMPTY_OUTPUT
    parts: list[dict[str, Any]] = []
    for shown in cell.images:
        label = f'image {shown.get("index")}: {shown.get("camera")}'
        if shown.get('note'):
            label += f' — {shown["note"]}'
        parts.extend(images.labelled(label, shown['file']))
    content: Any = [{'type': 'text', 'text': text}, *parts] if parts else text
    return {'role': 'tool', 'tool_call_id': call_id, 'content': content}


def _call_message(call_id: str, code: str) -> dict[str, Any]:
    arguments = json.dumps({'code': code}, ensure_ascii=False)
    return {'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': call_id, 'type': 'function',
         'function': {'name': 'python', 'arguments': arguments}}]}


def rebuilt_messages(transcript: Transcript, images: _Images) -> list[dict[str, Any]]:
    """Return the code agent's conversation rebuilt from a recording's header and cells."""
    from pyrua_agent.planners.base import TaskCard
    from pyrua_agent.prompt.parts import task_card_text

    header = transcript.header
    shots = [(item['camera'], item['file']) for item in header.get('images', ())]
    card = TaskCard(task=header['task'], instruction=header.get('instruction', ''),
                    robot_state=header.get('robot_state', ''),
                    images=tuple((camera, None) for camera, _ in shots))
    user: list[dict[str, Any]] = [{'type': 'text', 'text': task_card_text(card)}]
    for camera, relative in shots:
        user.extend(images.labelled(f'{camera} camera', relative))
    messages = [{'role': 'system', 'content': code_system_prompt(header)},
                {'role': 'user', 'content': user if shots else user[0]['text']}]
    for number, cell in enumerate(transcript.cells):
        call_id = f'call_{number}'
        messages.append(_call_message(call_id, cell.code))
        messages.append(_tool_message(call_id, cell, images))
    return messages


def recorded_messages(transcript: Transcript, images: _Images) -> list[dict[str, Any]]:
    """Return a code-planner recording's conversation, its last calls answered from cells."""
    ordered = sorted(transcript.messages, key=lambda m: m['position'])
    messages = []
    for record in ordered:
        message = {k: v for k, v in record.items() if k not in ('kind', 'call', 'position')}
        content = message.get('content')
        if isinstance(content, list):
            message['content'] = [images.part(p['path']) if p.get('type') == 'image_file'
                                  else dict(p) for p in content]
        messages.append(message)
    answered = {m.get('tool_call_id') for m in messages if m['role'] == 'tool'}
    cells = {cell.label: cell for cell in transcript.cells}
    last = messages[-1] if messages else {}
    for call in last.get('tool_calls') or ():
        if call['id'] not in answered and call['id'] in cells:
            messages.append(_tool_message(call['id'], cells[call['id']], images))
    return messages


def episode_sample(run: Path, out: Path, key: str) -> tuple[dict[str, Any], int]:
    """
    Return one episode's SFT sample and the bytes of the images it copied.

    :param run: the run folder.
    :param out: the export folder (images are copied under it).
    :param key: the sample's image folder name.
    :raises ValueError: for a transcript without a header.
    """
    transcript = read_transcript(run)
    header, end = transcript.header, transcript.end or {}
    if not header:
        raise ValueError(f'{transcript.path} has no header record vs one per recording; '
                         'the recording is damaged')
    images = _Images(run, out, key)
    planner = header.get('planner', '')
    from_messages = planner == 'code' and bool(transcript.messages)
    messages = (recorded_messages if from_messages else rebuilt_messages)(transcript, images)
    meta = {'task': header['task'], 'seed': header['seed'], 'layout': header['layout'],
            'world': (header.get('config') or {}).get('world', 'twin'), 'planner': planner,
            'messages_from': 'recording' if from_messages else 'cells',
            'end_reason': end.get('end_reason'), 'success': end.get('success'),
            'cells': len(transcript.cells), 'run': str(run)}
    return {'messages': messages, 'tools': python_tools(), 'meta': meta}, images.bytes


def export_sft(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], *,
               only_solved: bool = False) -> ExportSummary:
    """
    Write the recorded episodes under ``paths`` as SFT samples to ``out/sft.jsonl``.

    :param paths: run folders, or folders holding them (``runs/``, a ``pyrua eval`` output).
    :param out: the export folder (created; it must not hold an export already).
    :param only_solved: keep only episodes whose task succeeded.
    :returns: what was written.
    :raises FileExistsError: when ``out`` already holds ``sft.jsonl``.
    :raises FileNotFoundError: for a path without recordings.
    """
    runs = find_runs(paths)
    out = Path(out)
    target = out / SFT_NAME
    if target.exists():
        raise FileExistsError(f'{target} exists vs a fresh export; choose another --out or '
                              'remove it')
    out.mkdir(parents=True, exist_ok=True)
    written, skipped, image_bytes = 0, [], 0
    with target.open('x', encoding='utf-8') as stream:
        for run in runs:
            end = read_transcript(run).end
            if end is None:
                skipped.append(f'{run}: no end record (the episode did not finish)')
                continue
            if only_solved and not end.get('success'):
                skipped.append(f'{run}: {end.get("end_reason")}, not solved')
                continue
            sample, copied = episode_sample(run, out, f'{written:05d}')
            stream.write(json.dumps(sample, ensure_ascii=False) + '\n')
            written += 1
            image_bytes += copied
    for line in skipped:
        _LOG.info('left out %s', line)
    return ExportSummary(out=out, episodes=written, skipped=tuple(skipped),
                         bytes_written=target.stat().st_size + image_bytes)


def read_sft(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Return the samples of an ``sft.jsonl`` (or of the export folder holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / SFT_NAME
    return [json.loads(line) for line in path.read_text(encoding='utf-8').splitlines() if line]
