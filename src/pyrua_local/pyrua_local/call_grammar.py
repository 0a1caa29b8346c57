"""
The grammar of a forced tool call: a tool the request offers, with a JSON object as arguments.

``tool_choice: required`` (or a named tool) starts the reply with the tool-call wrapper
(``template.TOOL_CALL_PREFILL``); what the model writes after it is then constrained, as
hosted APIs and vLLM's guided decoding constrain a required call: the name is one of the
offered tools' (a small model otherwise calls the task, ``pick_place(...)``), and the
arguments are one JSON object (no arguments wrapped twice, no Python triple quotes). The
grammar is GBNF, llama.cpp's own format (``llama_cpp.LlamaGrammar.from_string``).
"""

from __future__ import annotations

from collections.abc import Sequence
import re

_JSON_RULES = r"""
object ::= "{" ws ( string ":" ws value ( "," ws string ":" ws value )* )? "}" ws
value ::= object | array | string | number | ( "true" | "false" | "null" ) ws
array ::= "[" ws ( value ( "," ws value )* )? "]" ws
string ::= "\"" ( [^"\\] | "\\" ( ["\\/bfnrt] | "u" hex hex hex hex ) )* "\"" ws
hex ::= [0-9a-fA-F]
number ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )? ws
ws ::= ( [ \t\n] ws )?
"""
_NAME = re.compile(r'[A-Za-z0-9_.-]+')


def forced_call_grammar(tool_names: Sequence[str], force: str) -> str:
    """
    Return the GBNF of what follows the forced tool-call prefill.

    :param tool_names: the names of the tools the request offers.
    :param force: ``''`` for ``required`` (the model picks the name: the continuation is
        ``NAME", "arguments": {...}}``), else the named tool (already in the prefill: the
        continuation is ``{...}}``).
    :raises ValueError: for no tools, or a name a grammar literal cannot hold.
    """
    if not tool_names:
        raise ValueError('a forced tool call vs no tools offered')
    bad = [name for name in tool_names if not _NAME.fullmatch(name)]
    if bad:
        raise ValueError(f'tool names {bad} vs letters, digits, "_", "-", "."')
    if force:
        root = 'root ::= object "}"'
    else:
        names = ' | '.join(f'"{name}"' for name in sorted(set(tool_names)))
        root = f'root ::= ( {names} ) "\\", \\"arguments\\": " object "}}"'
    return root + '\n' + _JSON_RULES.strip() + '\n'
