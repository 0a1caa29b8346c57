"""
The evaluation spec: which episodes to run (tasks x seeds x layouts x interfaces) and how.

A spec is a YAML file; ``load_spec`` parses it into a frozen ``EvalSpec``, refusing unknown
keys (with a "did you mean") and bad values before any episode starts::

    name: code-vs-tools
    tasks: [pick_place, Precision, 'stack_*']   # task names, dimensions, globs, suite/*
    seeds: [0]
    layouts: ['0-4']                            # indices or 'first-last' ranges
    interfaces:                                 # label -> planner and its inputs
      code:  {planner: code, endpoint: {base_url: 'http://127.0.0.1:8000/v1', model: M}}
      tools: {planner: tools, endpoint: {base_url: 'http://127.0.0.1:8000/v1', model: M}}
      code_bare: {planner: code, endpoint: {...}, prompt: {worked_example: false}}
    budgets: {max_llm_calls: 40}
    perception: color                           # a segmenter, or rgbd (LIBERO)
    sandbox: auto                               # cell isolation: auto, bwrap, none
    labels: {model: M}                          # copied into every episode record

An interface with ``plan: reference`` is the cost model: a loopback server replays the
task's bundled reference program through that interface (no model is asked anything).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
import json
from pathlib import Path
import re
from typing import Any

from pyrua_agent.budgets import BudgetConfig
from pyrua_agent.llm import EndpointConfig
from pyrua_agent.prompt import PromptVariant
from pyrua_agent.runtime.sandbox import SANDBOX_MODES
from pyrua_primitives.library import LibraryConfig
from pyrua_primitives.naming import unknown_name
from pyrua_primitives.perception.segmenter import SEGMENTERS
import yaml

SPEC_KEYS = ('allow_privileged', 'budgets', 'cell_timeout_s', 'interfaces', 'labels', 'layouts',
             'name', 'perception', 'prices', 'sandbox', 'seeds', 'success_guard', 'tasks')
INTERFACE_KEYS = ('endpoint', 'plan', 'planner', 'prompt', 'source')
PLANS = ('reference',)
SOURCE_FIELDS = ('task', 'seed', 'layout')
WORLD_PERCEPTIONS = {'rgbd': 'libero'}
"""Perception modes a world provides itself (not a registered segmenter), and that world:
``rgbd`` is LIBERO's RGB-D catalogue perception (not privileged)."""


def perception_modes() -> tuple[str, ...]:
    """Return every ``perception`` a spec may name: the registered segmenters, then rgbd."""
    return tuple(SEGMENTERS) + tuple(WORLD_PERCEPTIONS)


@dataclass(frozen=True, kw_only=True)
class InterfaceSpec:
    """
    One interface of a spec: a planner and what it needs.

    :param name: the label records and tables use (e.g. ``'code'``).
    :param planner: one of ``pyrua_agent.planners.PLANNERS``.
    :param endpoint: ``EndpointConfig`` fields for LLM planners (the API key stays in the
        environment variable named by ``api_key_env``).
    :param source: script/replay file; ``{task}``, ``{seed}`` and ``{layout}`` are filled
        per episode. A script interface without one runs each task's bundled program.
    :param plan: ``'reference'`` makes this the cost model: the loopback server replays the
        task's reference program through this (LLM) interface.
    :param prompt: ``PromptVariant`` fields for LLM planners, e.g. ``{worked_example: false}``
        (the prompt ablation); empty: the full prompt.
    """

    name: str
    planner: str
    endpoint: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    plan: str | None = None
    prompt: Mapping[str, bool] = field(default_factory=dict)

    @property
    def cost_model(self) -> bool:
        """Return whether this interface replays a fixed plan (not a model's behaviour)."""
        return self.plan is not None

    @property
    def model(self) -> str | None:
        """Return the model name of an LLM interface (None otherwise)."""
        from pyrua_agent.planners import needs_endpoint

        if not needs_endpoint(self.planner):
            return None
        return self.endpoint_config().model

    def endpoint_config(self) -> EndpointConfig:
        """Return the endpoint of an LLM interface (the spec's fields over the defaults)."""
        return EndpointConfig(**self.endpoint)

    def prompt_variant(self) -> PromptVariant:
        """Return the prompt parts of an LLM interface (the spec's fields over the full one)."""
        return PromptVariant(**self.prompt)

    def __repr__(self) -> str:
        what = self.source or self.model or 'bundled program'
        plan = f', plan={self.plan}' if self.plan else ''
        prompt = f', {self.prompt_variant()!r}' if self.prompt else ''
        return f'InterfaceSpec({self.name}: {self.planner} ({what}){plan}{prompt})'


@dataclass(frozen=True, kw_only=True)
class EvalSpec:
    """
    A parsed evaluation spec (see the module docstring for the YAML shape).

    :param name: a short name for the run (tables and the HTML title).
    :param tasks: task entries: built-in names, dimension names, globs over built-in names
        (``'stack_*'``), benchmark tasks (``'libero_spatial/3'``) or suites (``'suite/*'``).
    :param seeds: layout seeds.
    :param layouts: layout indices.
    :param interfaces: the interfaces, in spec order.
    :param budgets: the episode budgets.
    :param cell_timeout_s: optional per-cell limit, seconds.
    :param perception: the primitive library's segmenter (``'oracle'`` reads the simulator's
        ground truth: refused unless ``allow_privileged``).
    :param allow_privileged: allow a privileged perception mode; never a default.
    :param sandbox: the cell isolation (``pyrua_agent.episode.SANDBOX_MODES``).
    :param success_guard: stop cells once the task succeeded.
    :param prices: a price table YAML over the packaged one.
    :param labels: copied into every record under ``labels``.
    """

    name: str
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    layouts: tuple[int, ...]
    interfaces: tuple[InterfaceSpec, ...]
    budgets: BudgetConfig = field(default_factory=BudgetConfig)
    cell_timeout_s: float | None = None
    perception: str = 'color'
    allow_privileged: bool = False
    sandbox: str = 'auto'
    success_guard: bool = True
    prices: str | None = None
    labels: Mapping[str, Any] = field(default_factory=dict)

    def interface(self, name: str) -> InterfaceSpec:
        """Return the interface called ``name``; raise ValueError listing them otherwise."""
        for item in self.interfaces:
            if item.name == name:
                return item
        raise ValueError(unknown_name('interface', name, [i.name for i in self.interfaces]))

    def settings(self) -> dict[str, Any]:
        """Return what decides an episode's outcome beyond its task, seed and layout."""
        data = self.to_dict()
        for key in ('name', 'tasks', 'seeds', 'layouts', 'labels'):
            data.pop(key)
        return data

    def to_dict(self) -> dict[str, Any]:
        """Return the spec as plain JSON types (the shape ``parse_spec`` reads)."""
        return {
            'name': self.name, 'tasks': list(self.tasks), 'seeds': list(self.seeds),
            'layouts': list(self.layouts),
            'interfaces': {i.name: {k: v for k, v in (
                ('planner', i.planner), ('endpoint', dict(i.endpoint)), ('source', i.source),
                ('plan', i.plan), ('prompt', dict(i.prompt))) if v} for i in self.interfaces},
            'budgets': asdict(self.budgets), 'cell_timeout_s': self.cell_timeout_s,
            'perception': self.perception, 'allow_privileged': self.allow_privileged,
            'sandbox': self.sandbox,
            'success_guard': self.success_guard, 'prices': self.prices,
            'labels': dict(self.labels),
        }

    def __repr__(self) -> str:
        names = ', '.join(i.name for i in self.interfaces)
        return (f'EvalSpec({self.name!r}: {len(self.tasks)} task entries x {len(self.seeds)} '
                f'seeds x {len(self.layouts)} layouts x [{names}])')


def _refuse_unknown(data: Mapping[str, Any], valid: tuple[str, ...], where: str) -> None:
    for key in data:
        if key not in valid:
            raise ValueError(f'{where}: ' + unknown_name('key', key, valid))


def _int_list(value: Any, key: str, source: str) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    out: list[int] = []
    for item in items:
        if isinstance(item, bool):
            raise ValueError(f'{source}: {key} entry {item!r} vs an integer or "first-last"')
        if isinstance(item, int):
            out.append(item)
            continue
        text = str(item)
        if text.strip().isdigit():
            out.append(int(text))
            continue
        first, dash, last = text.partition('-')
        if not (dash and first.strip().isdigit() and last.strip().isdigit()):
            raise ValueError(f'{source}: {key} entry {item!r} vs an integer or a range like '
                             "'0-9'; fix the entry")
        low, high = int(first), int(last)
        if high < low:
            raise ValueError(f'{source}: {key} range {text!r} ends before it starts; '
                             f"write '{high}-{low}'")
        out.extend(range(low, high + 1))
    if not out:
        raise ValueError(f'{source}: {key} is empty; give at least one value')
    if len(set(out)) != len(out):
        raise ValueError(f'{source}: {key} lists a value twice ({out}); each episode runs once')
    return tuple(out)


def _interface(name: str, data: Any, source: str) -> InterfaceSpec:
    from pyrua_agent.planners import needs_endpoint, PLANNERS

    where = f'{source}: interface {name!r}'
    if not re.fullmatch(r'[A-Za-z0-9_-]+', str(name)):
        raise ValueError(f'{where}: the label may hold letters, digits, _ and - only (it '
                         'names files); e.g. code_gpt5')
    if not isinstance(data, Mapping):
        raise ValueError(f'{where} is {data!r} vs a mapping with planner: ...; e.g. '
                         '{planner: script}')
    _refuse_unknown(data, INTERFACE_KEYS, where)
    planner = data.get('planner')
    if planner not in PLANNERS:
        raise ValueError(f'{where}: ' + unknown_name('planner', planner, PLANNERS))
    endpoint = dict(data.get('endpoint') or {})
    source_file = data.get('source')
    plan = data.get('plan')
    prompt = _prompt_fields(data.get('prompt'), where)
    if prompt and not needs_endpoint(planner):
        raise ValueError(f'{where}: planner {planner!r} asks no model, so it has no prompt; '
                         'remove prompt')
    if needs_endpoint(planner):
        if source_file is not None:
            raise ValueError(f'{where}: planner {planner!r} takes an endpoint, not a source '
                             'file; remove source')
        if plan is not None and plan not in PLANS:
            raise ValueError(f'{where}: ' + unknown_name('plan', plan, PLANS))
        if plan is not None and 'base_url' in endpoint:
            raise ValueError(f'{where}: plan: reference runs its own loopback server vs '
                             f"base_url {endpoint['base_url']!r}; remove base_url")
        try:
            EndpointConfig(**endpoint)
        except TypeError as exc:
            raise ValueError(f'{where}: endpoint has an unknown field ({exc}); the fields '
                             'are those of pyrua_agent.llm.EndpointConfig') from None
        except ValueError as exc:
            raise ValueError(f'{where}: endpoint {exc}') from None
    else:
        if endpoint or plan is not None:
            raise ValueError(f'{where}: planner {planner!r} takes no endpoint or plan; give '
                             'source (a file) or nothing for the bundled programs')
        if planner == 'replay' and source_file is None:
            raise ValueError(f"{where}: planner 'replay' needs source: a transcript path, "
                             "e.g. 'runs/{task}_s{seed}_l{layout}/transcript.jsonl'")
        if source_file is not None:
            try:
                str(source_file).format(task='t', seed=0, layout=0)
            except (KeyError, IndexError) as exc:
                raise ValueError(f'{where}: source {source_file!r} uses {exc} vs the fields '
                                 f'{SOURCE_FIELDS}; use only those in braces') from None
    return InterfaceSpec(name=str(name), planner=planner, endpoint=endpoint,
                         source=None if source_file is None else str(source_file), plan=plan,
                         prompt=prompt)


def _prompt_fields(data: Any, where: str) -> dict[str, bool]:
    """Return an interface's ``prompt:`` fields, checked against ``PromptVariant``."""
    if data is None:
        return {}
    valid = PromptVariant.parts()
    if not isinstance(data, Mapping):
        raise ValueError(f'{where}: prompt is {data!r} vs a mapping of part -> true/false; '
                         f'the parts are {list(valid)}, e.g. {{worked_example: false}}')
    _refuse_unknown(data, valid, f'{where}: prompt')
    try:
        PromptVariant(**data)
    except ValueError as exc:
        raise ValueError(f'{where}: prompt: {exc}') from None
    return {str(k): v for k, v in data.items()}


def parse_spec(data: Any, source: str = '<spec>') -> EvalSpec:
    """
    Parse a spec mapping (YAML loaded) into an ``EvalSpec``.

    :param data: the mapping.
    :param source: where it came from, for messages.
    :returns: the spec.
    :raises ValueError: for an unknown key, a missing field or a bad value, naming it.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f'{source}: the spec is {type(data).__name__} vs a mapping with '
                         'tasks, seeds, layouts and interfaces')
    _refuse_unknown(data, SPEC_KEYS, source)
    for key in ('tasks', 'interfaces'):
        if not data.get(key):
            raise ValueError(f'{source}: {key} is missing or empty; see `pyrua eval --help`')
    tasks = data['tasks'] if isinstance(data['tasks'], list) else [data['tasks']]
    interfaces_data = data['interfaces']
    if not isinstance(interfaces_data, Mapping):
        raise ValueError(f'{source}: interfaces is a {type(interfaces_data).__name__} vs a '
                         'mapping of label -> {planner: ...}')
    interfaces = tuple(_interface(n, d, source) for n, d in interfaces_data.items())
    budgets_data = data.get('budgets') or {}
    try:
        budgets = BudgetConfig(**budgets_data)
    except TypeError:
        valid = tuple(BudgetConfig.__dataclass_fields__)
        bad = next(k for k in budgets_data if k not in valid)
        raise ValueError(f'{source}: budgets: ' + unknown_name('key', bad, valid)) from None
    perception = data.get('perception', 'color')
    allow_privileged = data.get('allow_privileged', False)
    if not isinstance(allow_privileged, bool):
        raise ValueError(f'{source}: allow_privileged {allow_privileged!r} vs true or false')
    if perception not in perception_modes():
        raise ValueError(f'{source}: ' + unknown_name('perception mode', perception,
                                                      perception_modes()))
    try:
        LibraryConfig(segmenter=perception, allow_privileged=allow_privileged,
                      use_depth=perception in WORLD_PERCEPTIONS)
    except ValueError as exc:
        raise ValueError(f'{source}: perception {exc}') from None
    sandbox = str(data.get('sandbox', 'auto'))
    if sandbox not in SANDBOX_MODES:
        raise ValueError(f'{source}: ' + unknown_name('sandbox mode', sandbox, SANDBOX_MODES))
    labels = data.get('labels') or {}
    if not isinstance(labels, Mapping):
        raise ValueError(f'{source}: labels is {labels!r} vs a mapping of name -> value')
    cell_timeout = data.get('cell_timeout_s')
    if cell_timeout is not None and not float(cell_timeout) > 0:
        raise ValueError(f'{source}: cell_timeout_s {cell_timeout} vs > 0 s; or leave it out')
    prices = data.get('prices')
    if prices is not None:
        prices_path = Path(prices)
        if not prices_path.is_absolute() and source not in ('<spec>',):
            prices_path = Path(source).parent / prices_path
        if not prices_path.is_file():
            raise FileNotFoundError(f'{source}: prices file {prices_path} does not exist')
        prices = str(prices_path.resolve())
    return EvalSpec(
        name=str(data.get('name') or Path(source).stem),
        tasks=tuple(str(t) for t in tasks),
        seeds=_int_list(data.get('seeds', [0]), 'seeds', source),
        layouts=_int_list(data.get('layouts', [0]), 'layouts', source),
        interfaces=interfaces, budgets=budgets,
        cell_timeout_s=None if cell_timeout is None else float(cell_timeout),
        perception=perception, allow_privileged=allow_privileged,
        sandbox=sandbox,
        success_guard=bool(data.get('success_guard', True)), prices=prices,
        labels=json.loads(json.dumps(dict(labels))))


def load_spec(path: str | Path) -> EvalSpec:
    """
    Read and parse the spec file ``path``.

    :raises FileNotFoundError: when the file does not exist.
    :raises ValueError: for malformed YAML or a bad spec (see ``parse_spec``).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f'spec file {path} does not exist')
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ValueError(f'{path}: not valid YAML ({exc})') from None
    return parse_spec(data, str(path))
