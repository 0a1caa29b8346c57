"""The API reference is generated from the primitives' own signatures and docstrings."""

from pyrua_agent.llm import function_schema
from pyrua_agent.prompt import code_api_reference, tools_api_reference


def reach(arm: str, xyz: tuple[float, float, float], speed: float = 0.5, *, cancel) -> bool:
    """
    Move the arm to ``xyz``.

    :param arm: ``'left'`` or ``'right'``.
    :param xyz: target in metres.
    :returns: whether it got there.
    """
    return True


def undocumented(n: int) -> int:
    return n


def test_code_reference_lists_signature_and_docstring_without_runtime_keywords():
    text = code_api_reference({'reach': reach, 'undocumented': undocumented})
    entries = text.split('\n\n')
    assert entries[0].startswith('robo.instruction: str\n')
    assert entries[1] == ('robo.reach(arm: str, xyz: tuple[float, float, float], '
                          'speed: float = 0.5) -> bool\n    Move the arm to ``xyz``.')
    assert '    :param xyz: target in metres.\n    :returns: whether it got there.' in text
    assert 'cancel' not in text
    assert "robo.show(camera: str, note: str = '') -> None" in text
    assert 'robo.undocumented(n: int) -> int\n    (no documentation)' in text
    names = [line.split('(')[0] for line in text.splitlines() if line.startswith('robo.')]
    assert names == ['robo.instruction: str', 'robo.reach', 'robo.show', 'robo.undocumented']


def test_tools_reference_lists_each_tool_once_with_its_summary():
    tools = [function_schema(undocumented), function_schema(undocumented, 'count')]
    text = tools_api_reference(tools)
    assert text.splitlines()[:2] == ['- undocumented(n: integer): (no documentation)',
                                     '- count(n: integer): (no documentation)']
    assert 'full documentation' in text


def test_the_twin_api_reference_stays_compact_and_never_mentions_nan():
    from pyrua_agent.llm.tokens import text_tokens
    from pyrua_primitives.library import PrimitiveLibrary
    from pyrua_sim.twin import load_twin

    with load_twin('pick_place', 0, 0) as twin:
        text = code_api_reference(PrimitiveLibrary(twin.station).primitives())
    # 2087 o200k tokens before issue 15, 2614 after (measure, reachable, locate_all, bound_m,
    # None for unknowns); every addition must remove a trap, so keep it under 3000.
    assert text_tokens(text) < 3000
    assert 'nan' not in text.lower() and 'None' in text
    for name in ('robo.measure(', 'robo.reachable(', 'robo.locate_all(', 'relative: bool'):
        assert name in text
