"""
The prompt parts both LLM interfaces share, loaded from package data.

``system.md`` is the template; ``intro_*.md`` says what the interface is; ``operating_notes.md``
holds the operating rules (frames, reach, grasp report, refusals, how success is judged) around
the station facts measured from the episode's Station (``station_facts.py``);
``notes_*.md`` the interface's own rules. The user message is the task card: instruction,
robot state and the first camera images.
"""

from __future__ import annotations

import functools
import importlib.resources
from string import Template
from typing import Any, TYPE_CHECKING

from pyrua_primitives.naming import unknown_name

from ..llm.messages import attach_image, user_message

if TYPE_CHECKING:
    from ..planners.base import TaskCard

INTERFACES = {
    'code': ('intro_code.md', 'notes_code.md'),
    'tools': ('intro_tools.md', 'notes_tools_auto.md'),
    'tools_on_request': ('intro_tools.md', 'notes_tools_on_request.md'),
}


@functools.cache
def prompt_text(name: str) -> str:
    """
    Return one prompt file of this package, without its trailing newline.

    :param name: the file name, e.g. ``'operating_notes.md'``.
    :raises FileNotFoundError: naming the files that exist.
    """
    folder = importlib.resources.files(__package__)
    resource = folder.joinpath(name)
    if not resource.is_file():
        files = sorted(p.name for p in folder.iterdir() if p.name.endswith('.md'))
        raise FileNotFoundError(unknown_name('prompt file', name, files))
    return resource.read_text(encoding='utf-8').rstrip('\n')


def system_prompt(interface: str, api_reference: str, station_facts: str) -> str:
    """
    Return the system prompt of one interface.

    :param interface: ``'code'``, ``'tools'`` or ``'tools_on_request'``.
    :param api_reference: the generated API reference (``prompt.reference``).
    :param station_facts: the episode's station facts (``prompt.station_facts``).
    :raises ValueError: for an unknown interface.
    """
    if interface not in INTERFACES:
        raise ValueError(unknown_name('interface', interface, INTERFACES))
    intro, notes = INTERFACES[interface]
    return Template(prompt_text('system.md')).substitute(
        intro=prompt_text(intro), api_reference=api_reference.strip(),
        operating_notes=Template(prompt_text('operating_notes.md')).substitute(
            station_facts=station_facts.strip() or '- (this station reported no facts)'),
        interface_notes=prompt_text(notes))


def task_card_text(card: TaskCard) -> str:
    """Return the text of the task card: task name, instruction and the robot's state."""
    state = card.robot_state.strip() or '(not reported)'
    text = f'Task: {card.task}\nInstruction: {card.instruction}\n\nRobot state:\n{state}'
    if card.images:
        cameras = ', '.join(camera for camera, _ in card.images)
        text += f'\n\nCamera images at the start ({cameras}) follow.'
    return text


def task_card_message(card: TaskCard, *, detail: str = 'auto',
                      fmt: str = 'png') -> dict[str, Any]:
    """
    Return the first user message: the task card text and its camera images, in order.

    :param card: the episode's task card.
    :param detail: OpenAI image detail of the images.
    :param fmt: ``'png'`` or ``'jpeg'``.
    """
    images = [attach_image(f'{camera} camera', rgb, detail=detail, fmt=fmt)
              for camera, rgb in card.images]
    return user_message(task_card_text(card), images)
