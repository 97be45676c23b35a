/**
 * The agent's runs in one conversation: a run starts in one transaction with the message that starts it, its
 * events become entries and patches as they come, and when it ends what is queued runs next. A run that
 * overflowed the context is compacted and goes on, once; an answer that leaves little room is compacted after.
 */

import { join } from "node:path";
import type { Api, AssistantMessage, Model, UserMessage } from "@earendil-works/pi-ai";
import { isContextOverflow } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import type { Author } from "../../protocol/common.ts";
import {
	buildSystemPrompt,
	ConversationEngine,
	createTools,
	describe,
	type EngineEvent,
	type EntryInput,
	loadContextFiles,
	loadRemoteContextFiles,
	type RunOutcome,
	type StoredEntry,
} from "../../server/plugin.ts";
import type { Run } from "./activity.ts";
import type { Compactor } from "./compactor.ts";
import { afterStored, type ConversationCore } from "./conversation-core.ts";
import { streamStep } from "./engine-patches.ts";
import { toAgentHistory } from "./history.ts";
import { type InputQueue, returnedOf } from "./input-queue.ts";
import { deliveredSaid, type Queued } from "./pending-inputs.ts";
import { logRunEnd } from "./run-notices.ts";
import type { StoredData } from "./view.ts";

/** pi's automatic compaction: when an answer leaves less than this much of the context window free. */
const RESERVE_TOKENS = 16_384;

/** How a run begins: the message it answers, as stored, and the queued input that message was, if any. */
export interface Turn {
	readonly entry?: EntryInput;
	readonly delivered?: string;
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && a.every((text, i) => text === b[i]);
}

export class Runs {
	readonly #core: ConversationCore;
	readonly #queue: InputQueue;
	readonly #compactor: Compactor;
	/** contentIndex of the streaming message → index in live.message.parts. */
	#parts: ReadonlyMap<number, number> = new Map();
	/** A run that overflowed the context is compacted and continued once, not again and again. */
	#overflowRecovered = false;
	#done: Promise<void> = Promise.resolve();
	/** The compaction after an overflow, until the run that goes on after it has started. */
	#recovering: Promise<void> | null = null;
	/** How the latest run ended (null: none has yet). */
	lastOutcome: RunOutcome | null = null;
	/** Runs that ended while their end could not be stored (a full disk), with how they ended. */
	readonly #ends = new Map<string, RunOutcome>();
	/** The plugins' system prompt sections the agent was built with. */
	#sections: readonly string[] = [];
	/** `env:cwd` the agent was built for. */
	#place = "";
	/** Tool calls of the latest answer whose results are not in yet: until none is, the run is not at a boundary. */
	#openCalls = 0;

	constructor(core: ConversationCore, queue: InputQueue, compactor: Compactor) {
		this.#core = core;
		this.#queue = queue;
		this.#compactor = compactor;
	}

	/** Resolves when the current run (if any) has ended. */
	idle(): Promise<void> {
		return this.#done;
	}

	/**
	 * Resolves when the agent has nothing more to do: the run, the runs that follow it (what was queued), and a
	 * compaction after an overflow with the run that goes on after it.
	 */
	async settled(): Promise<void> {
		do {
			await this.#done;
			if (this.#recovering) await this.#recovering;
		} while (this.#core.activity.kind === "run");
	}

	/** The agent, built from the stored entries when there is none. */
	agent(model: Model<Api>): ConversationEngine {
		const core = this.#core;
		const { ctx, session } = core;
		const record = ctx.catalog.get(session);
		// Plugins' sections of the system prompt (skills) may change while an agent lives: an idle one whose
		// sections changed is built again from the stored entries.
		// An idle agent is built again when the session moved (`/cd`, `/envs`): its tools run where the session is.
		const current = (cwd: string, place: string) =>
			place === this.#place && sameTexts(ctx.agent.prompt({ session, conversation: core.id, cwd }), this.#sections);
		// An idle one is built again when a `!` command's entry was placed while it ran: it does not have that entry.
		const fresh = (cwd: string, place: string) => !core.historyChanged && current(cwd, place);
		if (core.agent && (core.agent.running || !record || fresh(record.cwd, `${record.env}:${record.cwd}`))) {
			return core.agent;
		}
		core.historyChanged = false;
		if (!record) throw new ProtocolError("not_found", "the session is gone");
		const env = ctx.environments.get(record.env);
		this.#place = `${record.env}:${record.cwd}`;
		const own = createTools({ env, cwd: record.cwd, spillDir: join(ctx.dataDir, "spill", session) });
		const scope = { session, conversation: core.id, cwd: record.cwd };
		const added = ctx.agent.tools(
			scope,
			own.map((t) => t.name),
		);
		const tools = [...own, ...added.map((t) => t.tool)];
		// This device's project instructions are read now; a remote machine's before the first run starts.
		const context = env.remote ? [] : loadContextFiles(record.cwd);
		core.showContextFiles(context);
		this.#sections = ctx.agent.prompt(scope);
		const sections = this.#sections;
		const promptWith = (files: typeof context) =>
			buildSystemPrompt({
				cwd: record.cwd,
				toolNames: tools.map((t) => t.name),
				context: files,
				toolLines: new Map(added.map((t) => [t.tool.name, t.line])),
				sections,
			});
		const cwd = record.cwd;
		const engine = new ConversationEngine({
			model,
			thinkingLevel: core.live.state.thinkingLevel,
			systemPrompt: promptWith(context),
			...(env.remote
				? {
						prepare: async () => {
							const files = await loadRemoteContextFiles(env, cwd);
							core.showContextFiles(files);
							return files.length ? promptWith(files) : undefined;
						},
					}
				: {}),
			tools,
			history: toAgentHistory(core.allEntries()),
			streamFn: ctx.models.streamFn,
			retry: ctx.retry(),
			sessionId: session,
			onEvent: (event) => this.#onEvent(event),
		});
		core.agent = engine;
		return core.agent;
	}

	/** A run that answers the person's message; `turn.entry` is that message as it is stored. */
	start(engine: ConversationEngine, input: UserMessage, turn: Turn): void {
		const authorId = (turn.entry?.author as Author | null | undefined)?.id ?? "";
		this.#begin(input, authorId, () => engine.run(input), turn);
		this.#overflowRecovered = false;
	}

	/**
	 * A queued message becomes the next run's input; the rest stay queued for the agent. When it cannot be
	 * stored it goes back to its author's editor, and the error is returned.
	 */
	runQueued(engine: ConversationEngine, q: Queued): Error | null {
		this.#core.update(this.#queue.take(q));
		this.#queue.requeue();
		const data = { kind: "user", text: q.row.text, ...deliveredSaid(q) } satisfies StoredData;
		try {
			this.start(engine, q.message, {
				entry: { kind: "user", data, author: q.row.author, requestId: q.row.requestId },
				delivered: q.row.id,
			});
			return null;
		} catch (error) {
			this.#logError("a queued message could not be started", error);
			this.#core.update([{ op: "push", path: ["returned"], items: [returnedOf(q)] }]);
			return error instanceof Error ? error : new Error(String(error));
		}
	}

	/** Aborts any run and waits for it, e.g. at shutdown. */
	async shutdown(): Promise<void> {
		this.#core.agent?.abort();
		await this.#done;
	}

	/**
	 * Stores the run's start with the entry that starts it, in one transaction, then starts it. When that write
	 * fails (a full disk) it throws, and nothing was stored or changed: the caller's text is still theirs.
	 */
	#begin(input: UserMessage | null, authorId: string, start: () => Promise<RunOutcome>, turn: Turn): void {
		const core = this.#core;
		if (core.activity.kind !== "idle") throw new Error(`a run cannot start during ${core.activity.kind}`);
		this.#storeEnds();
		const runId = crypto.randomUUID();
		const { entry } = core.store.beginTurn(core.id, { runId, ...turn });
		// Stored: from here on nothing may fail the caller.
		if (entry) core.show(entry);
		afterStored("sorting the session first", () => core.ctx.catalog.touch(core.session));
		this.#openCalls = 0;
		core.begin({ kind: "run", id: runId, input, authorId, lastAnswer: null }, [
			{ op: "set", path: ["live"], value: { runId, startedAt: Date.now(), message: null, tools: [], retry: null } },
		]);
		core.ctx.bus.emit({ type: "chat.run", session: core.session, conversation: core.id, outcome: null });
		this.#done = start().then(
			(outcome) => this.#end(runId, outcome),
			(error) => {
				this.#logError("run failed", error);
				this.#end(runId, "error");
			},
		);
	}

	/** A failure of the server's own, in the server's log under this session. */
	#logError(what: string, error: unknown): void {
		this.#core.ctx.log.error(`session:${this.#core.session}`, describe(what, error));
	}

	#end(runId: string, outcome: RunOutcome): void {
		const core = this.#core;
		// A run whose end cannot be stored still ends here; its end is stored before the next run starts.
		this.lastOutcome = outcome;
		this.#ends.set(runId, outcome);
		try {
			this.#storeEnds();
		} catch (error) {
			this.#logError(`the end of run ${runId} could not be stored yet`, error);
		}
		const run = core.activity.kind === "run" ? core.activity : null;
		const authorId = run?.authorId ?? "";
		const answer = run?.lastAnswer ?? null;
		logRunEnd(core.ctx.log, core.session, outcome, answer);
		core.end([{ op: "set", path: ["live"], value: null }]);
		core.ctx.bus.emit({ type: "chat.run", session: core.session, conversation: core.id, outcome });
		// pi: a context overflow is compacted and the run goes on, once.
		const window = core.live.state.model?.contextWindow ?? 0;
		if (outcome === "error" && answer && !this.#overflowRecovered && isContextOverflow(answer, window || undefined)) {
			this.#overflowRecovered = true;
			const recovering = this.#recoverFromOverflow(authorId).finally(() => {
				if (this.#recovering === recovering) this.#recovering = null;
			});
			this.#recovering = recovering;
			return;
		}
		// pi keeps going while anything is queued (e.g. the run ended on an error before a follow-up was taken).
		if (outcome === "aborted" || !core.agent) return;
		const first = this.#queue.ready()[0];
		if (first) {
			this.runQueued(this.#nextAgent(core.agent), first);
			return;
		}
		if (outcome === "done") this.#maybeAutoCompact(authorId);
	}

	/** The agent for the run that follows: built again when a `!` command's entry was placed during the last. */
	#nextAgent(agent: ConversationEngine): ConversationEngine {
		const model = this.#core.model();
		return this.#core.historyChanged && model ? this.agent(model) : agent;
	}

	/** pi compacts by itself when an answer leaves less than RESERVE_TOKENS of the window: the next turn fits. */
	#maybeAutoCompact(authorId: string): void {
		const window = this.#core.live.state.model?.contextWindow ?? 0;
		const used = this.#core.contextTokens;
		if (window <= RESERVE_TOKENS || used === null || used <= window - RESERVE_TOKENS) return;
		this.#compactor.compact(undefined, authorId, "threshold").catch((error) => {
			if (!(error instanceof ProtocolError)) this.#logError("automatic compaction failed", error);
		});
	}

	async #recoverFromOverflow(authorId: string): Promise<void> {
		const core = this.#core;
		const result = await this.#compactor.compact(undefined, authorId, "overflow").catch((error) => {
			if (!(error instanceof ProtocolError)) this.#logError("compaction after an overflow failed", error);
			return null;
		});
		const model = core.model();
		if (!result || result.aborted || !model || core.activity.kind !== "idle") return;
		const engine = this.agent(model);
		// What was queued during the overflowing run goes to the new agent.
		this.#queue.requeue();
		try {
			// No new message: the agent goes on from its history.
			this.#begin(null, authorId, () => engine.continueRun(), {});
		} catch (error) {
			this.#logError("the run could not go on after the compaction", error);
		}
	}

	/** Stores the ends of runs that ended while they could not be written; throws while they still cannot. */
	#storeEnds(): void {
		for (const [runId, outcome] of this.#ends) {
			this.#core.store.endRun(runId, outcome);
			this.#ends.delete(runId);
		}
	}

	#onEvent(event: EngineEvent): void {
		const core = this.#core;
		const run = core.activity;
		if (run.kind !== "run") return;
		if (event.type === "user_delivered") return this.#delivered(event.message, run);
		const step = streamStep(event, { live: core.live.state.live, parts: this.#parts }, Date.now());
		if (step.parts) this.#parts = step.parts;
		const data = step.commit;
		if (!data) return core.update(step.ops);
		if (data.kind === "assistant") run.lastAnswer = data.message;
		core.commit(data, run.id, step.ops);
		if (data.kind === "assistant") this.#reportUsage(data.message);
		if (this.#atBoundary(event)) core.boundary();
	}

	/** After this event, a write cannot split a tool call from its result: an answer's calls all have results. */
	#atBoundary(event: EngineEvent): boolean {
		if (event.type === "assistant_end") {
			if (event.retrying) return false;
			this.#openCalls = event.message.content.filter((part) => part.type === "toolCall").length;
			return this.#openCalls === 0;
		}
		if (event.type !== "tool_end" || this.#openCalls === 0) return false;
		this.#openCalls--;
		return this.#openCalls === 0;
	}

	/** A queued steering or follow-up message reached the model: stored, it leaves the queue for the transcript. */
	#delivered(message: UserMessage, run: Run): void {
		if (message === run.input) return;
		const taken = this.#queue.delivered(message);
		if (!taken) return;
		const { q, unqueue } = taken;
		const core = this.#core;
		let entry: StoredEntry;
		try {
			entry = core.store.deliver(core.id, q.row.id, {
				kind: "user",
				data: { kind: "user", text: q.row.text, ...deliveredSaid(q) } satisfies StoredData,
				author: q.row.author,
				requestId: q.row.requestId,
				runId: run.id,
			});
		} catch (error) {
			// Not stored, so not the conversation's: back to its author, and the run stops on the error.
			core.update([...unqueue, { op: "push", path: ["returned"], items: [returnedOf(q)] }]);
			throw error;
		}
		core.show(entry, unqueue);
	}

	#reportUsage(message: AssistantMessage): void {
		const u = message.usage;
		if (!u) return;
		const core = this.#core;
		const totalInput = u.input + u.cacheRead + u.cacheWrite;
		// pi: an answer that failed or was stopped measured nothing; the last known context size stands.
		const measured = message.stopReason !== "error" && message.stopReason !== "aborted" && totalInput + u.output > 0;
		if (measured) core.contextTokens = totalInput + u.output;
		core.ctx.bus.emit({
			type: "usage.changed",
			session: core.session,
			conversation: core.id,
			usage: {
				input: u.input,
				output: u.output,
				cacheRead: u.cacheRead,
				cacheWrite: u.cacheWrite,
				cost: u.cost?.total ?? 0,
			},
			contextTokens: measured ? totalInput + u.output : null,
			cacheHitRate: measured && totalInput > 0 ? u.cacheRead / totalInput : null,
		});
	}
}
