"""Prompt parts: package texts, the system prompt of each interface and the task card."""

import numpy as np
from pyrua_agent.planners import interface_prompt, PLANNERS
from pyrua_agent.planners.base import TaskCard
from pyrua_agent.prompt import (
    AS_IN_THE_EXAMPLE,
    prompt_text,
    PromptFiles,
    PromptVariant,
    system_prompt,
    task_card_message,
    task_card_text,
)
import pytest


def test_every_interface_prompt_has_intro_reference_and_notes():
    interfaces = {name: kind.prompt for name, kind in PLANNERS.items() if kind.prompt}
    assert sorted(interfaces) == ['code', 'tools', 'tools_on_request']
    forms = [(name, 'tool', kind.prompt) for name, kind in PLANNERS.items() if kind.prompt]
    forms += [(name, 'fence', kind.fence_prompt) for name, kind in PLANNERS.items()
              if kind.fence_prompt]
    assert [(name, form) for name, form, _ in forms if form == 'fence'] == [('code', 'fence')]
    for interface, form, files in forms:
        text = interface_prompt(interface, 'API-REFERENCE-MARKER\n', '- FACTS-MARKER',
                                form=form)
        assert text == system_prompt(files, 'API-REFERENCE-MARKER\n', '- FACTS-MARKER')
        assert text.startswith(prompt_text(files.intro))
        assert '# API reference\n\nAPI-REFERENCE-MARKER\n\n# Operating notes' in text
        reply = prompt_text(files.reply) if files.reply else ''
        notes = prompt_text(files.notes).replace(
            '$reply_format', reply.replace('${as_in_the_example}', AS_IN_THE_EXAMPLE))
        # The interface's notes, then its worked example, close the prompt.
        assert text.endswith(notes + '\n\n' + prompt_text(files.example))
        assert '## This station (measured from it)\n\n- FACTS-MARKER\n' in text
        assert '$' not in text


def test_the_fence_form_says_how_replies_are_read_and_offers_no_tool_call():
    fence = interface_prompt('code', 'REF', '- F', form='fence')
    tool = interface_prompt('code', 'REF', '- F', form='tool')
    assert 'one ```python block' in fence and 'Call `python`' not in fence
    assert 'Call `python` in every turn' in tool and 'one ```python block' not in tool
    with pytest.raises(ValueError, match="form 'fence' vs interface 'tools'"):
        interface_prompt('tools', 'REF', '- F', form='fence')


def test_without_the_worked_example_the_prompt_ends_with_the_notes_and_points_at_none():
    """The ablation's variant drops the example and every pointer to it, nothing else."""
    for name, kind in PLANNERS.items():
        for form, files in (('tool', kind.prompt), ('fence', kind.fence_prompt)):
            if files is None:
                continue
            full = interface_prompt(name, 'REF', '- F', form=form)
            bare = interface_prompt(name, 'REF', '- F', form=form, worked_example=False)
            example = prompt_text(files.example)
            assert full.endswith('\n\n' + example) and example not in bare
            assert 'worked example' not in bare.lower() and '$' not in bare
            assert bare == system_prompt(files, 'REF', '- F', worked_example=False)
            if form == 'fence':  # only the pointer goes: "code only, with no comments"
                assert 'code only, with no comments' in bare
                assert full.replace(AS_IN_THE_EXAMPLE, '') == bare + '\n\n' + example
            else:
                assert full == bare + '\n\n' + example


def test_a_prompt_variant_takes_only_booleans_and_says_what_it_drops():
    assert repr(PromptVariant()) == 'PromptVariant(full)'
    assert repr(PromptVariant(asks=False)) == 'PromptVariant(without asks)'
    with pytest.raises(ValueError, match="worked_example 'no' vs true or false"):
        PromptVariant(worked_example='no')


def test_worked_examples_use_what_the_move_to_docstring_says():
    """The examples grasp at max(centre z, lowest descent) and read no twin constant."""
    code = prompt_text('example_code.md')
    assert 'max(z, facts.lowest_descend_z_m)' in code and 'descend=True' in code
    assert 'robo.station_facts()' in code
    tools = prompt_text('example_tools.md')
    assert 'at least the lowest z with descend=true' in tools
    for text in (code, tools):
        assert 'pick_place' in text  # the seen task is named


def test_operating_notes_state_frames_reach_grasp_refusal_and_success():
    notes = prompt_text('operating_notes.md')
    for fact in ('station frame, in metres, z up', '$station_facts', 'measured from its own base',
                 '`held`', 'returns `reached=False` with', 'Success is judged strictly',
                 'Verify with a look'):
        assert fact in notes


def test_operating_notes_hold_no_number_of_one_station():
    notes = prompt_text('operating_notes.md')
    for twin_fact in ('0.765', '-0.45', '0.30', '0.088', '0.18 m', '+y'):
        assert twin_fact not in notes


def test_unknown_prompt_file_and_interface_are_refused():
    with pytest.raises(FileNotFoundError, match="unknown prompt file 'notes.md'"):
        prompt_text('notes.md')
    with pytest.raises(ValueError, match="unknown LLM interface 'tool'; did you mean 'tools'"):
        interface_prompt('tool', '', '')
    with pytest.raises(ValueError, match="unknown LLM interface 'script'"):
        interface_prompt('script', '', '')
    with pytest.raises(FileNotFoundError, match="unknown prompt file 'intro_voice.md'"):
        system_prompt(PromptFiles(intro='intro_voice.md', notes='notes_code.md'), '', '')


def test_task_card_message_has_the_text_then_each_camera_image():
    frame = np.full((30, 40, 3), 7, np.uint8)
    card = TaskCard(task='stack_three', instruction='Stack the blocks.',
                    robot_state='left: home\nright: home',
                    images=(('head', frame), ('right_wrist', frame)))
    text = task_card_text(card)
    assert text == ('Task: stack_three\nInstruction: Stack the blocks.\n\nRobot state:\n'
                    'left: home\nright: home\n\nCamera images at the start (head, '
                    'right_wrist) follow.')
    message = task_card_message(card, detail='low')
    parts = message['content']
    assert message['role'] == 'user' and parts[0]['text'] == text
    assert [p['text'] for p in parts[1::2]] == ['[image: head camera, 40x30]',
                                                '[image: right_wrist camera, 40x30]']
    assert [p['image_url']['detail'] for p in parts[2::2]] == ['low', 'low']


def test_task_card_without_images_is_plain_text():
    card = TaskCard(task='t', instruction='Do it.', robot_state='')
    assert task_card_message(card) == {
        'role': 'user', 'content': 'Task: t\nInstruction: Do it.\n\nRobot state:\n(not reported)'}
