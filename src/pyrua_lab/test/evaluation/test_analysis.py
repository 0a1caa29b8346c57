"""Analysis tables on hand-made records whose answers are worked out by hand."""

import csv
import json

from pyrua_lab.evaluation.analysis import analyze, write_analysis
import pytest

HALF = {'pick_place': lambda layout: 'randomized' if layout >= 25 else 'standard'}
DIMENSION = {'pick_place': 'Generalization', 'stack_blocks': 'Precision'}


def record(interface, task, layout, success, calls, tokens, cached=0, out=0, usd=0.0,
           reason=None, cells=None, shown=0, score=None):
    """Return a record shaped like a `pyrua eval` one."""
    return {
        'episode_id': f'{interface}.{task}.s0.l{layout}', 'interface': interface,
        'planner': interface, 'cost_model': False, 'task': task, 'seed': 0, 'layout': layout,
        'dimension': DIMENSION[task], 'suite': 'builtin',
        'half': HALF[task](layout) if task in HALF else None, 'attempt': 1,
        'end_reason': reason or ('solved' if success else 'gave_up'), 'success': success,
        'score': 1.0 if success else score, 'cells': calls if cells is None else cells,
        'llm_calls': calls, 'input_tokens': tokens, 'cached_input_tokens': cached,
        'output_tokens': out, 'cost_usd': usd, 'images_sent': 3 * calls,
        'cell_log': [{'index': 1, 'images': shown}],
    }


RECORDS = [
    record('code', 'pick_place', 0, True, 2, 1000, 400, 100, 0.01),
    record('code', 'pick_place', 1, True, 3, 1500, 0, 100, 0.01),
    record('code', 'pick_place', 30, False, 5, 9000, cells=10, shown=2),
    record('code', 'stack_blocks', 0, True, 4, 3000, 1000, 300, 0.03),
    record('code', 'stack_blocks', 1, True, 2, 2000, 0, 50, 0.02),
    record('tools', 'pick_place', 0, True, 8, 8000, 2000, 200, 0.05),
    record('tools', 'pick_place', 1, True, 6, 6000, 0, 150, 0.04),
    record('tools', 'pick_place', 30, True, 10, 12000, 0, 300, 0.08),
    record('tools', 'stack_blocks', 0, False, 40, 50000, reason='call_budget', score=0.5),
    record('tools', 'stack_blocks', 1, True, 8, 10000, 0, 100, 0.06),
]


@pytest.fixture(scope='module')
def analysis():
    return analyze(RECORDS)


def test_success_rates_overall_per_task_and_dimension(analysis):
    overall = analysis.table('sr_overall')
    assert overall.cell('code', 'SR') == pytest.approx(0.8)
    assert overall.cell('tools', 'solved') == 4
    by_task = analysis.table('sr_by_task')
    assert by_task.cell('pick_place', 'code') == pytest.approx(2 / 3)
    assert by_task.cell('stack_blocks', 'tools') == pytest.approx(0.5)
    assert analysis.table('sr_by_dimension').cell('Precision', 'code') == pytest.approx(1.0)
    assert analysis.table('sr_by_suite').cell('builtin', 'tools') == pytest.approx(0.8)
    assert analysis.table('score_by_task').cell('stack_blocks', 'tools') == pytest.approx(0.75)


def test_leaderboard_averages_halves_then_tasks_then_dimensions(analysis):
    board = analysis.table('leaderboard')
    # pick_place for code: standard half 2/2, randomized 0/1 -> 0.5 (not 2/3).
    assert board.cell('code', 'Generalization') == pytest.approx(0.5)
    assert board.cell('code', 'Precision') == pytest.approx(1.0)
    assert board.cell('code', 'Average') == pytest.approx(0.75)  # not 0.8 by episode
    assert board.cell('tools', 'Generalization') == pytest.approx(1.0)
    assert board.cell('tools', 'Average') == pytest.approx(0.75)
    assert board.cell('code', 'Memory') is None
    assert 'Average over 2 of 5 dimensions' in board.note


def test_paired_counts_means_and_ratio_decomposition(analysis):
    paired = analysis.table('paired_code_vs_tools')
    assert paired.cell('solved by both', 'code') == 3
    assert paired.cell('solved by this one only', 'code') == 1
    assert paired.cell('solved by this one only', 'tools') == 1
    assert paired.cell('solved by neither', 'code') == 0
    assert paired.cell('mean LLM calls (jointly solved)', 'code') == pytest.approx(7 / 3)
    assert paired.cell('mean LLM calls (jointly solved)', 'ratio code/tools') == \
        pytest.approx(7 / 22)
    assert paired.cell('mean input tokens (jointly solved)', 'tools') == pytest.approx(8000)
    assert paired.cell('mean input tokens (jointly solved)', 'ratio code/tools') == \
        pytest.approx(4500 / 24000)
    assert paired.cell('mean cached input tokens (jointly solved)', 'code') == \
        pytest.approx(400 / 3)
    assert paired.cell('mean cost $ (jointly solved)', 'ratio code/tools') == \
        pytest.approx(0.04 / 0.15)
    per_call = paired.cell('input tokens per call (jointly solved)', 'ratio code/tools')
    assert per_call == pytest.approx((4500 / 7) / (24000 / 22))
    assert 'Token ratio 0.188 = call ratio 0.318 x tokens-per-call ratio 0.589' in paired.note


def test_budget_curves_and_the_budget_that_reaches_the_other_sr(analysis):
    code, tools = analysis.curves
    assert code.sr_at(1500) == pytest.approx(0.4)
    assert tools.sr_at(1500) == 0
    reach = analysis.table('budget_reach')
    assert reach.rows[0][0] == 'code' and reach.rows[0][-1] == 3000
    assert reach.rows[1][0] == 'tools' and reach.rows[1][-1] == 12000
    assert code.budget_for(0.9) is None
    points = analysis.table('sr_vs_budget')
    assert points.cell(6000, 'tools') == pytest.approx(0.2)


def test_end_reasons_cells_per_call_and_images(analysis):
    reasons = analysis.table('end_reasons')
    assert reasons.cell('gave_up', 'code n') == 1
    assert reasons.cell('call_budget', 'tools share') == pytest.approx(0.2)
    assert reasons.cell('solved', 'code share') == pytest.approx(0.8)
    usage = analysis.table('usage_by_task')
    assert usage.cell('pick_place', 'code calls') == pytest.approx(10 / 3)
    assert usage.cell('stack_blocks', 'tools input tokens') == pytest.approx(30000)
    interaction = analysis.table('interaction')
    assert interaction.cell('code', 'cells / LLM call') == pytest.approx(21 / 16)
    assert interaction.cell('tools', 'cells / LLM call') == pytest.approx(1.0)
    assert interaction.cell('code', 'images shown / episode') == pytest.approx(0.4)


def test_cost_model_interfaces_are_marked(tmp_path):
    marked = analyze([{**r, 'cost_model': True} for r in RECORDS])
    assert marked.cost_model
    assert marked.table('sr_overall').rows[0][0] == 'code (cost model)'
    assert not analyze(RECORDS).cost_model


def _folder(root, records):
    (root / 'episodes').mkdir(parents=True)
    for r in records:
        (root / 'episodes' / f"{r['episode_id']}.json").write_text(json.dumps(r))
    return root


def test_write_analysis_writes_markdown_csv_png_and_one_html_page(tmp_path):
    code = _folder(tmp_path / 'code', [r for r in RECORDS if r['interface'] == 'code'])
    tools = _folder(tmp_path / 'tools', [r for r in RECORDS if r['interface'] == 'tools'])
    paths = write_analysis([code, tools], tmp_path / 'out')
    names = {p.name for p in paths}
    assert {'tables.md', 'report.html', 'sr_vs_budget.png', 'leaderboard.png',
            'leaderboard.csv', 'paired_code_vs_tools.csv'} <= names
    assert (tmp_path / 'out' / 'sr_vs_budget.png').read_bytes()[:4] == b'\x89PNG'
    page = (tmp_path / 'out' / 'report.html').read_text()
    assert page.count('data:image/png;base64,') == 2 and '<link' not in page
    rows = list(csv.reader((tmp_path / 'out' / 'leaderboard.csv').read_text().splitlines()))
    assert rows[0][-1] == 'Average' and float(rows[1][-1]) == pytest.approx(0.75)
    assert '| code | 50.0% | 100.0% |' in (tmp_path / 'out' / 'tables.md').read_text()


def test_the_same_episode_in_two_folders_is_refused(tmp_path):
    one = _folder(tmp_path / 'one', RECORDS[:2])
    two = _folder(tmp_path / 'two', RECORDS[1:3])
    with pytest.raises(ValueError, match='is in both'):
        write_analysis([one, two], tmp_path / 'out')
