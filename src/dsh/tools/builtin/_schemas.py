# ruff: noqa: E501  (generated; the descriptions are one line each)
"""The built-in tools' input JSON schemas, as their pydantic input models generate them.

Generated (``tests/tools/builtin/test_schemas.py`` checks it stays equal to
``model_json_schema()`` of each input model and prints the new text when not):
building them at import cost ~10 ms of every ``dsh`` start-up, and the input
models themselves defer their validators to the first call (``defer_build``).
"""

from typing import Any, Final

__all__ = ["INPUT_SCHEMAS"]

INPUT_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "Bash": {
        "additionalProperties": False,
        "properties": {
            "command": {"description": "The command to execute", "type": "string"},
            "timeout": {
                "description": "Optional timeout in milliseconds (max 600000)",
                "exclusiveMinimum": 0,
                "maximum": 600000,
                "type": "integer",
            },
            "description": {
                "description": "Clear, concise description of what this command does in 5-10 words",
                "type": "string",
            },
            "run_in_background": {
                "description": "Set to true to run this command in the background; read its output from the file named in the result",
                "type": "boolean",
            },
            "dangerouslyDisableSandbox": {
                "description": "Set this to true to dangerously override sandbox mode and run commands without sandboxing.",
                "type": "boolean",
            },
        },
        "required": ["command"],
        "type": "object",
    },
    "Read": {
        "additionalProperties": False,
        "properties": {
            "file_path": {"description": "The absolute path to the file to read", "type": "string"},
            "offset": {
                "description": "The line number to start reading from. Only provide if the file is too large to read at once",
                "minimum": 0,
                "type": "integer",
            },
            "limit": {
                "description": "The number of lines to read. Only provide if the file is too large to read at once.",
                "exclusiveMinimum": 0,
                "type": "integer",
            },
        },
        "required": ["file_path"],
        "type": "object",
    },
    "Write": {
        "additionalProperties": False,
        "properties": {
            "file_path": {
                "description": "The absolute path to the file to write",
                "type": "string",
            },
            "content": {"description": "The content to write to the file", "type": "string"},
        },
        "required": ["file_path", "content"],
        "type": "object",
    },
    "Edit": {
        "additionalProperties": False,
        "properties": {
            "file_path": {
                "description": "The absolute path to the file to modify",
                "type": "string",
            },
            "old_string": {"description": "The text to replace", "type": "string"},
            "new_string": {
                "description": "The text to replace it with (must differ from old_string)",
                "type": "string",
            },
            "replace_all": {
                "description": "Replace all occurrences of old_string (default false)",
                "type": "boolean",
            },
        },
        "required": ["file_path", "old_string", "new_string"],
        "type": "object",
    },
    "MultiEdit": {
        "$defs": {
            "EditOperation": {
                "additionalProperties": False,
                "properties": {
                    "old_string": {"description": "The text to replace", "type": "string"},
                    "new_string": {"description": "The text to replace it with", "type": "string"},
                    "replace_all": {
                        "description": "Replace all occurrences of old_string (default false)",
                        "type": "boolean",
                    },
                },
                "required": ["old_string", "new_string"],
                "type": "object",
            }
        },
        "additionalProperties": False,
        "properties": {
            "file_path": {
                "description": "The absolute path to the file to modify",
                "type": "string",
            },
            "edits": {
                "description": "Edits applied in order; either all apply or none",
                "items": {"$ref": "#/$defs/EditOperation"},
                "minItems": 1,
                "type": "array",
            },
        },
        "required": ["file_path", "edits"],
        "type": "object",
    },
    "Glob": {
        "additionalProperties": False,
        "properties": {
            "pattern": {
                "description": 'The glob pattern to match files against, e.g. "**/*.py"',
                "type": "string",
            },
            "path": {
                "description": "The directory to search in; the current working directory if omitted",
                "type": "string",
            },
        },
        "required": ["pattern"],
        "type": "object",
    },
    "Grep": {
        "additionalProperties": False,
        "properties": {
            "pattern": {
                "description": "The regular expression to search for in file contents",
                "type": "string",
            },
            "path": {
                "description": "File or directory to search in; the current working directory if omitted",
                "type": "string",
            },
            "glob": {
                "description": 'Glob to filter files (e.g. "*.js", "*.{ts,tsx}")',
                "type": "string",
            },
            "output_mode": {
                "description": '"content" shows matching lines, "files_with_matches" (default) file paths, "count" match counts',
                "enum": ["content", "files_with_matches", "count"],
                "type": "string",
            },
            "-B": {
                "description": "Lines before each match (content mode)",
                "minimum": 0,
                "type": "integer",
            },
            "-A": {
                "description": "Lines after each match (content mode)",
                "minimum": 0,
                "type": "integer",
            },
            "-C": {
                "description": "Lines around each match (content mode)",
                "minimum": 0,
                "type": "integer",
            },
            "-n": {
                "description": "Show line numbers (content mode; default true)",
                "type": "boolean",
            },
            "-i": {"description": "Case insensitive search", "type": "boolean"},
            "type": {
                "description": 'File type to search (rg --type), e.g. "py", "js", "rust"',
                "type": "string",
            },
            "head_limit": {
                "description": "Only the first N output lines or entries",
                "minimum": 0,
                "type": "integer",
            },
            "offset": {
                "description": "Skip the first N output lines or entries",
                "minimum": 0,
                "type": "integer",
            },
            "multiline": {
                "description": "Patterns may span lines and . matches newlines",
                "type": "boolean",
            },
        },
        "required": ["pattern"],
        "type": "object",
    },
    "TaskCreate": {
        "additionalProperties": False,
        "properties": {
            "subject": {"description": "A brief title for the task", "type": "string"},
            "description": {"description": "What needs to be done", "type": "string"},
            "activeForm": {
                "description": 'Present continuous form shown in spinner when in_progress (e.g., "Running tests")',
                "type": "string",
            },
            "metadata": {
                "additionalProperties": True,
                "description": "Arbitrary metadata to attach to the task",
                "type": "object",
            },
        },
        "required": ["subject", "description"],
        "type": "object",
    },
    "TaskGet": {
        "additionalProperties": False,
        "properties": {
            "taskId": {"description": "The ID of the task to retrieve", "type": "string"}
        },
        "required": ["taskId"],
        "type": "object",
    },
    "TaskList": {"additionalProperties": False, "properties": {}, "type": "object"},
    "TaskUpdate": {
        "additionalProperties": False,
        "properties": {
            "taskId": {"description": "The ID of the task to update", "type": "string"},
            "subject": {"description": "New subject for the task", "type": "string"},
            "description": {"description": "New description for the task", "type": "string"},
            "activeForm": {
                "description": 'Present continuous form shown in spinner when in_progress (e.g., "Running tests")',
                "type": "string",
            },
            "status": {
                "description": "New status for the task",
                "enum": ["pending", "in_progress", "completed", "deleted"],
                "type": "string",
            },
            "addBlocks": {
                "description": "Task IDs that this task blocks",
                "items": {"type": "string"},
                "type": "array",
            },
            "addBlockedBy": {
                "description": "Task IDs that block this task",
                "items": {"type": "string"},
                "type": "array",
            },
            "owner": {"description": "New owner for the task", "type": "string"},
            "metadata": {
                "additionalProperties": True,
                "description": "Metadata keys to merge into the task. Set a key to null to delete it.",
                "type": "object",
            },
        },
        "required": ["taskId"],
        "type": "object",
    },
    "ToolSearch": {
        "additionalProperties": False,
        "properties": {
            "query": {
                "description": 'Query to find deferred tools. Use "select:<tool_name>" for direct selection, or keywords to search.',
                "type": "string",
            },
            "max_results": {
                "default": 5,
                "description": "Maximum number of results to return (default: 5)",
                "type": "integer",
            },
        },
        "required": ["query"],
        "type": "object",
    },
}
