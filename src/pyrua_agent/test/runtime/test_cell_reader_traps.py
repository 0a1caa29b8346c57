"""What a cell's author reads: the success stop's final state, cv2 in a cell (issue 24)."""


def test_success_stop_names_the_last_motion_that_ran_and_the_call_that_did_not(
        make_runtime, robot):
    complete = []
    rt = make_runtime(acting=['move_to'], success_check=lambda: bool(complete))
    rt.run_cell("robo.move_to('left', (0.1, 0.2, 0.3))")
    complete.append(True)
    stopped = rt.run_cell("robo.move_to('left', (0.1, 0.2, 0.4))\n"
                          "robo.move_to('right', (0.3, 0.2, 0.1))\nprint('never')")
    assert stopped.stopped_reason == 'task_complete'
    assert 'the final state, before this cell acted, meets every condition' in stopped.output
    complete.clear()
    again = rt.run_cell("robo.move_to('left', (0.1, 0.2, 0.4))\nrobo.noop()\n"
                        "robo.move_to('right', (0.3, 0.2, 0.1))")
    assert again.stopped_reason is None  # not complete: both motions ran
    rt2 = make_runtime(acting=['move_to'], success_check=lambda: len(robot.moves) >= 4)
    last = rt2.run_cell("robo.move_to('left', (0.1, 0.2, 0.5))\nrobo.noop()\n"
                        "robo.move_to('right', (0.3, 0.2, 0.1))\nprint('never')")
    assert last.stopped_reason == 'task_complete' and 'never' not in last.output
    assert ("the final state, left by robo.move_to('left', (0.1, 0.2, 0.5)) (the last motion "
            'that ran), meets every condition of the task') in last.output
    assert "ended before robo.move_to('right', (0.3, 0.2, 0.1)), which did not run" \
        in last.output


def test_a_cell_can_import_cv2_as_the_prompt_says(make_runtime):
    from pyrua_agent.prompt import prompt_text

    assert '`cv2`' in prompt_text('notes_code.md')
    result = make_runtime().run_cell(
        "import cv2\nim = robo.image('head')\n"
        'print(cv2.cvtColor(im, cv2.COLOR_RGB2GRAY).shape)')
    assert result.ok, result.output
    assert result.output == '(480, 640)\n'
