"""
Builders other packages' tests reuse: the loopback OpenAI-compatible chat server.

The server itself is production code of the cost model, in ``pyrua_agent.llm.reference_server``;
this module keeps the names tests import.
"""

from .llm.reference_server import (
    CACHE_BLOCK_TOKENS,
    CACHE_MIN_TOKENS,
    cached_prefix_tokens,
    check_chat_request,
    code_turn,
    end_turns,
    LoopbackLLMServer,
    RecordedRequest,
    ScriptedCall,
    ScriptedFault,
    ScriptedReply,
    ScriptedStall,
    text_turn,
    tool_turn,
)

__all__ = [
    'CACHE_BLOCK_TOKENS',
    'CACHE_MIN_TOKENS',
    'LoopbackLLMServer',
    'RecordedRequest',
    'ScriptedCall',
    'ScriptedFault',
    'ScriptedReply',
    'ScriptedStall',
    'cached_prefix_tokens',
    'check_chat_request',
    'code_turn',
    'end_turns',
    'text_turn',
    'tool_turn',
]
