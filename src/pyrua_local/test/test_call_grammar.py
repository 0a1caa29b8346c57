"""The grammar of a forced tool call: llama.cpp parses it; what it cannot hold is refused."""

from pyrua_local.call_grammar import forced_call_grammar
import pytest


def test_required_lists_the_offered_names_and_a_named_call_only_its_arguments():
    required = forced_call_grammar(['pose', 'move_to', 'pose'], '')
    assert required.splitlines()[0] == (
        'root ::= ( "move_to" | "pose" ) "\\", \\"arguments\\": " object "}"')
    assert forced_call_grammar(['python'], 'python').splitlines()[0] == 'root ::= object "}"'


def test_llama_cpp_parses_the_grammar():
    llama_cpp = pytest.importorskip('llama_cpp')
    for text in (forced_call_grammar(['pose', 'move_to'], ''),
                 forced_call_grammar(['python'], 'python')):
        assert llama_cpp.LlamaGrammar.from_string(text, verbose=False) is not None


@pytest.mark.parametrize('names, match', [([], 'no tools'), (['say "hi"'], 'tool names')])
def test_what_a_grammar_literal_cannot_hold_is_refused(names, match):
    with pytest.raises(ValueError, match=match):
        forced_call_grammar(names, '')
