"""
The prompt parts both LLM interfaces share, loaded from package data.

``system.md`` is the template; ``intro_*.md`` says what the interface is; ``operating_notes.md``
holds the operating rules (frames, reach, grasp report, refusals, how success is judged) around
the station facts measured from the episode's Station (``station_facts.py``);
``notes_*.md`` the interface's own rules, with ``reply_*.md`` (the reply format the model is
read in: a tool call or a fenced block) where they say ``$reply_format``; ``example_*.md`` a
worked example (a first cell or the same steps as tool calls, and what to do with the
output), written for ``pick_place`` on another layout than the README's episode: that task
is *seen* by the examples, the others are not. Which intro and notes an interface reads is
not listed here: each LLM planner kind carries its ``PromptFiles`` in the planner registry
(``pyrua_agent.planners.PLANNERS``). ``PromptVariant`` takes one optional part away (the
worked example; the fence form's asks) for the prompt ablation. The user message is the
task card: instruction, robot state and the first camera images.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
import functools
import importlib.resources
from string import Template
from typing import Any, TYPE_CHECKING

from pyrua_primitives.naming import unknown_name

from ..llm.messages import attach_image, user_message

if TYPE_CHECKING:
    from ..planners.base import TaskCard


@dataclass(frozen=True, slots=True)
class PromptFiles:
    """
    The package prompt files of one LLM interface (its planner kind carries them).

    :param intro: what the interface is, e.g. ``'intro_code.md'``.
    :param notes: the interface's own rules, e.g. ``'notes_code.md'``.
    :param example: the worked example, e.g. ``'example_code.md'``; None: no example.
    :param reply: the reply format put where the notes say ``$reply_format``.
    """

    intro: str
    notes: str
    example: str | None = None
    reply: str | None = None


@dataclass(frozen=True, slots=True)
class PromptVariant:
    """
    Which optional parts an LLM interface's prompt holds (all by default; the ablation drops one).

    :param worked_example: end the system prompt with the interface's worked example. Without
        it the prompt ends with the interface notes, and no text points at an example.
    :param asks: in the code interface's fence form, end the task card and every message of
        cell outputs with the ask for the next cell (``FENCE_FIRST_ASK``, ``FENCE_NEXT_ASK``).
    """

    worked_example: bool = True
    asks: bool = True

    def __post_init__(self) -> None:
        for name in self.parts():
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f'{name} {getattr(self, name)!r} vs true or false')

    @classmethod
    def parts(cls) -> tuple[str, ...]:
        """Return the names of the optional prompt parts, in field order."""
        return tuple(f.name for f in fields(cls))

    def __repr__(self) -> str:
        dropped = [name for name in self.parts() if not getattr(self, name)]
        return 'PromptVariant(full)' if not dropped else (
            'PromptVariant(without ' + ', '.join(dropped) + ')')


AS_IN_THE_EXAMPLE = ' as\n  in the worked example,'
"""What the fence reply format says where it points at the worked example (its
``$as_in_the_example``); nothing without the example."""


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


def system_prompt(files: PromptFiles, api_reference: str, station_facts: str, *,
                  worked_example: bool = True) -> str:
    """
    Return the system prompt of one interface.

    ``pyrua_agent.planners.interface_prompt`` is the same by planner name.

    :param files: the interface's prompt files (``PLANNERS[name].prompt``).
    :param api_reference: the generated API reference (``prompt.reference``).
    :param station_facts: the episode's station facts (``prompt.station_facts``).
    :param worked_example: end with the interface's worked example (``PromptVariant``).
    :raises FileNotFoundError: for a prompt file the package lacks, naming those it has.
    """
    example = files.example is not None and worked_example
    reply = Template(prompt_text(files.reply)).substitute(
        as_in_the_example=AS_IN_THE_EXAMPLE if example else '') if files.reply else ''
    notes = Template(prompt_text(files.notes)).substitute(reply_format=reply)
    text = Template(prompt_text('system.md')).substitute(
        intro=prompt_text(files.intro), api_reference=api_reference.strip(),
        operating_notes=Template(prompt_text('operating_notes.md')).substitute(
            station_facts=station_facts.strip() or '- (this station reported no facts)'),
        interface_notes=notes,
        example=prompt_text(files.example) if example else '')
    return text.rstrip('\n')


def task_card_text(card: TaskCard) -> str:
    """Return the text of the task card: task name, instruction and the robot's state."""
    state = card.robot_state.strip() or '(not reported)'
    text = f'Task: {card.task}\nInstruction: {card.instruction}\n\nRobot state:\n{state}'
    if card.images:
        cameras = ', '.join(camera for camera, _ in card.images)
        text += f'\n\nCamera images at the start ({cameras}) follow.'
    return text


def task_card_message(card: TaskCard, *, detail: str = 'auto', fmt: str = 'png',
                      ask: str = '') -> dict[str, Any]:
    """
    Return the first user message: the task card text and its camera images, in order.

    :param card: the episode's task card.
    :param detail: OpenAI image detail of the images.
    :param fmt: ``'png'`` or ``'jpeg'``.
    :param ask: a last paragraph after the images, saying what to reply with (none by default).
    """
    images = [attach_image(f'{camera} camera', rgb, detail=detail, fmt=fmt)
              for camera, rgb in card.images]
    return user_message(task_card_text(card), images, closing=ask)
