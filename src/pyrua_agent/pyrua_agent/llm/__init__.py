"""
The LLM endpoint side of the planners: client, messages, tool schemas and token counts.

Any OpenAI-compatible chat-completions endpoint works (OpenAI, vLLM, SGLang, Ollama,
LiteLLM); accounting comes from the usage each response reports.
"""

from .client import ChatClient, ChatReply, RawToolCall
from .config import EndpointConfig
from .errors import (
                     ContextOverflow,
                     EndpointConfigError,
                     EndpointRejected,
                     EndpointUnavailable,
                     LLMError,
)
from .messages import (
                     assistant_message,
                     attach_image,
                     ImageAttachment,
                     system_message,
                     tool_result_messages,
                     ToolOutput,
                     user_message,
)
from .schema import function_schema
from .tools import parse_tool_call, ParseResult, python_tool, PYTHON_TOOL_NAME

__all__ = [
    'ChatClient',
    'ChatReply',
    'ContextOverflow',
    'EndpointConfig',
    'EndpointConfigError',
    'EndpointRejected',
    'EndpointUnavailable',
    'ImageAttachment',
    'LLMError',
    'PYTHON_TOOL_NAME',
    'ParseResult',
    'RawToolCall',
    'ToolOutput',
    'assistant_message',
    'attach_image',
    'function_schema',
    'parse_tool_call',
    'python_tool',
    'system_message',
    'tool_result_messages',
    'user_message',
]
