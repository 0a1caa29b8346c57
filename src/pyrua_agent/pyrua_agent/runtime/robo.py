"""
The ``robo`` facade a cell calls, and the primitive descriptions it is built from.

The host describes each primitive once (signature and docstring, ``primitive_spec``); the
worker builds ``Robo`` from those descriptions, so ``dir(robo)`` and ``help(robo.move_to)``
show the host primitives while every call is forwarded to the host to run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import inspect
from typing import Any

from pyrua_primitives.naming import unknown_name

# (name, kind, default text or None, annotation text or None) per parameter; the runtime
# passes keyword-only ``cancel`` and ``feedback`` itself, so they are left out.
ParamSpec = tuple[str, int, str | None, str | None]
PrimitiveSpec = tuple[tuple[ParamSpec, ...], str | None, str]

SHOW_DOC = """
Show a camera image to the model at the end of this cell.

The picture is taken now with ``robo.image(camera)``; a placeholder
``[image k: camera — note]`` marks the point in the output where it was asked for.

:param camera: ``'head'``, ``'left_wrist'`` or ``'right_wrist'``.
:param note: a short caption for the model, e.g. what to look for.
:returns: None.
"""
SHOW_SPEC: PrimitiveSpec = (
    (('camera', inspect.Parameter.POSITIONAL_OR_KEYWORD.value, None, 'str'),
     ('note', inspect.Parameter.POSITIONAL_OR_KEYWORD.value, "''", 'str')),
    'None', inspect.cleandoc(SHOW_DOC))
RUNTIME_KEYWORDS = frozenset({'cancel', 'feedback'})
INSTRUCTION_DOC = """
The task instruction of this episode, as the task card gives it (a str, read without a call).
"""


@dataclass(frozen=True, slots=True)
class RoboValue:
    """A constant a cell reads as ``robo.<name>`` without a call (``robo.instruction``)."""

    value: str
    doc: str = ''


class _Text:
    """Shows a default value or an annotation by its source text."""

    __slots__ = ('_text',)

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


def _annotation_text(annotation: Any) -> str | None:
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    return inspect.formatannotation(annotation)


def primitive_spec(func: Callable) -> PrimitiveSpec:
    """
    Describe ``func`` as plain data for the worker.

    :param func: the host-side primitive, or a ``RoboValue`` (then the parameters are None
        and the return annotation's place holds the value).
    :returns: its parameters, return annotation and docstring.
    """
    if isinstance(func, RoboValue):
        return None, func.value, inspect.cleandoc(func.doc)
    doc = inspect.getdoc(func) or ''
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return ((('args', inspect.Parameter.VAR_POSITIONAL.value, None, None),
                 ('kwargs', inspect.Parameter.VAR_KEYWORD.value, None, None)), None, doc)
    params = tuple(
        (p.name, p.kind.value,
         None if p.default is inspect.Parameter.empty else repr(p.default),
         _annotation_text(p.annotation))
        for p in sig.parameters.values()
        if not (p.kind is inspect.Parameter.KEYWORD_ONLY and p.name in RUNTIME_KEYWORDS))
    return params, _annotation_text(sig.return_annotation), doc


def _signature(spec: PrimitiveSpec) -> inspect.Signature:
    params, returns, _doc = spec
    built = [
        inspect.Parameter(
            name, inspect._ParameterKind(kind),
            default=inspect.Parameter.empty if default is None else _Text(default),
            annotation=inspect.Parameter.empty if note is None else _Text(note))
        for name, kind, default, note in params]
    return inspect.Signature(
        built, return_annotation=inspect.Signature.empty if returns is None else _Text(returns))


def _forwarder(name: str, spec: PrimitiveSpec,
               call: Callable[[str, tuple, dict], Any]) -> Callable:
    def forward(*args, **kwargs):
        return call(name, args, kwargs)

    forward.__name__ = name
    forward.__qualname__ = f'robo.{name}'
    forward.__module__ = 'robo'
    forward.__doc__ = spec[2]
    forward.__signature__ = _signature(spec)
    return forward


class Robo:
    """
    The robot, as a cell sees it: one method per primitive, plus ``show``.

    :param specs: primitive name to its description (``primitive_spec``).
    :param call: forwards ``(name, args, kwargs)`` to the host and returns the result.
    """

    __slots__ = ('_funcs', '_values')

    def __init__(self, specs: dict[str, PrimitiveSpec],
                 call: Callable[[str, tuple, dict], Any]) -> None:
        funcs = {name: _forwarder(name, spec, call) for name, spec in specs.items()
                 if spec[0] is not None}
        funcs['show'] = _forwarder('show', SHOW_SPEC, call)
        object.__setattr__(self, '_funcs', funcs)
        object.__setattr__(self, '_values', {name: spec[1] for name, spec in specs.items()
                                             if spec[0] is None})

    def __getattr__(self, name: str) -> Callable:
        if name in self._values:
            return self._values[name]
        try:
            return self._funcs[name]
        except KeyError:
            if name.startswith('__'):
                raise AttributeError(name) from None
            names = [*self._funcs, *self._values]
            raise AttributeError(unknown_name('primitive', name, names)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"robo.{name} cannot be assigned; robo only calls the robot's "
                             'primitives, so keep your own values in variables')

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f'robo.{name} cannot be deleted')

    def __dir__(self) -> list[str]:
        return sorted([*self._funcs, *self._values])

    def __repr__(self) -> str:
        return f'<robo: {", ".join(dir(self))}>'
