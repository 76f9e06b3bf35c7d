"""Custom commands and skills on dsh's seams: UserPromptExpansion, PreSkillShellCommand, Skill.

A prompt ``/name args`` naming a custom command (``_commands``) expands on
``agent/prompt-submit``, after UserPromptSubmit has fired (2.1.332's order): UserPromptExpansion
fires (a block or exit 2 drops the prompt with Claude Code's wording), then each shell command
of the text fires PreSkillShellCommand (a deny or exit 2 leaves ``[not run: blocked by hook:
R]`` in its place) and runs in the session's Bash, its output replacing it. The model gets the
command's name and arguments, then the expanded text. The ``Skill`` tool loads a skill (or a
command) the same way for the model: its result says it launched, and the expanded text follows
as a user message. The first prompt of a session carries the skill list as context.

An MCP prompt used as a slash command (``/mcp__<server>__<prompt> args``, expanded by
``dsh.mcp``'s listener once this chain allowed it) fires UserPromptExpansion too, as 2.1.332
does: ``expansion_type: "mcp_prompt"``, ``command_source: "mcp"``, matched on its name; a
block drops the prompt, ``additionalContext`` goes with it.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from dsh.agent import PROMPT_SUBMIT, Agent, PromptAllow, PromptDecision, PromptSource, calling_agent
from dsh.base import FrozenDict
from dsh.context import Context, Next
from dsh.hooks.claude.runtime._answers import blocked_prompt_message, prompt_context_lines
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.hooks.claude.settings._commands import (
    MAX_SHELL_COMMANDS,
    CustomCommand,
    expand_arguments,
    parse_invocation,
    shell_spans,
)
from dsh.messages import Content, TextBlock, content_text
from dsh.session import ContextMessageEvent
from dsh.tools import TOOLS, ToolDefinition, ToolInvocation, ToolResult

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import (
        PreSkillShellCommandHookInput,
        UserPromptExpansionHookInput,
    )


__all__ = ["SKILL_TOOL_NAME", "CommandEvents"]

SKILL_TOOL_NAME = "Skill"
LISTING_SOURCE = f"{SOURCE}:skills"
# What a skill's shell command may print into the prompt (the Bash tool caps it too).
_MAX_SHELL_OUTPUT = 30_000

_SKILL_DESCRIPTION = (
    "Execute a skill within the main conversation. Skills are listed in the conversation; give"
    " the skill's name (and, optionally, its arguments). The skill's instructions follow the"
    " result."
)


class CommandEvents(Handlers):
    """The command and skill listeners (``ClaudeHooksPlugin.apply`` mounts them)."""

    def _mount_commands(self, ctx: Context) -> None:
        """The expansion listener, and the Skill tool when there is something to load."""
        ctx.on(PROMPT_SUBMIT, self._expand_prompt)
        registry = ctx.get(TOOLS)
        if self.commands.invocable and registry is not None and not registry.get(SKILL_TOOL_NAME):
            from dsh.hooks.claude.runtime._skill_input import (
                SkillInput,  # pydantic, with skills only
            )

            tool = ToolDefinition.from_model(
                SKILL_TOOL_NAME, _SKILL_DESCRIPTION, SkillInput, self._run_skill_tool
            )
            ctx.add_disposer(registry.register(tool))

    # -- the prompt ------------------------------------------------------------------

    async def _expand_prompt(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        if source != "user" or agent.parent is not None:
            return await nxt()
        listing = self._listing(agent)
        prompt = content_text(content)
        invocation = parse_invocation(prompt) if isinstance(content, str) else None
        command = self.commands.get(invocation[0]) if invocation is not None else None
        if command is None or invocation is None:
            if invocation is not None and _names_mcp_prompt(agent, prompt):
                fired = await self._expansion(agent, "mcp_prompt", *invocation, "mcp", prompt)
                if isinstance(fired, PromptDecision):
                    return fired
                listing = "\n".join(t for t in (listing, *fired) if t) or None
            return _with_context(await nxt(), listing, LISTING_SOURCE)
        args = invocation[1]
        fired = await self._expansion(
            agent, "slash_command", command.name, args, command.source, prompt
        )
        if isinstance(fired, PromptDecision):
            return fired
        contexts = fired
        text = await self._expand(agent, command, args, invoked_by="user")
        if command.hooks:
            self.runtime.load_skill_hooks(agent, command.hooks)
        head = (
            f"<command-message>{command.name}</command-message>\n"
            f"<command-name>/{command.name}</command-name>\n"
            f"<command-args>{args}</command-args>"
        )
        decision = await nxt()
        if not isinstance(decision, PromptAllow):
            return decision
        extra = "\n".join(t for t in (listing, *contexts) if t) or None
        expanded: Content = (TextBlock(head), TextBlock(text))
        merged_context = "\n".join(t for t in (decision.additional_context, extra) if t) or None
        return PromptDecision.allow(
            expanded if decision.content is None else decision.content,
            merged_context,
            source=decision.source or f"{SOURCE}:UserPromptExpansion",
        )

    async def _expansion(
        self, agent: Agent, kind: str, name: str, args: str, source: str, prompt: str
    ) -> PromptDecision | list[str]:
        """UserPromptExpansion for ``/name args``: the block (a ``PromptDecision``), else the
        hooks' contexts (none when no hook matches)."""
        hooks = self._matching(agent, "UserPromptExpansion", name)
        if not hooks:
            return []
        payload: UserPromptExpansionHookInput = self._base(
            agent, "UserPromptExpansion", effort=False, agent_fields=False
        )
        payload["expansion_type"] = kind
        payload["command_name"] = name
        payload["command_args"] = args
        payload["command_source"] = source
        payload["prompt"] = prompt
        merged = await self._fire(agent, "UserPromptExpansion", hooks, payload)
        self._common_effects(agent, "UserPromptExpansion", merged)
        message = blocked_prompt_message("UserPromptExpansion", merged, prompt)
        if message is not None:
            return PromptDecision.block(message)
        return prompt_context_lines("UserPromptExpansion", merged)

    def _listing(self, agent: Agent) -> str | None:
        """The skill list, for the session's first prompt only (a resumed one has it)."""
        listing = self.commands.listing()
        if listing is None:
            return None
        for event in agent.events:
            if isinstance(event, ContextMessageEvent) and listing in event.text:
                return None
        return listing

    # -- the Skill tool ----------------------------------------------------------------

    async def _run_skill_tool(self, inv: ToolInvocation) -> ToolResult:
        agent = calling_agent(inv.agent)
        name = str(inv.arguments.get("skill", "")).strip()
        skill = self.commands.skill(name)
        if skill is None:
            return ToolResult.error(f"Unknown skill: {name}")
        if agent is None:
            return ToolResult.error(f"Skill {name} needs an agent to load into")
        args = inv.arguments.get("args")
        text = await self._expand(
            agent,
            skill,
            args if isinstance(args, str) else "",
            invoked_by="claude",
            call_id=str(inv.token) if inv.token is not None else None,
        )
        if skill.hooks:
            self.runtime.load_skill_hooks(agent, skill.hooks)
        lead = f"Base directory for this skill: {skill.base_dir}\n\n"
        agent.steer(lead + text if skill.kind == "skill" else text)
        return ToolResult.ok(
            f"Launching skill: {skill.name}",
            output={"success": True, "commandName": skill.name},
        )

    # -- expansion and shell commands ----------------------------------------------------

    async def _expand(
        self,
        agent: Agent,
        command: CustomCommand,
        args: str,
        *,
        invoked_by: str,
        call_id: str | None = None,
    ) -> str:
        """The command's text with its arguments and its shell commands' outputs in."""
        text = expand_arguments(command.body, args)
        spans = shell_spans(text)
        if not spans:
            return text
        base = call_id or f"{uuid.uuid4()}:inner"
        outputs: list[str] = []
        for n, span in enumerate(spans):
            if n >= MAX_SHELL_COMMANDS:
                outputs.append(f"[not run: more than {MAX_SHELL_COMMANDS} shell commands]")
                continue
            blocked = await self._pre_skill_shell(
                agent, command, span.command, f"{base}:preamble-{n}", invoked_by
            )
            if blocked is not None:
                outputs.append(f"[not run: blocked by hook: {blocked}]")
            else:
                outputs.append(await _run_shell(agent, span.command))
        pieces: list[str] = []
        at = 0
        for span, output in zip(spans, outputs, strict=True):
            pieces.extend((text[at : span.start], output))
            at = span.end
        pieces.append(text[at:])
        return "".join(pieces)

    async def _pre_skill_shell(
        self, agent: Agent, command: CustomCommand, shell: str, use_id: str, invoked_by: str
    ) -> str | None:
        """PreSkillShellCommand for one shell command: why it must not run, or ``None``."""
        hooks = self._matching(agent, "PreSkillShellCommand", command.name)
        if not hooks:
            return None
        payload: PreSkillShellCommandHookInput = self._base(
            agent, "PreSkillShellCommand", agent_fields=False
        )
        payload["tool_name"] = "Bash"
        payload["tool_input"] = {"command": shell}
        payload["tool_use_id"] = use_id
        payload["command_name"] = command.name
        payload["command_source"] = command.source
        payload["invoked_by"] = invoked_by
        merged = await self._fire(agent, "PreSkillShellCommand", hooks, payload)
        self._common_effects(agent, "PreSkillShellCommand", merged)
        reasons: list[str] = []
        for _, answer in merged:
            if answer.blocking_error is not None:
                reasons.append(answer.blocking_error.strip() or "No stderr output")
            elif answer.permission_decision == "deny":
                reasons.append(answer.permission_reason or "denied")
        # `updatedInput` is never applied, as in 2.1.332 (the reference's note).
        return "; ".join(reasons) if reasons else None


def _names_mcp_prompt(agent: Agent, prompt: str) -> bool:
    """Whether ``prompt`` names a connected MCP server's prompt (``dsh.mcp``, imported only
    for a prompt that could)."""
    if not prompt.startswith("/mcp__"):
        return False
    from dsh.mcp._prompts import find_prompt
    from dsh.mcp._session import MCP

    servers = agent.ctx.get(MCP)
    return servers is not None and find_prompt(servers.connections, prompt) is not None


def _with_context(decision: PromptDecision, text: str | None, source: str) -> PromptDecision:
    if text is None or not isinstance(decision, PromptAllow):
        return decision
    extra = "\n".join(t for t in (decision.additional_context, text) if t)
    return PromptDecision.allow(decision.content, extra, source=decision.source or source)


async def _run_shell(agent: Agent, command: str) -> str:
    """``command``'s output, run by the session's Bash tool body in its workspace (not
    through the tool pipeline: PreSkillShellCommand is its gate, as in Claude Code)."""
    bash = agent.registry.get("Bash")
    if bash is None:
        return "[not run: no Bash tool in this session]"
    arguments: dict[str, Any] = {"command": command, "description": "skill shell command"}
    result = await bash.run(
        ToolInvocation(
            name="Bash",
            arguments=FrozenDict(arguments),
            workspace=agent.workspace,
            signal=agent.signal,
        )
    )
    output = content_text(result.content) if isinstance(result.content, str | tuple) else ""
    return _bounded(output.strip())


def _bounded(text: str) -> str:
    if len(text) <= _MAX_SHELL_OUTPUT:
        return text
    return text[:_MAX_SHELL_OUTPUT] + "\n[output truncated]"
