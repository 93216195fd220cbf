"""Realistic request bodies of each provider, in the shapes their API references give, for the
readers' tests: a tool-calling conversation with images, reasoning and (where the provider has
them) cache breakpoints. Each test copies what it changes."""

from __future__ import annotations

from typing import Any

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
"""A 1x1 PNG, base64."""

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}

OPENAI_CHAT: dict[str, Any] = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "developer", "content": "Answer in one line."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What city is this, and its weather?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/paris.jpg"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_abc",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_def",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Lyon"}'},
                },
            ],
            "refusal": None,
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "18C, sunny"},
        {"role": "tool", "tool_call_id": "call_def", "content": [{"type": "text", "text": "15C, rain"}]},
        {"role": "assistant", "content": "Paris: 18C and sunny."},
        {"role": "user", "content": "And tomorrow?", "name": "ana"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather in a city",
                "parameters": WEATHER_SCHEMA,
                "strict": True,
            },
        }
    ],
    "tool_choice": "auto",
    "parallel_tool_calls": True,
    "temperature": 0.3,
    "max_completion_tokens": 400,
    "prompt_cache_key": "weather-v1",
    "prompt_cache_retention": "24h",
}

OPENAI_RESPONSES: dict[str, Any] = {
    "model": "o4-mini",
    "instructions": "Answer in one line.",
    "input": [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What city is this, and its weather?"},
                {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"},
                {"type": "input_file", "filename": "notes.pdf", "file_data": "data:application/pdf;base64,JVBERi0x"},
            ],
        },
        {
            "type": "reasoning",
            "id": "rs_0a1",
            "summary": [{"type": "summary_text", "text": "The picture shows Paris; look up its weather."}],
            "encrypted_content": "gAAAAABo-encrypted-reasoning",
        },
        {
            "type": "function_call",
            "id": "fc_0a2",
            "call_id": "call_abc",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_abc", "output": "18C, sunny"},
        {
            "type": "message",
            "id": "msg_0a3",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Paris: 18C and sunny.", "annotations": []}],
        },
        {"role": "user", "content": "And tomorrow?"},
    ],
    "tools": [
        {
            "type": "function",
            "name": "get_weather",
            "description": "The weather in a city",
            "parameters": WEATHER_SCHEMA,
            "strict": True,
        }
    ],
    "reasoning": {"effort": "high", "summary": "auto"},
    "include": ["reasoning.encrypted_content"],
    "store": False,
    "max_output_tokens": 800,
    "text": {
        "format": {
            "type": "json_schema",
            "name": "weather",
            "schema": {"type": "object", "properties": {"line": {"type": "string"}}, "required": ["line"]},
            "strict": True,
        }
    },
    "prompt_cache_key": "weather-v1",
}

ANTHROPIC: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": [
        {"type": "text", "text": "You are a weather assistant."},
        {"type": "text", "text": "Long reference text...", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    ],
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/paris.jpg"}},
                {
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"},
                },
                {"type": "text", "text": "What city is this, and its weather?", "cache_control": {"type": "ephemeral"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "The picture shows Paris.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"},
                {"type": "text", "text": "Let me look it up."},
                {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Lyon"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "18C, sunny"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01B",
                    "content": [
                        {"type": "text", "text": "station offline"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                    ],
                    "is_error": True,
                },
            ],
        },
        {"role": "assistant", "content": "Paris: 18C and sunny; Lyon unknown."},
        {"role": "user", "content": "And tomorrow?"},
    ],
    "tools": [
        {
            "name": "get_weather",
            "description": "The weather in a city",
            "input_schema": WEATHER_SCHEMA,
            "cache_control": {"type": "ephemeral", "ttl": "1h"},  # the tools come first: the longer ttl
        }
    ],
    "thinking": {"type": "enabled", "budget_tokens": 2000},
    "tool_choice": {"type": "auto"},
    "temperature": 1,
}

OLLAMA: dict[str, Any] = {
    "model": "qwen3:8b",
    "stream": False,
    "think": True,
    "messages": [
        {"role": "system", "content": "Answer in one line."},
        {"role": "user", "content": "What city is this, and its weather?", "images": [PNG]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "The picture shows Paris.",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
        },
        {"role": "tool", "content": "18C, sunny", "tool_name": "get_weather"},
        {"role": "assistant", "content": "Paris: 18C and sunny."},
        {"role": "user", "content": "And tomorrow?"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "The weather in a city", "parameters": WEATHER_SCHEMA},
        }
    ],
    "format": {"type": "object", "properties": {"line": {"type": "string"}}, "required": ["line"]},
    "options": {"temperature": 0.2, "num_predict": 300, "num_ctx": 8192},
    "keep_alive": "5m",
}

GEMINI: dict[str, Any] = {
    "systemInstruction": {"parts": [{"text": "You are a weather assistant."}, {"text": "Answer in one line."}]},
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "What city is this, and its weather?"},
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
                {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/paris.jpg"}},
                {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0x"}},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"text": "The picture shows Paris.", "thought": True, "thoughtSignature": "CiQBcsjafTq7"},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "CiQBsig2"},
                {"functionCall": {"id": "fc_lyon", "name": "get_weather", "args": {"city": "Lyon"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"result": "18C, sunny"}}},
                {
                    "functionResponse": {
                        "id": "fc_lyon",
                        "name": "get_weather",
                        "response": {"error": "station offline"},
                        "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
                    }
                },
            ],
        },
        {"role": "model", "parts": [{"text": "Paris: 18C and sunny; Lyon unknown."}]},
        {"role": "user", "parts": [{"text": "And tomorrow?"}]},
    ],
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "The weather in a city",
                    "parametersJsonSchema": WEATHER_SCHEMA,
                    "responseJsonSchema": {"type": "string"},
                }
            ]
        },
        {"googleSearch": {}},
    ],
    "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}],
    "generationConfig": {
        "temperature": 0.3,
        "maxOutputTokens": 400,
        "topP": 0.9,
        "responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object", "properties": {"line": {"type": "string"}}, "required": ["line"]},
        "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"},
    },
}

BEDROCK: dict[str, Any] = {
    "modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "messages": [
        {
            "role": "user",
            "content": [
                {"text": "What city is this, and its weather?"},
                {"image": {"format": "png", "source": {"bytes": PNG}}},
                {"image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://photos/paris.jpg"}}}},
                {"document": {"format": "pdf", "name": "notes", "source": {"bytes": "JVBERi0x"}}},
                {"cachePoint": {"type": "default"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "reasoningContent": {
                        "reasoningText": {"text": "The picture shows Paris.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA"}
                    }
                },
                {"reasoningContent": {"redactedContent": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"}},
                {"text": "Let me look it up."},
                {"toolUse": {"toolUseId": "tooluse_01A", "name": "get_weather", "input": {"city": "Paris"}}},
                {"toolUse": {"toolUseId": "tooluse_01B", "name": "get_weather", "input": {"city": "Lyon"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"toolResult": {"toolUseId": "tooluse_01A", "content": [{"text": "18C, sunny"}]}},
                {
                    "toolResult": {
                        "toolUseId": "tooluse_01B",
                        "content": [
                            {"text": "station offline"},
                            {"image": {"format": "png", "source": {"bytes": PNG}}},
                        ],
                        "status": "error",
                    }
                },
            ],
        },
        {"role": "assistant", "content": [{"text": "Paris: 18C and sunny; Lyon unknown."}]},
        {"role": "user", "content": [{"text": "And tomorrow?"}]},
    ],
    "system": [
        {"text": "You are a weather assistant."},
        {"text": "Long reference text..."},
        {"cachePoint": {"type": "default", "ttl": "1h"}},
    ],
    "inferenceConfig": {"maxTokens": 1024, "temperature": 0.3, "topP": 0.9},
    "toolConfig": {
        "tools": [
            {
                "toolSpec": {
                    "name": "get_weather",
                    "description": "The weather in a city",
                    "inputSchema": {"json": WEATHER_SCHEMA},
                }
            },
            {"cachePoint": {"type": "default", "ttl": "1h"}},
        ],
        "toolChoice": {"auto": {}},
    },
    "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2000}},
    "outputConfig": {
        "textFormat": {
            "type": "json_schema",
            "structure": {
                "jsonSchema": {
                    "schema": '{"type": "object", "properties": {"line": {"type": "string"}}}',
                    "name": "line",
                }
            },
        }
    },
}

BODIES = {
    "openai-chat": OPENAI_CHAT,
    "openai-responses": OPENAI_RESPONSES,
    "anthropic": ANTHROPIC,
    "ollama": OLLAMA,
    "gemini": GEMINI,
    "bedrock": BEDROCK,
}
"""Each reader's realistic body."""
ITEMS = {
    "openai-chat": "messages",
    "openai-responses": "input",
    "anthropic": "messages",
    "ollama": "messages",
    "gemini": "contents",
    "bedrock": "messages",
}
"""Where each body holds its turns."""
