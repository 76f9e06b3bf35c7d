# ruff: noqa: E501  (recorded text; the descriptions are long lines)
"""The descriptions and input schemas of the tools 2.1.332 defers that dsh added (issue 28).

Copied from the recording ``tests/fixtures/claude_deferred_tools.json``
(``benchmarks/record_claude_deferred_tools.py``): what 2.1.332 sends the model for each once
ToolSearch has loaded it, word for word (``tests/tools/builtin/test_deferred_tools.py`` checks
they stay equal). Validated by ``jsonschema`` (``dsh.tools._schema``), as no pydantic model
generates them.
"""

from typing import Any, Final

__all__ = ["DESCRIPTIONS", "SCHEMAS"]

DESCRIPTIONS: Final[dict[str, str]] = {
    "CronCreate": 'Schedule a prompt to be enqueued at a future time. Use for both recurring schedules and one-shot reminders.\n\nUses standard 5-field cron in the user\'s local timezone: minute hour day-of-month month day-of-week. "0 9 * * *" means 9am local — no timezone conversion needed.\n\n## One-shot tasks (recurring: false)\n\nFor "remind me at X" or "at <time>, do Y" requests — fire once then auto-delete.\nPin minute/hour/day-of-month/month to specific values:\n  "remind me at 2:30pm today to check the deploy" → cron: "30 14 <today_dom> <today_month> *", recurring: false\n  "tomorrow morning, run the smoke test" → cron: "57 8 <tomorrow_dom> <tomorrow_month> *", recurring: false\n\n## Recurring jobs (recurring: true, the default)\n\nFor "every N minutes" / "every hour" / "weekdays at 9am" requests:\n  "*/5 * * * *" (every 5 min), "0 * * * *" (hourly), "0 9 * * 1-5" (weekdays at 9am local)\n\n## Avoid the :00 and :30 minute marks when the task allows it\n\nEvery user who asks for "9am" gets `0 9`, and every user who asks for "hourly" gets `0 *` — which means requests from across the planet land on the API at the same instant. When the user\'s request is approximate, pick a minute that is NOT 0 or 30:\n  "every morning around 9" → "57 8 * * *" or "3 9 * * *" (not "0 9 * * *")\n  "hourly" → "7 * * * *" (not "0 * * * *")\n  "in an hour or so, remind me to..." → pick whatever minute you land on, don\'t round\n\nOnly use minute 0 or 30 when the user names that exact time and clearly means it ("at 9:00 sharp", "at half past", coordinating with a meeting). When in doubt, nudge a few minutes early or late — the user will not notice, and the fleet will.\n\n## Durability\n\nBy default (durable: false) the job lives only in this Claude session — nothing is written to disk, and the job is gone when Claude exits. Pass durable: true to write to .claude/scheduled_tasks.json so the job survives restarts. If Claude Code can\'t tell which organization this session is signed in to, the job stays session-only even with durable: true. If the result says "Session-only" after durable: true, tell the user that the job won\'t survive restarts. Only use durable: true when the user explicitly asks for the task to persist ("keep doing this every day", "set this up permanently"). Most "remind me in 5 minutes" / "check back in an hour" requests should stay session-only.\n\n## Not for live watching\n\nCronCreate re-runs a prompt at fixed wall-clock intervals. To watch a log file, process, or command output and be notified the moment something changes, use the Monitor tool instead — Monitor streams events as they happen; cron polls on a schedule.\n\n## Runtime behavior\n\nJobs only fire while the REPL is idle (not mid-query). Durable jobs that were saved to .claude/scheduled_tasks.json survive session restarts — on the next launch signed in to the same organization they resume automatically. One-shot durable tasks that were missed while the REPL was closed are surfaced for catch-up. Session-only jobs die with the process. The scheduler shifts each job by a fixed per-job offset on top of whatever you pick: by default a recurring job runs up to 50% of its period late (max 30 min), and a one-shot job landing on :00 or :30 runs up to 90 s early. The result of this tool and of CronList gives each job\'s actual next run time: when you tell the user when a job will run, give that time, not the minute in the cron expression. Picking an off-minute is still the bigger lever.\n\nRecurring tasks auto-expire after 30 days — they fire one final time, with a note that it is their last run, then are deleted. This bounds session lifetime. Tell the user about the 30-day limit when scheduling recurring jobs.\n\nReturns a job ID you can pass to CronDelete.',
    "CronDelete": "Cancel a cron job previously scheduled with CronCreate. Removes it from .claude/scheduled_tasks.json (durable jobs) or the in-memory session store (session-only jobs).",
    "CronList": "List all cron jobs scheduled via CronCreate, both durable (.claude/scheduled_tasks.json) and session-only.",
    "EnterWorktree": 'Use this tool ONLY when explicitly instructed to work in a worktree — either by the user directly, or by project instructions (CLAUDE.md / memory). This tool creates an isolated git worktree and switches the current session into it.\n\n## When to Use\n\n- The user explicitly says "worktree" (e.g., "start a worktree", "work in a worktree", "create a worktree", "use a worktree")\n- CLAUDE.md or memory instructions direct you to work in a worktree for the current task\n\n## When NOT to Use\n\n- The user asks to create a branch, switch branches, or work on a different branch — use git commands instead\n- The user asks to fix a bug or work on a feature — use normal git workflow unless worktrees are explicitly requested by the user or project instructions\n- Never use this tool unless "worktree" is explicitly mentioned by the user or in CLAUDE.md / memory instructions\n\n## Requirements\n\n- Must be in a git repository, OR have WorktreeCreate/WorktreeRemove hooks configured in settings.json\n- Must not already be in a worktree session when creating a new worktree (`name`); switching into another existing worktree via `path` is allowed\n\n## Behavior\n\n- In a git repository: creates a new git worktree inside `.claude/worktrees/` on a new branch. The base ref is governed by the `worktree.baseRef` setting: `fresh` (default) branches from origin/<default-branch>; `head` branches from your current local HEAD\n- Outside a git repository: delegates to WorktreeCreate/WorktreeRemove hooks for VCS-agnostic isolation\n- Switches the session\'s working directory to the new worktree\n- Use ExitWorktree to leave the worktree mid-session (keep or remove). On session exit, if still in the worktree, the user will be prompted to keep or remove it\n\n## Entering an existing worktree\n\nPass `path` instead of `name` to switch the session into a worktree that already exists (e.g., one you just created with `git worktree add`). On first entry from the launch directory, the path must appear in `git worktree list` for the repository that owns it — the current repository or, in a multi-repo workspace, a repository nested inside it; paths registered by neither are rejected. ExitWorktree will not remove a worktree entered this way; use `action: "keep"` to return to the original directory.\n\nSwitching with `path` also works when the session is already in a worktree (the previous worktree is left on disk, untouched, and only the new one is tracked for exit-time cleanup), and from agents whose working directory was pinned at launch (subagent isolation or explicit cwd). In both cases the target must be a worktree under `.claude/worktrees/` of the same repository, and from a pinned agent the switch only affects this agent, not the parent session. After a further switch, previously-visited worktrees are no longer writable — re-issue EnterWorktree with `path` to return to one.\n\n## Parameters\n\n- `name` (optional): A name for a new worktree. If neither `name` nor `path` is provided, a random name is generated.\n- `path` (optional): Path to an existing worktree to enter instead of creating one — of the current repository, or (on first entry from the launch directory) of a repository nested inside it. Mutually exclusive with `name`.\n',
    "ExitWorktree": 'Exit a worktree session created by EnterWorktree and return the session to the original working directory.\n\n## Scope\n\nThis tool ONLY operates on worktrees created by EnterWorktree in this session. It will NOT touch:\n- Worktrees you created manually with `git worktree add`\n- Worktrees from a previous session (even if created by EnterWorktree then)\n- The directory you\'re in if EnterWorktree was never called\n\nIf called outside an EnterWorktree session, the tool is a **no-op**: it reports that no worktree session is active and takes no action. Filesystem state is unchanged.\n\n## When to Use\n\n- The user explicitly asks to "exit the worktree", "leave the worktree", "go back", or otherwise end the worktree session\n- Do NOT call this proactively — only when the user asks\n\n## Parameters\n\n- `action` (required): `"keep"` or `"remove"`\n  - `"keep"` — leave the worktree directory and branch intact on disk. Use this if the user wants to come back to the work later, or if there are changes to preserve.\n  - `"remove"` — delete the worktree directory, and its branch too unless a hook made the worktree or git refuses the delete. Use this for a clean exit when the work is done or abandoned.\n- `discard_changes` (optional, default false): only meaningful with `action: "remove"`. If the worktree has uncommitted files or commits not on the original branch, the tool will REFUSE to remove it unless this is set to `true`. If the tool returns an error listing changes, confirm with the user before re-invoking with `discard_changes: true`. The tool also refuses while a task may be running in the worktree: wait for the task, or ask the user before stopping it, then call the tool again, or use `keep`.\n\n## Behavior\n\n- Restores the session\'s working directory to where it was before EnterWorktree\n- Clears CWD-dependent caches (system prompt sections, memory files, plans directory) so the session state reflects the original directory\n- If a tmux session was attached to the worktree: killed on `remove`, left running on `keep` (its name is returned so the user can reattach)\n- Once exited, EnterWorktree can be called again to create a fresh worktree\n',
    "Monitor": 'Start a background monitor that streams events from a long-running script. Each stdout line is an event — you keep working and notifications arrive in the chat. Events arrive on their own schedule and are not replies from the user, even if one lands while you\'re waiting for the user to answer a question.\n\nPick by how many notifications you need:\n- **One** ("tell me when the server is ready / the build finishes") → use **Bash with `run_in_background`** and a command that exits when the condition is true, e.g. `until grep -q "Ready in" dev.log; do sleep 0.5; done`. You get a single completion notification when it exits.\n- **One per occurrence, until the monitor expires (re-arm to continue)** ("tell me every time an ERROR line appears") → Monitor with an unbounded command (`tail -f`, `inotifywait -m`, `while true`).\n- **One per occurrence, until a known end** ("emit each CI step result, stop when the run completes") → Monitor with a command that emits lines and then exits.\n\nYour script\'s stdout is the event stream. Each line becomes a notification. Exit ends the watch.\n\n  # Each matching log line is an event\n  tail -f /var/log/app.log | grep --line-buffered "ERROR"\n\n  # Each file change is an event\n  inotifywait -m -q --format \'%e %f\' /watched/dir\n\n  # Poll GitHub for new PR comments and emit one line per new comment\n  last=$(date -u +%Y-%m-%dT%H:%M:%SZ)\n  while true; do\n    now=$(date -u +%Y-%m-%dT%H:%M:%SZ)\n    gh api "repos/owner/repo/issues/123/comments?since=$last" --jq \'.[] | "\\(.user.login): \\(.body)"\'\n    last=$now; sleep 30\n  done\n\n  # Node script that emits events as they arrive (e.g. WebSocket listener)\n  node watch-for-events.js\n\n  # Per-occurrence with a natural end: emit each CI check as it lands, exit when the run completes\n  prev=""\n  while true; do\n    s=$(gh pr checks 123 --json name,bucket)\n    cur=$(jq -r \'.[] | select(.bucket!="pending") | "\\(.name): \\(.bucket)"\' <<<"$s" | sort)\n    comm -13 <(echo "$prev") <(echo "$cur")\n    prev=$cur\n    jq -e \'all(.bucket!="pending")\' <<<"$s" >/dev/null && break\n    sleep 30\n  done\n\n**Don\'t use an unbounded command for a single notification.** `tail -f`, `inotifywait -m`, and `while true` never exit on their own, so the monitor stays armed until timeout even after the event has fired. For "tell me when X is ready," use Bash `run_in_background` with an `until` loop instead (one notification, ends in seconds). Note that `tail -f log | grep -m 1 ...` does *not* fix this: if the log goes quiet after the match, `tail` never receives SIGPIPE and the pipeline hangs anyway.\n\n**Script quality:**\n- Every pipe stage must flush per line or matches sit in its buffer unseen: `grep` needs `--line-buffered`, `awk` needs `fflush()`. `head` cannot flush at all — `| head -N` delivers nothing until N matches accumulate, then ends the stream.\n- In poll loops, handle transient failures (`curl ... || true`) — one failed request shouldn\'t kill the monitor.\n- Poll intervals: 30s+ for remote APIs (rate limits), 0.5-1s for local checks.\n- Write a specific `description` — it appears in every notification ("errors in deploy.log" not "watching logs").\n- Only stdout is the event stream. Stderr goes to the output file (readable via Read) but does not trigger notifications — for a command you run directly (e.g. `python train.py 2>&1 | grep --line-buffered ...`), merge stderr with `2>&1` so its failures reach your filter. (No effect on `tail -f` of an existing log — that file only contains what its writer redirected.)\n\n**Coverage — silence is not success.** When watching a job or process for an outcome, your filter must match every terminal state, not just the happy path. A monitor that greps only for the success marker stays silent through a crashloop, a hung process, or an unexpected exit — and silence looks identical to "still running." Before arming, ask: *if this process crashed right now, would my filter emit anything?* If not, widen it.\n\n  # Wrong — silent on crash, hang, or any non-success exit\n  tail -f run.log | grep --line-buffered "elapsed_steps="\n\n  # Right — one alternation covering progress + the failure signatures you\'d act on\n  tail -f run.log | grep -E --line-buffered "elapsed_steps=|Traceback|Error|FAILED|assert|Killed|OOM"\n\nFor poll loops checking job state, emit on every terminal status (`succeeded|failed|cancelled|timeout`), not just success. If you cannot confidently enumerate the failure signatures, broaden the grep alternation rather than narrow it — some extra noise is better than missing a crashloop.\n\n**Output volume**: Every stdout line is a conversation message, so the filter should be selective — but selective means "the lines you\'d act on," not "only good news." Never pipe raw logs; filter to exactly the success and failure signals you care about. Monitors that produce too many events are automatically stopped; restart with a tighter filter if this happens.\n\nStdout lines within 200ms are batched into a single notification, so multiline output from a single event groups naturally.\n\nThe script runs in the same shell environment as Bash. Exit ends the watch (exit code is reported). Every monitor expires after `timeout_ms` (default 5 minutes, at most 10 minutes): it is killed and you get one notice with the event count. Re-arm it if you still need the watch; for a long watch (PR monitoring, log tails) set `timeout_ms` to the maximum and re-arm on each expiry, and widen the filter if an expiry with no events was unexpected. Use TaskStop to cancel early.\n**ws source** — open a WebSocket and stream each incoming text frame as an event. No shell, no polling: the server pushes, you get notified.\n\n  Monitor({\n    ws: {url: \'wss://events.example.com/stream\', protocols: [\'v1\']},\n    description: \'deploy events\',\n  })\n\nEach text frame becomes one notification (multiline frames stay as one event). Binary frames are reported as `[binary frame, N bytes]` rather than passed through. Socket close ends the watch with the close code surfaced; errors are surfaced before close. Same rate limiting as bash — a firehose will be suppressed and eventually stopped, so subscribe to a filtered feed where one exists.\n\nPrefer this over `command: \'websocat wss://…\'` — it avoids the extra process and line-buffering pitfalls. Use bash when you need to transform or filter frames with shell tools before they become events.',
    "NotebookEdit": 'Replaces, inserts, or deletes a single cell in a Jupyter notebook (.ipynb file).\n\nUsage:\n- You must use the Read tool on the notebook in this conversation before editing — this tool will fail otherwise.\n- `notebook_path` must be an absolute path.\n- `cell_id` is the `id` attribute shown in the Read tool\'s `<cell id="...">` output. It is required for `replace` and `delete`.\n- `edit_mode` defaults to `replace`. Use `insert` to add a new cell after the cell with the given `cell_id` (or at the beginning of the notebook if `cell_id` is omitted) — `cell_type` is required when inserting. Use `delete` to remove the cell.',
    "TaskStop": "\n- Stops a running background task by its ID\n- Takes a task_id parameter identifying the task to stop\n- To stop an agent-team teammate, pass its agent ID or bare teammate name as task_id\n- To stop a background agent spawned with a name, pass that name as task_id\n- Returns a success or failure status\n- Use this tool when you need to terminate a long-running task\n",
    "WebFetch": "Fetches a URL, converts the page to markdown, and answers `prompt` against it using a small fast model.\n\n- Fails on authenticated/private URLs — use an authenticated MCP tool or `gh` for those instead.\n- Fails on localhost and other hostnames without a dot; for a local server, use curl via Bash.\n- HTTP is upgraded to HTTPS. Cross-host redirects are returned to you rather than followed; call again with the redirect URL.\n- Responses are cached for 15 minutes per URL.",
    "WebSearch": 'Search the web. Returns result blocks with titles and URLs. US-only.\n\n- The current month is (provided in the conversation below) — use this when searching for recent information.\n- `allowed_domains` / `blocked_domains` filter results.\n- After answering from results, end with a "Sources:" list of the URLs you used as markdown links.',
}

SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "CronCreate": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "cron": {
                "description": "Standard 5-field cron expression in local "
                'time: "M H DoM Mon DoW" (e.g. "*/5 * * * '
                '*" = every 5 minutes, "30 14 28 2 *" = Feb '
                "28 at 2:30pm local once).",
                "type": "string",
            },
            "prompt": {"description": "The prompt to enqueue at each fire time.", "type": "string"},
            "recurring": {
                "description": "true (default) = fire on every cron "
                "match until deleted or auto-expired "
                "after 30 days. false = fire once at "
                "the next match, then auto-delete. Use "
                'false for "remind me at X" one-shot '
                "requests with pinned "
                "minute/hour/dom/month.",
                "type": "boolean",
            },
            "durable": {
                "description": "true = persist to "
                ".claude/scheduled_tasks.json and "
                "survive restarts (the result says "
                "Session-only if the job could not be "
                "saved). false (default) = in-memory "
                "only, dies when this Claude session "
                "ends. Use true only when the user asks "
                "the task to survive across sessions.",
                "type": "boolean",
            },
        },
        "required": ["cron", "prompt"],
        "additionalProperties": False,
    },
    "CronDelete": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"id": {"description": "Job ID returned by CronCreate.", "type": "string"}},
        "required": ["id"],
        "additionalProperties": False,
    },
    "CronList": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    },
    "EnterWorktree": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "name": {
                "description": "Optional name for a new worktree. Each "
                '"/"-separated segment may contain only '
                "letters, digits, dots, underscores, and "
                "dashes; max 64 chars total. A random "
                "name is generated if not provided. "
                "Mutually exclusive with `path`.",
                "type": "string",
            },
            "path": {
                "description": "Path to an existing worktree to switch "
                "into instead of creating a new one. "
                "Must appear in `git worktree list` for "
                "the current repo — or, on first entry "
                "from the launch directory, for a repo "
                "nested inside it (multi-repo "
                "workspace). Mutually exclusive with "
                "`name`.",
                "type": "string",
            },
        },
        "additionalProperties": False,
    },
    "ExitWorktree": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "action": {
                "description": '"keep" leaves the worktree and branch '
                'on disk; "remove" deletes the worktree '
                "and, unless a hook made it or git "
                "refuses, its branch.",
                "type": "string",
                "enum": ["keep", "remove"],
            },
            "discard_changes": {
                "description": "Required true when action is "
                '"remove" and the worktree has '
                "uncommitted files or unmerged "
                "commits. The tool will refuse "
                "and list them otherwise. It "
                "also removes the worktree "
                "under any task still running "
                "there, so set it only after "
                "the user has confirmed.",
                "type": "boolean",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
    "Monitor": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "description": {
                "description": "Short human-readable description of "
                "what you are monitoring (shown in "
                "notifications).",
                "type": "string",
            },
            "timeout_ms": {
                "description": "Kill the monitor after this deadline. "
                "Default 300000ms. Deadlines above "
                "600000ms are capped to 600000ms. You "
                "are notified at expiry and can re-arm.",
                "default": 300000,
                "type": "number",
                "minimum": 1000,
                "maximum": 3600000,
            },
            "command": {
                "description": "Shell command or script. Each stdout line "
                "is an event; exit ends the watch.",
                "type": "string",
            },
            "ws": {
                "description": "WebSocket to open. Each text frame is an event; "
                "binary frames are reported as a placeholder "
                "line. Socket close ends the watch. Cannot be "
                "combined with command.",
                "type": "object",
                "properties": {
                    "url": {"type": "string"},
                    "protocols": {
                        "type": "array",
                        "items": {"type": "string", "pattern": "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"},
                    },
                },
                "required": ["url"],
                "additionalProperties": False,
            },
        },
        "required": ["description", "timeout_ms"],
        "additionalProperties": False,
    },
    "NotebookEdit": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "notebook_path": {
                "description": "The absolute path to the "
                "Jupyter notebook file to edit "
                "(must be absolute, not "
                "relative)",
                "type": "string",
            },
            "cell_id": {
                "description": "The ID of the cell to edit. When "
                "inserting a new cell, the new cell "
                "will be inserted after the cell with "
                "this ID, or at the beginning if not "
                "specified.",
                "type": "string",
            },
            "new_source": {"description": "The new source for the cell", "type": "string"},
            "cell_type": {
                "description": "The type of the cell (code or "
                "markdown). If not specified, it "
                "defaults to the current cell type. "
                "If using edit_mode=insert, this is "
                "required.",
                "type": "string",
                "enum": ["code", "markdown"],
            },
            "edit_mode": {
                "description": "The type of edit to make (replace, "
                "insert, delete). Defaults to "
                "replace.",
                "type": "string",
                "enum": ["replace", "insert", "delete"],
            },
        },
        "required": ["notebook_path", "new_source"],
        "additionalProperties": False,
    },
    "TaskStop": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "task_id": {
                "description": "The ID of the background task to stop. "
                "Agent-team teammates and named background "
                "agents are also accepted by agent ID or "
                "name.",
                "type": "string",
            },
            "shell_id": {"description": "Deprecated: use task_id instead", "type": "string"},
        },
        "additionalProperties": False,
    },
    "WebFetch": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "url": {
                "description": "The URL to fetch content from",
                "type": "string",
                "format": "uri",
            },
            "prompt": {"description": "The prompt to run on the fetched content", "type": "string"},
            "offset": {
                "description": "Character position in the page text to "
                "start reading from. Use it to read on "
                "through a page too long for one call, with "
                "the value the previous result gave.",
                "type": "integer",
                "minimum": 0,
                "maximum": 9007199254740991,
            },
        },
        "required": ["url", "prompt"],
        "additionalProperties": False,
    },
    "WebSearch": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "query": {"description": "The search query to use", "type": "string", "minLength": 2},
            "allowed_domains": {
                "description": "Only include search results from these domains",
                "type": "array",
                "items": {"type": "string"},
            },
            "blocked_domains": {
                "description": "Never include search results from these domains",
                "type": "array",
                "items": {"type": "string"},
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}
