"""What a record says it ran on: the weights' checksum, the commit, the machine's load."""

import hashlib

from pyrua_lab.evaluation.provenance import (
    load_average, model_checksum, provenance, provenance_line,
)
import pytest


def test_a_local_model_is_named_by_its_weights_checksum_and_a_gguf_file_by_its_bytes(tmp_path):
    pytest.importorskip('pyrua_local', reason='pyrua_local: see requirements/test.txt')
    from pyrua_local.models import MODELS

    assert model_checksum('local:qwen2.5-coder-1.5b') == MODELS['qwen2.5-coder-1.5b'].sha256
    assert model_checksum('local') == model_checksum('local:qwen2.5-coder-0.5b')
    trained = tmp_path / 'trained.gguf'
    trained.write_bytes(b'GGUF' + bytes(100))
    assert model_checksum(f'local:{trained}') == hashlib.sha256(trained.read_bytes()).hexdigest()
    assert model_checksum(f'local:{tmp_path / "missing.gguf"}') is None
    assert model_checksum('gpt-5-mini') is None and model_checksum(None) is None


def test_provenance_gives_the_load_before_and_after_and_the_machine():
    before = load_average()
    record = provenance('gpt-5-mini', before)
    assert record['load_at_start'] == before and len(record['load_at_end']) == 3
    assert all(value >= 0 for value in record['load_at_end'])
    assert 'CPUs' in record['machine'] and set(record) >= {'commit', 'model_sha256'}


def test_the_provenance_line_says_what_a_resumed_run_mixes():
    def record(commit, dirty, load, when):
        return {'provenance': {'commit': commit, 'dirty': dirty, 'model_sha256': 'cc324af070c2ee',
                               'machine': '2 CPUs, Linux', 'finished_at': when,
                               'load_at_start': [load, 1.0, 1.0],
                               'load_at_end': [load + 0.5, 1.0, 1.0]}}

    records = [record('a' * 40, False, 0.4, '2026-12-07T10:00:00Z'),
               record('a' * 40, False, 1.8, '2026-12-08T09:00:00Z'),
               record('b' * 40, True, 1.1, '2026-12-07T12:00:00Z'), {'episode_id': 'old'}]
    assert provenance_line(records) == (
        'Ran: finished 2026-12-07T10:00:00Z to 2026-12-08T09:00:00Z; commits aaaaaaa (2), '
        'bbbbbbb+ (1); weights sha256 cc324af070c2... (3); on 2 CPUs, Linux; 1-min load at '
        'episode start 0.40-1.80; 1-min load at episode end 0.90-2.30; 1 episodes recorded '
        'without provenance.')
    assert provenance_line([]) == ''
