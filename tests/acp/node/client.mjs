// An independent ACP client (the TypeScript SDK, @agentclientprotocol/sdk 2.x) driving `dsh acp`.
// usage: node client.mjs PROJECT_DIR AGENT_CMD [ARGS...]
// The model script gives: "allow" -> a Bash call the project's hook asks about, then text;
// "reject" -> the same, rejected; "sleep" -> a long Bash call, cancelled mid-tool;
// "delegate" -> an Agent call (in the background), then "launched", then "notified".
// Prints one line per check and exits non-zero if any failed.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [project, cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const updates = [];
let answerKind = "allow_once";
let asked = 0;
let trustAsked = 0;
let onUpdate = () => {};

const app = acp
  .client({ name: "dsh-node-test-client" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    if (params.toolCall.toolCallId.startsWith("dsh-trust-")) {
      // The trust question about the project's own hooks, before its session opens:
      // declined, they are left out (the asks below come from the permission policy).
      trustAsked++;
      const leave = params.options.find((o) => o.kind === "reject_once");
      return { outcome: { outcome: "selected", optionId: leave.optionId } };
    }
    asked++;
    const option = params.options.find((o) => o.kind === answerKind);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
    onUpdate(params.update);
  });

let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? "OK  " : "FAIL"} ${what}`);
  if (!ok) failed++;
};
const statuses = () =>
  updates.filter((u) => u.sessionUpdate.startsWith("tool_call")).map((u) => u.status);
const said = () =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && !u._meta)
    .map((u) => u.content.text)
    .join("");

try {
  await app.connectWith(stream, async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
        session: { notices: {} },
      },
      clientInfo: { name: "dsh-node-test-client", version: "0.0.0" },
    });
    check(init.protocolVersion === 1 && init.agentInfo?.name === "dsh", "initialize");
    check(init.agentCapabilities?.loadSession === true, "loadSession advertised");
    const newSession = () =>
      agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    const prompt = (sessionId, text) =>
      agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });

    let session = await newSession();
    check(trustAsked === 1, `trust question asked before the session opened (${trustAsked})`);
    // Claude Code's permission modes as session modes; the model as a configuration option.
    check(session.modes?.currentModeId === "default", `modes: ${session.modes?.currentModeId}`);
    const model = session.configOptions?.find((o) => o.category === "model");
    check(model !== undefined && model.currentValue.length > 0, "model option offered");
    await agent.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "acceptEdits",
    });
    check(
      updates.some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "acceptEdits"),
      "set_mode: current_mode_update",
    );
    await agent.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "default",
    });
    const commands = updates.find((u) => u.sessionUpdate === "available_commands_update");
    const names = (commands?.availableCommands ?? []).map((c) => c.name);
    check(["compact", "model", "status"].every((n) => names.includes(n)), `commands: ${names}`);
    let r = await prompt(session.sessionId, "/status");
    check(r.stopReason === "end_turn", `/status: stopReason ${r.stopReason}`);
    // Notices (the hooks left out, untrusted) are ACP notices, not the agent's words.
    const notices = updates.filter((u) => u.sessionUpdate === "notice");
    check(
      notices.some((n) => n.severity === "warning" && /not trusted|untrusted/.test(n.title)),
      `notice update for the untrusted hooks (${notices.map((n) => n.title)})`,
    );
    check(
      !updates.some(
        (u) => u.sessionUpdate === "agent_message_chunk" && u._meta?.dsh?.notice?.level === "warning",
      ),
      "no notice as an agent message",
    );
    updates.length = 0;
    r = await prompt(session.sessionId, "allow");
    check(r.stopReason === "end_turn", `allowed: stopReason ${r.stopReason}`);
    check(asked === 1, `allowed: one permission request (${asked})`);
    check(
      JSON.stringify(statuses()) === JSON.stringify(["pending", "in_progress", "completed"]),
      `allowed: statuses ${statuses()}`,
    );
    check(existsSync(join(project, "allowed.txt")), "allowed: the tool ran");
    check(said() === "done", `allowed: text ${JSON.stringify(said())}`);

    updates.length = 0;
    answerKind = "reject_once";
    session = await newSession();
    r = await prompt(session.sessionId, "reject");
    check(r.stopReason === "end_turn", `rejected: stopReason ${r.stopReason}`);
    check(
      JSON.stringify(statuses()) === JSON.stringify(["pending", "failed"]),
      `rejected: statuses ${statuses()}`,
    );
    check(!existsSync(join(project, "rejected.txt")), "rejected: the tool did not run");

    updates.length = 0;
    answerKind = "allow_once";
    session = await newSession();
    const running = new Promise((resolve) => {
      onUpdate = (u) => u.status === "in_progress" && resolve();
    });
    const pending = prompt(session.sessionId, "sleep");
    await running;
    await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    r = await pending;
    check(r.stopReason === "cancelled", `cancel: stopReason ${r.stopReason}`);
    check(statuses().at(-1) === "failed", `cancel: last status ${statuses().at(-1)}`);

    // A background subagent (an Agent call's default): its notification turn arrives as
    // session/update notifications after the prompt was answered.
    updates.length = 0;
    session = await newSession();
    const notified = new Promise((resolve) => {
      onUpdate = () => said().includes("notified") && resolve(true);
    });
    r = await prompt(session.sessionId, "delegate");
    check(r.stopReason === "end_turn", `background: stopReason ${r.stopReason}`);
    check(said() === "launched", `background: answered ${JSON.stringify(said())}`);
    const late = await Promise.race([
      notified,
      new Promise((resolve) => setTimeout(() => resolve(false), 60000)),
    ]);
    check(late === true, "background: the notification turn's reply arrived");
    const shown = updates.filter(
      (u) => u.sessionUpdate === "user_message_chunk" && u.content.text.startsWith("<task-notification>"),
    );
    check(shown.length === 1, `background: the notification prompt shown (${shown.length})`);
  });
} catch (e) {
  console.error("client error:", e);
  failed++;
} finally {
  child.stdin.end();
}
const code =
  child.exitCode ?? (await new Promise((resolve) => child.on("exit", (c) => resolve(c))));
check(code === 0, `dsh acp exited ${code} after stdin closed`);
console.log(failed ? `${failed} failed` : "node client: all checks passed");
process.exit(failed ? 1 : 0);
