from pyrua_agent.planners.percent import parse_percent, read_percent_file
import pytest


def test_parse_percent_splits_cells_and_skips_markdown():
    text = (
        '# a header comment only\n'
        '# %% \n'
        'x = 1\n'
        '# %% locate\n'
        'a = robo.locate("red block")\n'
        '\n'
        '# %% [markdown]\n'
        '# just notes\n'
        '# %%\n'
        'print(a)\n'
    )
    cells = parse_percent(text)
    assert [c.code for c in cells] == ['x = 1', 'a = robo.locate("red block")', 'print(a)']
    assert [c.title for c in cells] == ['', 'locate', '']
    assert [c.line for c in cells] == [3, 5, 10]


def test_read_percent_file_refuses_missing_and_empty_files(tmp_path):
    with pytest.raises(FileNotFoundError, match='does not exist'):
        read_percent_file(tmp_path / 'nope.py')
    empty = tmp_path / 'empty.py'
    empty.write_text('# %%\n\n# %% [markdown]\n# text\n')
    with pytest.raises(ValueError, match='no code cells'):
        read_percent_file(empty)


def test_include_markers_splice_in_the_cells_of_another_file(tmp_path):
    (tmp_path / '_skills.py').write_text('# %% skills\ndef twice(x):\n    return 2 * x\n')
    main = tmp_path / 'main.py'
    main.write_text('# %% [include] _skills.py\n# %% use\nprint(twice(2))\n')
    cells = read_percent_file(main)
    assert [c.title for c in cells] == ['skills', 'use']
    assert cells[0].code.startswith('def twice')


def test_include_cycles_are_refused(tmp_path):
    (tmp_path / 'a.py').write_text('# %% [include] b.py\n')
    (tmp_path / 'b.py').write_text('# %% [include] a.py\n')
    with pytest.raises(ValueError, match='includes itself'):
        read_percent_file(tmp_path / 'a.py')
    (tmp_path / 'c.py').write_text('# %% [include] missing.py\n')
    with pytest.raises(FileNotFoundError, match='missing.py'):
        read_percent_file(tmp_path / 'c.py')
