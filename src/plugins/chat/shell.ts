/**
 * pi's `!cmd`: the person's own command in the session's directory, its output live for everyone, then an
 * entry; with `includeInContext` (not `!!`) the model reads it before the next message. While the agent runs
 * or compacts, the command runs all the same (as in pi) and shows as pending; its entry is placed at
 * the run's next boundary, so it never splits a tool call from its result. One command at a time; a call
 * retried with the same request id runs it once.
 */
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import type { Author } from "../../protocol/common.ts";
import { errorText } from "../../protocol/errors.ts";
import { type PatchOp, textPatch } from "../../protocol/patch.ts";
import { describe, isOwner, type Principal, runCommand } from "../../server/plugin.ts";
import { authorOf, type ConversationCore } from "./conversation-core.ts";
import type { StoredData } from "./view.ts";

type ShellData = Extract<StoredData, { kind: "shell" }>;

export interface ShellOutcome {
	readonly exitCode: number | null;
	readonly cancelled: boolean;
}

/** pi's words when a second command is asked for while one runs. */
export const SHELL_BUSY = "A bash command is already running. Press Esc to cancel it first.";
const SHELL_WAITING = "The last command's output waits for the agent's next step; run this one after it.";

interface Current {
	readonly requestId: string;
	readonly by: string;
	readonly abort: AbortController;
	readonly outcome: Promise<ShellOutcome>;
	/** Ended: its entry waits for a boundary. */
	ended: boolean;
}

export class ShellCommands {
	readonly #core: ConversationCore;
	#current: Current | null = null;

	constructor(core: ConversationCore) {
		this.#core = core;
	}

	/** A command runs, or its entry waits to be placed. */
	get running(): boolean {
		return this.#current !== null;
	}

	/** Cancels the running command when `principal` ran it or is an owner; true when it did. */
	cancel(principal: Principal): boolean {
		const current = this.#current;
		if (!current || current.ended || (current.by !== principal.id && !isOwner(principal))) return false;
		current.abort.abort();
		return true;
	}

	run(command: string, includeInContext: boolean, requestId: string, principal: Principal): Promise<ShellOutcome> {
		const core = this.#core;
		const stored = core.store.byRequestId(core.id, requestId);
		if (stored) return Promise.resolve(outcomeOf(stored.data));
		const current = this.#current;
		if (current?.requestId === requestId) return current.outcome;
		if (current) throw new ProtocolError("conflict", current.ended ? SHELL_WAITING : SHELL_BUSY);
		const doing = core.activity.kind;
		// Only while idle does a command hold the conversation (a message waits for it); beside a run it does not.
		if (doing !== "idle" && doing !== "run" && doing !== "compaction") {
			throw new ProtocolError("conflict", SHELL_BUSY);
		}
		const record = core.ctx.catalog.get(core.session);
		if (!record) throw new ProtocolError("not_found", "the session is gone");
		const id = crypto.randomUUID();
		const author = authorOf(principal);
		const abort = new AbortController();
		const shown: PatchOp = {
			op: "set",
			path: ["shell"],
			value: { id, command, author, includeInContext, output: "", startedAt: Date.now() },
		};
		const release = core.busyBeside();
		if (doing === "idle") core.begin({ kind: "shell", abort, by: principal.id }, [shown]);
		else core.update([shown]);
		const own = doing === "idle";
		const entry = (run: Awaited<ReturnType<typeof runCommand>>): ShellData => ({
			kind: "shell",
			id,
			command,
			output: run.output,
			exitCode: run.exitCode,
			cancelled: run.ended !== "exit",
			truncated: run.truncated,
			includeInContext,
		});
		const outcome = runCommand({
			env: core.ctx.environments.get(record.env),
			command,
			cwd: record.cwd,
			spillDir: join(core.ctx.dataDir, "spill", core.session),
			spillName: `shell-${id}.log`,
			signal: abort.signal,
			onOutput: (tail) => core.update([textPatch(["shell", "output"], core.live.state.shell?.output ?? "", tail)]),
		}).then(
			(run) => {
				const data = entry(run);
				const place = () => this.#place(data, author, requestId, release);
				if (this.#current) this.#current.ended = true;
				if (!own) {
					// Pending: shown ended, with all its output, until it is placed.
					const ended = { exitCode: data.exitCode, cancelled: data.cancelled };
					core.update([
						{ op: "set", path: ["shell", "output"], value: data.output },
						{ op: "set", path: ["shell", "ended"], value: ended },
					]);
					core.atBoundary(() => {
						try {
							place();
						} catch (error) {
							core.ctx.log.error(`session:${core.session}`, describe("a command's entry could not be stored", error));
						}
					});
					return { exitCode: data.exitCode, cancelled: data.cancelled };
				}
				// This command held the conversation: its entry goes in now, then the conversation rests.
				try {
					place();
				} catch (error) {
					throw new ProtocolError("unavailable", errorText(error).slice(0, 300));
				} finally {
					core.end([]);
				}
				return { exitCode: data.exitCode, cancelled: data.cancelled };
			},
			(error) => {
				this.#current = null;
				core.update([{ op: "set", path: ["shell"], value: null }]);
				if (own) core.end([]);
				release();
				throw new ProtocolError("unavailable", errorText(error).slice(0, 300));
			},
		);
		this.#current = { requestId, by: principal.id, abort, outcome, ended: false };
		return outcome;
	}

	/** The command's entry, stored with its request id, shown in place of its live output; throws when not stored. */
	#place(data: ShellData, author: Author, requestId: string, release: () => void): void {
		const core = this.#core;
		const done: PatchOp = { op: "set", path: ["shell"], value: null };
		try {
			const entry = core.store.append(core.id, { kind: "shell", data, author, requestId });
			// The agent's history is rebuilt from the entries before its next run, this command included.
			if (data.includeInContext) {
				if (core.activity.kind === "run") core.historyChanged = true;
				else core.agent = null;
			}
			core.show(entry, [done]);
		} catch (error) {
			core.update([done]);
			throw error;
		} finally {
			this.#current = null;
			release();
		}
	}
}

/** What a stored command ended with, for a call retried after it was placed. */
function outcomeOf(data: unknown): ShellOutcome {
	const own = (key: string): unknown =>
		typeof data === "object" && data !== null && Object.hasOwn(data, key)
			? (data as Record<string, unknown>)[key]
			: undefined;
	if (own("kind") !== "shell") throw new ProtocolError("conflict", "that request id was used for something else");
	const exitCode = own("exitCode");
	return { exitCode: typeof exitCode === "number" ? exitCode : null, cancelled: own("cancelled") === true };
}
