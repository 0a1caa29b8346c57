"""Accounting: the price table, per-call records and episode totals."""

import json

from pyrua_agent.accounting import CallRecord, InfraEvent, Ledger, ModelPrice, PriceTable
import pytest


def _record(input_tokens=1000, cached=0, output=100, cost=0.01, images=1):
    return CallRecord(model='gpt-5-mini', input_tokens=input_tokens, cached_input_tokens=cached,
                      output_tokens=output, reasoning_tokens=40, images_sent=images,
                      latency_s=1.25, retries=0, cost_usd=cost)


def test_packaged_table_prices_known_models():
    table = PriceTable.load()
    price = table.get('gpt-5-mini')
    assert isinstance(price, ModelPrice)
    assert price.cached_input_per_m <= price.input_per_m <= price.output_per_m
    assert 'gpt-4.1' in table.models


def test_unknown_model_has_no_price_never_a_guess():
    table = PriceTable.load()
    assert table.get('gpt-5-mini-2099') is None
    assert 'cost_usd is null' in table.missing_note('gpt-5-mini-2099')


def test_cost_charges_cached_tokens_at_the_cached_rate():
    price = ModelPrice(input_per_m=2.0, cached_input_per_m=0.5, output_per_m=8.0)
    assert price.cost_usd(1_000_000, 0, 0) == pytest.approx(2.0)
    assert price.cost_usd(1_000_000, 1_000_000, 0) == pytest.approx(0.5)
    assert price.cost_usd(3000, 1000, 500) == pytest.approx((2000 * 2 + 1000 * 0.5 + 500 * 8)
                                                            / 1e6)


def test_user_price_file_adds_and_replaces_models(tmp_path):
    path = tmp_path / 'prices.yaml'
    path.write_text('models:\n'
                    '  my-vllm-qwen: {input: 0.1, cached_input: 0.01, output: 0.3}\n'
                    '  gpt-5-mini: {input: 9, cached_input: 9, output: 9}\n')
    table = PriceTable.load(path)
    assert table.get('my-vllm-qwen') == ModelPrice(0.1, 0.01, 0.3)
    assert table.get('gpt-5-mini') == ModelPrice(9.0, 9.0, 9.0)
    assert str(path) in repr(table)


@pytest.mark.parametrize(('text', 'message'), [
    ('gpt-x: {input: 1}\n', 'no "models:" mapping'),
    ('models:\n  m: {input: 1, output: 2}\n', r"price of 'm' .* has \['input', 'output'\] vs"),
    ('models:\n  m: {input: -1, cached_input: 0, output: 1}\n', r'price m.input .* is -1 vs'),
    ('models:\n  m: {input: cheap, cached_input: 0, output: 1}\n', "is 'cheap' vs a number"),
])
def test_malformed_price_file_names_entry_and_field(tmp_path, text, message):
    path = tmp_path / 'prices.yaml'
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        PriceTable.load(path)


def test_ledger_totals_sum_calls_and_keep_infra_events_apart():
    ledger = Ledger()
    ledger.add_infra(InfraEvent(kind='rate_limit', detail='429', status=429, wait_s=1.0))
    ledger.add_call(_record(cached=512, cost=0.01))
    ledger.add_call(_record(input_tokens=3000, cached=2048, output=50, cost=0.02, images=3))
    totals = ledger.totals()
    assert totals.llm_calls == 2
    assert totals.input_tokens == 4000
    assert totals.cached_input_tokens == 2560
    assert totals.output_tokens == 150
    assert totals.reasoning_tokens == 80
    assert totals.images_sent == 4
    assert totals.infra_events == 1
    assert totals.cost_usd == pytest.approx(0.03)
    assert totals.latency_s == pytest.approx(2.5)


def test_one_unpriced_call_makes_the_episode_cost_unknown():
    ledger = Ledger()
    ledger.add_call(_record(cost=0.01))
    ledger.add_call(_record(cost=None), note='no price for model x')
    ledger.add_call(_record(cost=None), note='no price for model x')
    totals = ledger.totals()
    assert totals.cost_usd is None
    assert totals.cost_note == 'no price for model x'


def test_episode_dict_has_the_public_field_names_and_is_json():
    ledger = Ledger()
    ledger.add_call(_record())
    ledger.add_infra(InfraEvent(kind='timeout', detail='no response', status=None, wait_s=0.5))
    data = json.loads(json.dumps(ledger.to_dict()))
    for key in ('llm_calls', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'cost_usd'):
        assert key in data
    assert data['llm_calls'] == len(data['calls']) == 1
    assert data['calls'][0]['latency_s'] == 1.25
    assert data['infra'][0]['kind'] == 'timeout'


def test_reprs_are_one_short_line():
    ledger = Ledger()
    ledger.add_call(_record())
    for text in (repr(_record()), repr(ledger.totals()), ledger.progress(),
                 repr(InfraEvent(kind='server_error', detail='x' * 500, status=503, wait_s=2))):
        assert '\n' not in text
        assert len(text) <= 160
    assert ledger.progress().startswith('call 1: this call in 1,000 (cached 0) out 100')
