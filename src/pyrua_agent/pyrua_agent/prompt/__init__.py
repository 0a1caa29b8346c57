"""
Prompt parts of the LLM planners: package texts, the generated API reference, the task card.

The texts are package data (``*.md`` in this folder) loaded with ``importlib.resources``;
the API reference is generated from the primitives' signatures and docstrings, so the
prompt always describes the functions the episode really runs.
"""

from .parts import (AS_IN_THE_EXAMPLE, prompt_text, PromptFiles, PromptVariant, system_prompt,
                    task_card_message, task_card_text)
from .reference import code_api_reference, tools_api_reference

__all__ = [
    'AS_IN_THE_EXAMPLE',
    'PromptFiles',
    'PromptVariant',
    'code_api_reference',
    'prompt_text',
    'system_prompt',
    'task_card_message',
    'task_card_text',
    'tools_api_reference',
]
