"""
The system prompt's state kept on disk: read once, loaded by later requests and processes.

A real model (SmolLM2-135M, greedy) and llama.cpp's own state files; the second process is a
second backend loaded from the same file, as a second ``pyrua run`` would.
"""

import threading

from pyrua_local.backend import BackendConfig, LlamaBackend
from pyrua_local.models import ensure_gguf, resolve_model
from pyrua_local.prefix_cache import MIN_PREFIX_TOKENS
from pyrua_local.testing import require_local_model
import pytest

RULES = ' '.join(f'Rule {i}: check the result of step {i} before step {i + 1}.'
                 for i in range(60))
SYSTEM = {'role': 'system', 'content': 'You control a robot by writing Python. ' + RULES}


def _body(task, system=SYSTEM, **extra):
    return {'model': 'smollm2-135m', 'messages': [system, {'role': 'user', 'content': task}],
            'max_tokens': 12, **extra}


@pytest.fixture(scope='module')
def smol_path():
    require_local_model('smollm2-135m')
    return ensure_gguf('smollm2-135m')


def _backend(path, folder, **config):
    return LlamaBackend(resolve_model('smollm2-135m'), path,
                        BackendConfig(threads=1, **config), prefix_folder=folder)


def test_a_new_process_reads_only_what_follows_the_system_prompt(smol_path, tmp_path):
    first = _backend(smol_path, tmp_path)
    cold = first.complete(_body('Say hi.'))
    assert cold['timings']['prefix_restored_tokens'] == 0
    assert cold['usage']['prompt_tokens_details']['cached_tokens'] == 0
    files = first.prefix_cache.files()
    assert len(files) == 1 and files[0].stat().st_size > 0

    second = _backend(smol_path, tmp_path)  # another process: nothing in memory
    warm = second.complete(_body('Say hi.'))
    prefix = second.stable_prefix(_body('Say hi.'), second.tokenize(second.render(
        _body('Say hi.'))[0]))
    assert prefix >= MIN_PREFIX_TOKENS
    assert warm['timings']['prefix_restored_tokens'] == prefix
    total = warm['usage']['prompt_tokens']
    assert total - warm['usage']['prompt_tokens_details']['cached_tokens'] <= 0.1 * total
    # The restored state is the state: greedy output is the same as read from scratch.
    assert warm['choices'][0]['message'] == cold['choices'][0]['message']
    assert second.prefix_cache.loaded == 1 and second.prefix_cache.saved == 0


def test_another_system_prompt_or_model_file_never_loads_a_stale_state(smol_path, tmp_path):
    backend = _backend(smol_path, tmp_path)
    backend.complete(_body('Say hi.'))
    other = {'role': 'system', 'content': 'You sort blocks by colour. ' + RULES}
    reply = _backend(smol_path, tmp_path).complete(_body('Say hi.', system=other))
    assert reply['timings']['prefix_restored_tokens'] == 0
    assert len(backend.prefix_cache.files()) == 2
    # Another model identity (a new file) keys other files in the same folder.
    from pyrua_local.prefix_cache import PrefixCache
    import llama_cpp

    stale = PrefixCache(llama_cpp, 'another-sha256', backend.tokenizer.template.source,
                        tmp_path)
    tokens = backend.tokenize(backend.render(_body('Say hi.'))[0])
    prefix = tokens[:backend.stable_prefix(_body('Say hi.'), tokens)]
    assert backend.prefix_cache.path_for(prefix).is_file()
    assert not stale.path_for(prefix).is_file()


def test_the_folder_stays_under_its_cap_dropping_the_least_recently_used(smol_path, tmp_path):
    backend = _backend(smol_path, tmp_path)
    backend.complete(_body('Say hi.'))
    one = backend.prefix_cache.files()[0].stat().st_size
    backend.prefix_cache.capacity_bytes = int(one * 2.5)
    for topic in ('colours', 'shapes', 'sizes'):
        system = {'role': 'system', 'content': f'You sort blocks by {topic}. ' + RULES}
        backend.complete(_body('Say hi.', system=system))
    files = backend.prefix_cache.files()
    assert len(files) == 2
    assert sum(p.stat().st_size for p in files) <= backend.prefix_cache.capacity_bytes
    off = _backend(smol_path, tmp_path / 'off', prefix_cache_bytes=0)
    assert off.prefix_cache is None
    off.complete(_body('Say hi.'))
    assert not (tmp_path / 'off').exists()


def test_a_partial_reply_is_continued_and_only_the_continuation_returned(smol_path, tmp_path):
    backend = _backend(smol_path, tmp_path)
    body = _body('Write one line of Python that prints 1.')
    body['messages'].append({'role': 'assistant', 'content': '```python\nprint('})
    reply = backend.complete({**body, 'continue_final_message': True})
    prompt, force = backend.render({**body, 'continue_final_message': True})
    assert force is None and prompt.endswith('<|im_start|>assistant\n```python\nprint(')
    assert not reply['choices'][0]['message']['content'].startswith('```python')
    from pyrua_local.backend import RequestError

    with pytest.raises(RequestError, match='not the assistant'):
        backend.complete({**_body('Hi.'), 'continue_final_message': True})


def test_progress_reports_the_prompt_read_while_a_request_runs(smol_path, tmp_path):
    backend = _backend(smol_path, tmp_path, prefix_cache_bytes=0)
    seen = []
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            state = backend.progress.snapshot()
            if state['busy']:
                seen.append(state)
            stop.wait(0.002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        backend.complete(_body('Count from one to five.', max_tokens=24))
    finally:
        stop.set()
        watcher.join()
    assert seen, 'no busy snapshot while the request ran'
    total = seen[0]['prompt_tokens']
    assert all(s['prompt_tokens'] == total and 0 <= s['prompt_done'] <= total for s in seen)
    assert [s['prompt_done'] for s in seen] == sorted(s['prompt_done'] for s in seen)
    assert backend.progress.snapshot() == {'busy': False, 'requests': 1}
