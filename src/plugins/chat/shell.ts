/**
 * pi's `!cmd`: the person's own command in the session's directory, its output live for everyone, then an
 * entry; with `includeInContext` (not `!!`) the model reads it before the next message.
 */
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { type PatchOp, textPatch } from "../../protocol/patch.ts";
import { type Principal, runCommand } from "../../server/plugin.ts";
import { authorOf, type ConversationCore } from "./conversation-core.ts";
import type { StoredData } from "./view.ts";

export async function runShell(
	core: ConversationCore,
	command: string,
	includeInContext: boolean,
	principal: Principal,
): Promise<{ exitCode: number | null; cancelled: boolean }> {
	if (core.activity.kind !== "idle") {
		throw new ProtocolError("conflict", "Wait for the agent to finish (or Escape), then run the command.");
	}
	const { ctx, session } = core;
	const record = ctx.catalog.get(session);
	if (!record) throw new ProtocolError("not_found", "the session is gone");
	const id = crypto.randomUUID();
	const author = authorOf(principal);
	const abort = new AbortController();
	const done: PatchOp = { op: "set", path: ["shell"], value: null };
	core.begin({ kind: "shell", abort, by: principal.id }, [
		{ op: "set", path: ["shell"], value: { id, command, author, includeInContext, output: "", startedAt: Date.now() } },
	]);
	try {
		const run = await runCommand({
			env: ctx.environments.get(record.env),
			command,
			cwd: record.cwd,
			spillDir: join(ctx.dataDir, "spill", session),
			spillName: `shell-${id}.log`,
			signal: abort.signal,
			onOutput: (tail) => core.update([textPatch(["shell", "output"], core.live.state.shell?.output ?? "", tail)]),
		});
		const cancelled = run.ended !== "exit";
		const entry = core.store.append(core.id, {
			kind: "shell",
			data: {
				kind: "shell",
				id,
				command,
				output: run.output,
				exitCode: run.exitCode,
				cancelled,
				truncated: run.truncated,
				includeInContext,
			} satisfies StoredData,
			author,
		});
		// The agent's history is rebuilt from the entries at the next message, this command included.
		if (includeInContext) core.agent = null;
		core.show(entry, [done]);
		return { exitCode: run.exitCode, cancelled };
	} catch (error) {
		core.update([done]);
		throw new ProtocolError("unavailable", errorText(error).slice(0, 300));
	} finally {
		core.end([]);
	}
}
