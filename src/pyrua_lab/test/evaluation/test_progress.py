"""The progress line: done/total, SR per interface, dollars, tokens."""

import io

from pyrua_lab.evaluation.progress import EvalProgress, RunTally


def test_tally_line_shows_sr_per_interface_dollars_tokens_and_unpriced():
    tally = RunTally()
    for interface, success, usd, tokens in (('code', True, 0.25, 1500), ('code', False, 0.5, 0),
                                            ('tools', True, None, 2_500_000)):
        tally.add({'interface': interface, 'success': success, 'end_reason': 'solved',
                   'cost_usd': usd, 'input_tokens': tokens, 'output_tokens': 10})
    assert tally.line() == ('SR code 1/2 (50%) tools 1/1 (100%) | $0.7500 (+1 unpriced) | '
                            'tok in 2.5M out 30')


def test_resumed_records_count_as_done_on_the_bar():
    stream = io.StringIO()
    done = [{'interface': 'a', 'success': True, 'end_reason': 'solved', 'cost_usd': 0.0,
             'input_tokens': 0, 'output_tokens': 0}]
    bar = EvalProgress(3, done, stream=stream)
    bar.add({**done[0], 'success': False, 'end_reason': 'infra_error'})
    bar.close()
    assert '2/3' in stream.getvalue() and 'SR a 1/2 (50%)' in stream.getvalue()
    assert 'infra 1' in stream.getvalue()
