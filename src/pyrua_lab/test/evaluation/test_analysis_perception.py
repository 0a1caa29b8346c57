"""Every ``pyrua analyze`` table says which perception its episodes used, oracle loudest."""

from pyrua_lab.evaluation.analysis import analyze, markdown


def _record(interface, layout, success, perception):
    return {
        'episode_id': f'{interface}.libero_object/0.s0.l{layout}', 'interface': interface,
        'planner': 'script', 'cost_model': False, 'task': 'libero_object/0', 'seed': 0,
        'layout': layout, 'dimension': None, 'suite': 'libero_object', 'half': None,
        'attempt': 1, 'end_reason': 'solved' if success else 'gave_up', 'success': success,
        'score': 1.0 if success else 0.0, 'cells': 2, 'llm_calls': 0, 'input_tokens': 0,
        'cached_input_tokens': 0, 'output_tokens': 0, 'cost_usd': 0.0, 'images_sent': 0,
        'cell_log': [{'index': 1, 'images': 0}], 'perception': perception,
    }


def test_an_oracle_run_is_marked_privileged_in_every_table():
    analysis = analyze([_record('ref', 0, True, 'oracle'), _record('ref', 1, False, 'oracle')])
    assert analysis.tables
    for table in analysis.tables:
        assert 'Perception: oracle (PRIVILEGED: simulator ground truth).' in table.note, table
    assert 'PRIVILEGED' in analysis.leaderboard.note
    assert markdown(analysis).count('Perception: oracle') == len(analysis.tables)


def test_mixed_perception_names_each_interface_and_rgb_is_not_privileged():
    analysis = analyze([_record('oracle_ref', 0, True, 'oracle'),
                        _record('rgbd_ref', 0, False, 'rgbd')])
    note = analysis.table('sr_overall').note
    assert 'oracle_ref oracle (PRIVILEGED' in note and 'rgbd_ref rgbd' in note
    plain = analyze([_record('ref', 0, True, 'color')]).table('sr_overall').note
    assert 'Perception: color.' in plain and 'PRIVILEGED' not in plain
