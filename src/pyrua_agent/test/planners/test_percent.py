import pytest

from pyrua_agent.planners.percent import parse_percent, read_percent_file


def test_parse_percent_splits_cells_and_skips_markdown():
    text = (
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
    assert [c.line for c in cells] == [1, 3, 8]


def test_read_percent_file_refuses_missing_and_empty_files(tmp_path):
    with pytest.raises(FileNotFoundError, match='does not exist'):
        read_percent_file(tmp_path / 'nope.py')
    empty = tmp_path / 'empty.py'
    empty.write_text('# %%\n\n# %% [markdown]\n# text\n')
    with pytest.raises(ValueError, match='no code cells'):
        read_percent_file(empty)
