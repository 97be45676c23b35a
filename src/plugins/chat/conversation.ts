import { join, relative } from "node:path";
import type { Api, AssistantMessage, ImageContent, Model, UserMessage } from "@earendil-works/pi-ai";
import { clampThinkingLevel, getSupportedThinkingLevels, isContextOverflow } from "@earendil-works/pi-ai";
import { ProtocolError } from "../../protocol/codes.ts";
import { type Author, THINKING_LEVELS, type ThinkingLevel } from "../../protocol/common.ts";
import { type PatchOp, textPatch } from "../../protocol/patch.ts";
import { ConversationEngine, type EngineEvent, type RunOutcome } from "../../server/agent/conversation-engine.ts";
import { buildSystemPrompt } from "../../server/agent/system-prompt.ts";
import { runCommand } from "../../server/agent/tools/bash.ts";
import { createTools } from "../../server/agent/tools/index.ts";
import { LiveState } from "../../server/objects/live-state.ts";
import type { Principal } from "../../server/objects/principal.ts";
import { isOwner } from "../../server/objects/principal.ts";
import type { ServerContext } from "../../server/plugin.ts";
import { DuplicateRequestError } from "../../server/store/errors.ts";
import type { EntryInput, QueuedRow, SessionStore, StoredEntry } from "../../server/store/session-store.ts";
import { contextTokens, firstKeptSeq, summarize } from "./compaction.ts";
import type { ChatEntry, ChatState, ModelState, QueueMode, ConfigureArgs as TConfigureArgs } from "./contract.ts";
import { contextRows, toAgentHistory } from "./history.ts";
import { asQueuedInput, authorIdOf, PendingInputs, type Queued } from "./pending-inputs.ts";
import { isImage, type Uploads } from "./uploads.ts";
import { fitWindow, type StoredData, toView } from "./view.ts";

/** What pi says when nothing can answer; p2 never invents an answer instead. */
export const NO_MODELS_TEXT =
	"No models available. Use /login to log into a provider via OAuth or API key, or add a provider to models.json in the server's data directory.";

/** The first window: this many entries at most, and at most this many bytes of them. */
const WINDOW_ENTRIES = 200;
/** A text file larger than this is named in the message, not pasted into it. */
const MAX_TEXT_FILE = 256 * 1024;
const WINDOW_BYTES = 192 * 1024;
/** The replicated window is trimmed back to this when it grows past WINDOW_ENTRIES during a long session. */
const WINDOW_KEEP = 150;
const HISTORY_PAGE = 1000;
/** pi's automatic compaction: when an answer leaves less than this much of the context window free. */
const RESERVE_TOKENS = 16_384;

type ConfigureArgs = typeof TConfigureArgs.infer;

/** Work that follows a stored message: it may fail (a full disk) without failing what was already stored. */
function afterStored(what: string, work: () => void): void {
	try {
		work();
	} catch (error) {
		console.error(`${what} failed:`, error);
	}
}

export function authorOf(principal: Principal): Author {
	return { id: principal.id, name: principal.name, role: principal.role };
}

function modelKey(model: Pick<Model<Api>, "provider" | "id">): string {
	return `${model.provider}/${model.id}`;
}

export function thinkingLevelsOf(model: Model<Api>): ThinkingLevel[] {
	if (!model.reasoning) return ["off"];
	const supported = new Set<string>(getSupportedThinkingLevels(model));
	supported.add("off");
	return THINKING_LEVELS.filter((level) => supported.has(level));
}

export function modelState(model: Model<Api> | undefined): ModelState {
	if (!model) return null;
	return {
		provider: model.provider,
		id: model.id,
		name: model.name ?? model.id,
		contextWindow: model.contextWindow ?? 0,
		reasoning: model.reasoning === true,
		thinkingLevels: thinkingLevelsOf(model),
	};
}

/**
 * One conversation on the server: its committed entries (in the session store), the live run, the queue and
 * the replicated state every client of it shares. Keys arrive as method calls; state leaves as patches.
 */
export class Conversation {
	readonly session: string;
	readonly id: string;
	readonly live: LiveState<ChatState>;
	#ctx: ServerContext;
	#store: SessionStore;
	readonly #uploads: Uploads | undefined;
	#engine: ConversationEngine | null = null;
	#run: { id: string; input: UserMessage | null; authorId: string } | null = null;
	/** The latest committed answer of the run (an overflow error is recognized from it). */
	#lastAnswer: AssistantMessage | null = null;
	/** A run that overflowed the context is compacted and continued once, not again and again. */
	#overflowRecovered = false;
	/** A /compact in progress, and who asked for it (they, or an owner, may cancel it). */
	#compaction: { abort: AbortController; by: string } | null = null;
	/** A person's `!` command while it runs, and who ran it. */
	#shell: { abort: AbortController; by: string } | null = null;
	#runDone: Promise<void> = Promise.resolve();
	/** Runs that ended while their end could not be stored (a full disk), with how they ended. */
	readonly #runEnds = new Map<string, RunOutcome>();
	readonly #queue = new PendingInputs();
	/** The context's size after the latest answer (null: unknown, e.g. right after a compaction). */
	#contextTokens: number | null = null;
	/** contentIndex of the streaming message → index in live.message.parts. */
	#parts = new Map<number, number>();

	constructor(ctx: ServerContext, store: SessionStore, session: string, conversation: string, uploads?: Uploads) {
		this.#ctx = ctx;
		this.#uploads = uploads;
		this.#store = store;
		this.session = session;
		this.id = conversation;
		this.#noteReplacedStore();
		const stored = store.window(conversation, WINDOW_ENTRIES);
		const window = fitWindow(stored.map(toView), WINDOW_BYTES);
		const total = store.count(conversation);
		const model = this.#resolveModel();
		// Inputs still queued when the server last stopped go back to their authors, never silently run.
		const returned = store
			.queued(conversation)
			.map((row) => ({ id: row.id, authorId: (row.author as Author | null)?.id ?? "", texts: [row.text], at: row.at }));
		this.live = new LiveState<ChatState>({
			entries: window.entries,
			older: window.trimmed || total > window.entries.length,
			live: null,
			queue: [],
			returned,
			model: modelState(model),
			thinkingLevel: this.#resolveThinking(model),
			compacting: null,
			shell: null,
		});
	}

	/**
	 * The session's file was found damaged or emptied and moved aside: the conversation, now empty, says so
	 * first, naming the file that was kept. Never silently a new, empty conversation.
	 */
	#noteReplacedStore(): void {
		const replaced = this.#store.replaced;
		if (!replaced || this.#store.count(this.id) > 0) return;
		const kept = relative(this.#ctx.dataDir, replaced.movedTo);
		const message = `This session's history could not be read (${replaced.reason}); its file was kept as ${kept} in the server's data directory. The conversation starts afresh here.`;
		afterStored("noting the damaged store", () =>
			this.#store.append(this.id, { kind: "error", data: { kind: "error", message } satisfies StoredData }),
		);
	}

	get busy(): boolean {
		return this.#run !== null || this.#compaction !== null || this.#shell !== null;
	}

	/** Resolves when the current run (if any) has ended. */
	idle(): Promise<void> {
		return this.#runDone;
	}

	send(
		args: { text: string; mode: QueueMode; requestId: string; attachments?: string[] },
		principal: Principal,
	): "started" | "queued" | "duplicate" {
		// A retried request: stored as an entry, or queued (perhaps handed back after a restart) under this id.
		if (this.#store.byRequestId(this.id, args.requestId) || this.#store.queuedByRequestId(this.id, args.requestId)) {
			return "duplicate";
		}
		const author = authorOf(principal);
		const ids = args.attachments ?? [];
		if (!args.text.trim() && !ids.length) throw new ProtocolError("bad_args", "a message needs text or a file");
		if (this.#compaction) throw new ProtocolError("conflict", "Wait for the compaction to finish (Escape cancels it).");
		if (this.#shell) throw new ProtocolError("conflict", "Wait for the command to finish (Escape cancels it).");
		// Approval mode: a full guest's message waits, marked, until the owner accepts or rejects it.
		const hold = principal.role === "full" && this.#ctx.shares.approval(this.session);
		if (hold && ids.length) {
			throw new ProtocolError("conflict", "the owner approves guests' messages here; send the text without files");
		}
		if (ids.length) return this.#sendWithFiles(args, ids, principal);
		if (this.#run || hold) {
			const id = crypto.randomUUID();
			let row: QueuedRow;
			try {
				row = this.#store.enqueue(this.id, { id, mode: args.mode, text: args.text, author, requestId: args.requestId });
			} catch (error) {
				if (error instanceof DuplicateRequestError) return "duplicate";
				throw error;
			}
			const message: UserMessage = { role: "user", content: args.text, timestamp: row.at };
			const queued = this.#queue.add(row, message, hold);
			if (!hold) this.#deliverLater(queued);
			this.#update([{ op: "push", path: ["queue"], items: [asQueuedInput(queued)] }]);
			return "queued";
		}
		const model = this.#resolveModel();
		if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
		const engine = this.#ensureEngine(model);
		const at = Date.now();
		const data = { kind: "user", text: args.text } satisfies StoredData;
		try {
			this.#startRun(
				engine,
				{ role: "user", content: args.text, timestamp: at },
				{
					entry: { kind: "user", data, author, requestId: args.requestId, at },
				},
			);
		} catch (error) {
			if (error instanceof DuplicateRequestError) return "duplicate";
			throw error;
		}
		this.#nameSessionAfter(args.text);
		return "started";
	}

	/**
	 * A message with files: images go to the model when it takes images; text files are added to the message
	 * (pi's file blocks); anything else is named, not sent. Only while no run is going (a queued input is text).
	 */
	#sendWithFiles(
		args: { text: string; requestId: string },
		ids: string[],
		principal: Principal,
	): "started" | "duplicate" {
		if (this.#run) throw new ProtocolError("conflict", "files are sent when the agent is not working; stop it or wait");
		const files = ids.map((id) => {
			const file = this.#uploads?.get(this.session, id, principal.id);
			if (!file) throw new ProtocolError("not_found", "an attached file is gone; attach it again");
			return file;
		});
		const model = this.#resolveModel();
		if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
		const images: ImageContent[] = [];
		const notes: string[] = [];
		let text = args.text;
		for (const { meta, bytes } of files) {
			if (isImage(meta.mimeType)) {
				if (model.input.includes("image"))
					images.push({ type: "image", data: Buffer.from(bytes).toString("base64"), mimeType: meta.mimeType });
				else notes.push(`[image ${meta.name}: ${model.id} does not take images]`);
			} else if (meta.mimeType === "text/plain" && meta.size <= MAX_TEXT_FILE) {
				text += `${text ? "\n\n" : ""}<file name="${meta.name.replace(/"/g, "'")}">\n${new TextDecoder().decode(bytes)}\n</file>`;
			} else notes.push(`[file ${meta.name} (${meta.size} bytes): not text; not sent to the model]`);
		}
		if (notes.length) text += `${text ? "\n\n" : ""}${notes.join("\n")}`;
		const engine = this.#ensureEngine(model);
		const at = Date.now();
		const data = { kind: "user", text, ...(images.length ? { images } : {}) } satisfies StoredData;
		const content: UserMessage["content"] = images.length ? [{ type: "text", text }, ...images] : text;
		try {
			this.#startRun(
				engine,
				{ role: "user", content, timestamp: at },
				{
					entry: { kind: "user", data, author: authorOf(principal), requestId: args.requestId, at },
				},
			);
		} catch (error) {
			if (error instanceof DuplicateRequestError) return "duplicate";
			throw error;
		}
		if (args.text.trim()) this.#nameSessionAfter(args.text);
		return "started";
	}

	/**
	 * pi's Escape. The caller's own queued texts come back to them. An owner, or the guest whose message started
	 * the run, aborts it, and others' queued texts go back to their authors; a guest cannot stop someone else's run.
	 */
	stop(principal: Principal): { stopped: boolean; texts: string[] } {
		const mine: string[] = [];
		const theirs: string[] = [];
		for (const q of this.#queue.all()) (authorIdOf(q) === principal.id ? mine : theirs).push(q.row.id);
		const texts = this.#store.withdraw(mine).map((row) => row.text);
		const cancellable = this.#compaction ?? this.#shell;
		if (cancellable && (isOwner(principal) || cancellable.by === principal.id)) {
			cancellable.abort.abort();
			this.#forget(mine);
			return { stopped: true, texts };
		}
		if (!isOwner(principal) && this.#run?.authorId !== principal.id) {
			this.#forget(mine);
			return { stopped: false, texts };
		}
		const returned = theirs.flatMap((id) => {
			const q = this.#queue.get(id);
			return q ? [this.#returnedOf(q)] : [];
		});
		this.#queue.clear();
		const ops: PatchOp[] = [{ op: "set", path: ["queue"], value: [] }];
		for (const r of returned) ops.push({ op: "push", path: ["returned"], items: [r] });
		this.#update(ops);
		const stopped = this.#run !== null;
		if (this.#run) this.#engine?.abort();
		return { stopped, texts };
	}

	/** Takes back one queued message. An owner taking someone else's sends it back to its author's drafts. */
	dequeue(id: string, principal: Principal): { text: string | null } {
		const q = this.#queue.get(id);
		if (!q) return { text: null };
		if (authorIdOf(q) !== principal.id) {
			if (!isOwner(principal)) {
				throw new ProtocolError("forbidden", "only its author or an owner may take back a queued message");
			}
			this.#returnToAuthor(q);
			return { text: null };
		}
		const [row] = this.#store.withdraw([id]);
		this.#forget([id]);
		return { text: row?.text ?? null };
	}

	/**
	 * pi's /compact: the model summarizes the older part of its context; the latest ~20k tokens stay as they
	 * are. Only while the agent is idle; Escape (`stop`) cancels it and changes nothing.
	 */
	compact(instructions: string | undefined, principal: Principal): Promise<{ tokensBefore: number; aborted: boolean }> {
		return this.#compact(instructions, principal.id, "manual");
	}

	/** `by` may cancel it (besides an owner); `threshold` is pi's automatic compaction after a long answer. */
	async #compact(
		instructions: string | undefined,
		by: string,
		reason: "manual" | "threshold" | "overflow",
	): Promise<{ tokensBefore: number; aborted: boolean }> {
		if (this.#run || this.#shell) {
			throw new ProtocolError("conflict", "The agent is working: stop it (Escape) or wait, then compact.");
		}
		if (this.#compaction) throw new ProtocolError("conflict", "A compaction is already running.");
		const model = this.#resolveModel();
		if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
		const { lead, rows } = contextRows(this.#allEntries());
		if (!rows.some((r) => r.kind === "user" || r.kind === "assistant")) {
			throw new ProtocolError("conflict", "Nothing to compact yet.");
		}
		// After an overflow the person's latest message stays word for word: the run goes on to answer it.
		const lastUser = rows.findLast((r) => r.kind === "user")?.seq;
		const keep =
			reason === "overflow" && lastUser !== undefined ? Math.min(firstKeptSeq(rows), lastUser) : firstKeptSeq(rows);
		const older = rows.filter((r) => r.seq < keep);
		const tokensBefore = contextTokens(lead?.text ?? null, rows);
		const compaction = { abort: new AbortController(), by };
		this.#compaction = compaction;
		this.#update([{ op: "set", path: ["compacting"], value: { startedAt: Date.now(), reason } }]);
		this.#ctx.bus.emit({ type: "session.busy", session: this.session, busy: true });
		try {
			const written = await summarize({
				streamFn: this.#ctx.models.streamFn,
				model,
				lead: lead?.text ?? null,
				rows: older,
				...(instructions ? { instructions } : {}),
				signal: compaction.abort.signal,
			});
			if (written.aborted) return { tokensBefore, aborted: true };
			if ("error" in written) throw new ProtocolError("unavailable", `Compaction failed: ${written.error}`);
			const { summary } = written;
			const entry = this.#store.append(this.id, {
				kind: "compaction",
				data: { kind: "compaction", summary, tokensBefore, firstKeptSeq: keep } satisfies StoredData,
			});
			// The next run starts from the summary and the kept entries.
			this.#engine = null;
			this.#contextReset();
			this.#update([{ op: "push", path: ["entries"], items: [toView(entry)] }]);
			this.#trimWindow();
			return { tokensBefore, aborted: false };
		} finally {
			this.#compaction = null;
			this.#update([{ op: "set", path: ["compacting"], value: null }]);
			this.#ctx.bus.emit({ type: "session.busy", session: this.session, busy: false });
		}
	}

	/**
	 * pi's `!cmd`: the person's own command in the session's directory, its output live for everyone, then an
	 * entry; with `includeInContext` (not `!!`) the model reads it before the next message.
	 */
	async shell(
		command: string,
		includeInContext: boolean,
		principal: Principal,
	): Promise<{ exitCode: number | null; cancelled: boolean }> {
		if (this.#run || this.#compaction || this.#shell) {
			throw new ProtocolError("conflict", "Wait for the agent to finish (or Escape), then run the command.");
		}
		const record = this.#ctx.catalog.get(this.session);
		if (!record) throw new ProtocolError("not_found", "the session is gone");
		const id = crypto.randomUUID();
		const author = authorOf(principal);
		const shell = { abort: new AbortController(), by: principal.id };
		this.#shell = shell;
		this.#update([
			{
				op: "set",
				path: ["shell"],
				value: { id, command, author, includeInContext, output: "", startedAt: Date.now() },
			},
		]);
		this.#ctx.bus.emit({ type: "session.busy", session: this.session, busy: true });
		try {
			const run = await runCommand({
				command,
				cwd: record.cwd,
				spillDir: join(this.#ctx.dataDir, "spill", this.session),
				spillName: `shell-${id}.log`,
				signal: shell.abort.signal,
				onOutput: (tail) => this.#update([textPatch(["shell", "output"], this.live.state.shell?.output ?? "", tail)]),
			});
			const cancelled = run.ended !== "exit";
			const entry = this.#store.append(this.id, {
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
			if (includeInContext) this.#engine = null;
			this.#update([
				{ op: "set", path: ["shell"], value: null },
				{ op: "push", path: ["entries"], items: [toView(entry)] },
			]);
			this.#trimWindow();
			return { exitCode: run.exitCode, cancelled };
		} catch (error) {
			this.#update([{ op: "set", path: ["shell"], value: null }]);
			throw new ProtocolError("unavailable", (error as Error).message.slice(0, 300));
		} finally {
			this.#shell = null;
			this.#ctx.bus.emit({ type: "session.busy", session: this.session, busy: false });
		}
	}

	/** A fresh context from here on: the model sees only the handoff note, if one is given; the transcript stays. */
	newContext(handoff: string | undefined): null {
		if (this.#run || this.#compaction || this.#shell) {
			throw new ProtocolError("conflict", "The agent is working: stop it (Escape) or wait, then start a new context.");
		}
		const note = handoff?.trim() ? handoff.trim() : null;
		const entry = this.#store.append(this.id, {
			kind: "reset",
			data: { kind: "reset", handoff: note } satisfies StoredData,
		});
		this.#engine = null;
		this.#contextReset();
		this.#update([{ op: "push", path: ["entries"], items: [toView(entry)] }]);
		this.#trimWindow();
		return null;
	}

	/** Approval mode: the owner accepts a guest's waiting message; it runs now, or at its turn in the queue. */
	approve(id: string): null {
		const q = this.#queue.get(id);
		if (!q?.waiting) throw new ProtocolError("not_found", "no message is waiting with that id");
		if (this.#compaction || this.#shell) throw new ProtocolError("conflict", "Wait for what is running to finish.");
		if (!this.#run) {
			const model = this.#resolveModel();
			if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
			const failed = this.#runQueued(this.#ensureEngine(model), q);
			if (failed) throw failed;
			return null;
		}
		q.waiting = false;
		this.#requeue();
		const index = this.live.state.queue.findIndex((item) => item.id === id);
		if (index >= 0) this.#update([{ op: "set", path: ["queue", index, "waiting"], value: false }]);
		return null;
	}

	/** Approval mode: the owner turns a guest's waiting message down; it goes back to the guest's editor. */
	reject(id: string): null {
		const q = this.#queue.get(id);
		if (!q?.waiting) throw new ProtocolError("not_found", "no message is waiting with that id");
		this.#returnToAuthor(q);
		return null;
	}

	/** Approval mode was turned off: what waits is accepted, in the order it was sent. */
	releaseWaiting(): void {
		for (const q of this.#queue.all()) if (q.waiting && this.#queue.has(q.row.id)) this.approve(q.row.id);
	}

	#returnedOf(q: Queued) {
		return { id: q.row.id, authorId: authorIdOf(q), texts: [q.row.text], at: Date.now() };
	}

	/** Out of the queue and into `returned`, where its author's client takes it back into their editor. */
	#returnToAuthor(q: Queued): void {
		this.#forget([q.row.id]);
		this.#update([{ op: "push", path: ["returned"], items: [this.#returnedOf(q)] }]);
	}

	#deliverLater(q: Queued): void {
		if (q.row.mode === "steer") this.#engine?.steer(q.message);
		else this.#engine?.followUp(q.message);
	}

	/** pi's Alt+Up: the caller's queued messages back into their editor; others' stay queued. */
	dequeueOwn(principal: Principal): { restored: string[]; skipped: number } {
		const mine = this.#queue.byAuthor(principal.id);
		const rows = this.#store.withdraw(mine.map((q) => q.row.id));
		this.#forget(mine.map((q) => q.row.id));
		return { restored: rows.map((r) => r.text), skipped: this.#queue.size };
	}

	ackReturned(id: string, principal: Principal): null {
		const index = this.live.state.returned.findIndex((r) => r.id === id);
		const item = this.live.state.returned[index];
		if (!item) return null;
		if (item.authorId !== principal.id && !isOwner(principal)) {
			throw new ProtocolError("forbidden", "these texts belong to someone else");
		}
		this.#store.withdraw([id]);
		this.#update([{ op: "splice", path: ["returned"], start: index, remove: 1, items: [] }]);
		return null;
	}

	configure(args: ConfigureArgs): ModelState {
		let model = this.#resolveModel();
		if (args.model) {
			const found = this.#ctx.models.find(args.model.provider, args.model.id);
			if (!found) throw new ProtocolError("not_found", `no usable model ${args.model.provider}/${args.model.id}`);
			model = found;
		}
		if (!model) throw new ProtocolError("unavailable", NO_MODELS_TEXT);
		const wanted = args.thinkingLevel ?? this.live.state.thinkingLevel;
		const level = model.reasoning ? (clampThinkingLevel(model, wanted) as ThinkingLevel) : "off";
		this.#ctx.catalog.update(this.session, { model: modelKey(model), thinkingLevel: level });
		this.#ctx.bus.emit({ type: "session.activity", session: this.session });
		this.#engine?.setModel(model, level);
		const state = modelState(model);
		this.#update([
			{ op: "set", path: ["model"], value: state },
			{ op: "set", path: ["thinkingLevel"], value: level },
		]);
		return state;
	}

	page(beforeSeq: number, limit: number): { entries: ChatEntry[]; more: boolean } {
		const page = this.#store.page(this.id, { beforeSeq, limit });
		return { entries: page.entries.map(toView), more: page.more };
	}

	/** Aborts any run and waits for it, e.g. at shutdown. */
	async shutdown(): Promise<void> {
		this.#engine?.abort();
		await this.#runDone;
	}

	// --- runs ---

	/** A run that answers the person's message; `turn.entry` is that message as it is stored. */
	#startRun(engine: ConversationEngine, input: UserMessage, turn: { entry: EntryInput; delivered?: string }): void {
		const authorId = (turn.entry.author as Author | null)?.id ?? "";
		this.#beginRun(input, authorId, () => engine.run(input), turn);
		this.#overflowRecovered = false;
	}

	/** A run with no new message: the agent goes on from its history (after an overflow was compacted). */
	#continueRun(engine: ConversationEngine, authorId: string): void {
		this.#beginRun(null, authorId, () => engine.continueRun(), {});
	}

	/**
	 * Stores the run's start with the entry that starts it, in one transaction, then starts it. When that write
	 * fails (a full disk) it throws, and nothing was stored or changed: the caller's text is still theirs.
	 */
	#beginRun(
		input: UserMessage | null,
		authorId: string,
		start: () => Promise<RunOutcome>,
		turn: { entry?: EntryInput; delivered?: string },
	): void {
		this.#storeRunEnds();
		const runId = crypto.randomUUID();
		const { entry } = this.#store.beginTurn(this.id, { runId, ...turn });
		// Stored: from here on nothing may fail the caller.
		if (entry) this.#update([{ op: "push", path: ["entries"], items: [toView(entry)] }]);
		this.#run = { id: runId, input, authorId };
		this.#lastAnswer = null;
		this.#update([
			{ op: "set", path: ["live"], value: { runId, startedAt: Date.now(), message: null, tools: [], retry: null } },
		]);
		this.#trimWindow();
		afterStored("sorting the session first", () => this.#ctx.catalog.touch(this.session));
		this.#ctx.bus.emit({ type: "session.busy", session: this.session, busy: true });
		this.#runDone = start().then(
			(outcome) => this.#endRun(runId, outcome),
			(error) => {
				console.error("run failed:", error);
				this.#endRun(runId, "error");
			},
		);
	}

	#endRun(runId: string, outcome: RunOutcome): void {
		// A run whose end cannot be stored still ends here; its end is stored before the next run starts.
		this.#runEnds.set(runId, outcome);
		try {
			this.#storeRunEnds();
		} catch (error) {
			console.error(`the end of run ${runId} could not be stored yet:`, error);
		}
		const authorId = this.#run?.authorId ?? "";
		this.#run = null;
		this.#update([{ op: "set", path: ["live"], value: null }]);
		this.#ctx.bus.emit({ type: "session.busy", session: this.session, busy: false });
		// pi: a context overflow is compacted and the run goes on, once.
		const window = this.live.state.model?.contextWindow ?? 0;
		const answer = this.#lastAnswer;
		if (outcome === "error" && answer && !this.#overflowRecovered && isContextOverflow(answer, window || undefined)) {
			this.#overflowRecovered = true;
			void this.#recoverFromOverflow(authorId);
			return;
		}
		// pi keeps going while anything is queued (e.g. the run ended on an error before a follow-up was taken).
		if (outcome === "aborted" || !this.#engine) return;
		const first = this.#queue.ready()[0];
		if (first) {
			this.#runQueued(this.#engine, first);
			return;
		}
		if (outcome === "done") this.#maybeAutoCompact(authorId);
	}

	/** pi compacts by itself when an answer leaves less than RESERVE_TOKENS of the window: the next turn fits. */
	#maybeAutoCompact(authorId: string): void {
		const window = this.live.state.model?.contextWindow ?? 0;
		const used = this.#contextTokens;
		if (window <= RESERVE_TOKENS || used === null || used <= window - RESERVE_TOKENS) return;
		this.#compact(undefined, authorId, "threshold").catch((error) => {
			if (!(error instanceof ProtocolError)) console.error("automatic compaction failed:", error);
		});
	}

	async #recoverFromOverflow(authorId: string): Promise<void> {
		const result = await this.#compact(undefined, authorId, "overflow").catch((error) => {
			if (!(error instanceof ProtocolError)) console.error("compaction after an overflow failed:", error);
			return null;
		});
		const model = this.#resolveModel();
		if (!result || result.aborted || !model || this.#run) return;
		const engine = this.#ensureEngine(model);
		// What was queued during the overflowing run goes to the new agent.
		this.#requeue();
		try {
			this.#continueRun(engine, authorId);
		} catch (error) {
			console.error("the run could not go on after the compaction:", error);
		}
	}

	#contextReset(): void {
		this.#contextTokens = null;
		this.#ctx.bus.emit({ type: "context.reset", session: this.session, conversation: this.id });
	}

	/**
	 * A queued message becomes the next run's input; the rest stay queued for the agent. When it cannot be
	 * stored it goes back to its author's editor, and the error is returned.
	 */
	#runQueued(engine: ConversationEngine, q: Queued): Error | null {
		const index = this.live.state.queue.findIndex((item) => item.id === q.row.id);
		this.#queue.take(q.row.id);
		if (index >= 0) this.#update([{ op: "splice", path: ["queue"], start: index, remove: 1, items: [] }]);
		this.#requeue();
		const data = { kind: "user", text: q.row.text } satisfies StoredData;
		try {
			this.#startRun(engine, q.message, {
				entry: { kind: "user", data, author: q.row.author, requestId: q.row.requestId },
				delivered: q.row.id,
			});
			return null;
		} catch (error) {
			console.error("a queued message could not be started:", error);
			this.#update([{ op: "push", path: ["returned"], items: [this.#returnedOf(q)] }]);
			return error instanceof Error ? error : new Error(String(error));
		}
	}

	/** Stores the ends of runs that ended while they could not be written; throws while they still cannot. */
	#storeRunEnds(): void {
		for (const [runId, outcome] of this.#runEnds) {
			this.#store.endRun(runId, outcome);
			this.#runEnds.delete(runId);
		}
	}

	/** Tells the agent what is queued now, in order; waiting messages are not the agent's until approved. */
	#requeue(): void {
		const ready = this.#queue.ready();
		this.#engine?.requeue(
			ready.filter((q) => q.row.mode === "steer").map((q) => q.message),
			ready.filter((q) => q.row.mode === "followUp").map((q) => q.message),
		);
	}

	#ensureEngine(model: Model<Api>): ConversationEngine {
		if (this.#engine) return this.#engine;
		const record = this.#ctx.catalog.get(this.session);
		if (!record) throw new ProtocolError("not_found", "the session is gone");
		const tools = createTools({ cwd: record.cwd, spillDir: join(this.#ctx.dataDir, "spill", this.session) });
		this.#engine = new ConversationEngine({
			model,
			thinkingLevel: this.live.state.thinkingLevel,
			systemPrompt: buildSystemPrompt({ cwd: record.cwd, toolNames: tools.map((t) => t.name) }),
			tools,
			history: toAgentHistory(this.#allEntries()),
			streamFn: this.#ctx.models.streamFn,
			retry: this.#ctx.retry,
			sessionId: this.session,
			onEvent: (event) => this.#onEngine(event),
		});
		return this.#engine;
	}

	#allEntries(): StoredEntry[] {
		const all: StoredEntry[] = [];
		let after = 0;
		for (;;) {
			const page = this.#store.since(this.id, after, HISTORY_PAGE);
			all.push(...page.entries);
			const last = page.entries[page.entries.length - 1];
			if (!page.more || !last) return all;
			after = last.seq;
		}
	}

	#onEngine(event: EngineEvent): void {
		const run = this.#run;
		if (!run) return;
		switch (event.type) {
			case "assistant_start":
				this.#parts.clear();
				this.#update([{ op: "set", path: ["live", "message"], value: { parts: [], toolCalls: [] } }]);
				return;
			case "part_start": {
				const parts = this.live.state.live?.message?.parts;
				if (!parts) return;
				this.#parts.set(event.index, parts.length);
				const value =
					event.kind === "text" ? { type: "text", text: "" } : { type: "thinking", text: "", redacted: false };
				this.#update([{ op: "push", path: ["live", "message", "parts"], items: [value] }]);
				return;
			}
			case "part_delta": {
				const index = this.#parts.get(event.index);
				if (index === undefined || event.delta === "") return;
				this.#update([{ op: "append", path: ["live", "message", "parts", index, "text"], text: event.delta }]);
				return;
			}
			case "tool_call":
				if (!this.live.state.live?.message) return;
				this.#update([{ op: "push", path: ["live", "message", "toolCalls"], items: [event.id] }]);
				return;
			case "assistant_end":
				if (event.retrying) {
					this.#update([{ op: "set", path: ["live", "message"], value: null }]);
					return;
				}
				this.#lastAnswer = event.message;
				this.#commit({ kind: "assistant", message: event.message }, run.id, [
					{ op: "set", path: ["live", "message"], value: null },
				]);
				this.#reportUsage(event.message);
				return;
			case "user_delivered": {
				if (event.message === run.input) return;
				const q = this.#queue.takeDelivered(event.message);
				if (!q) return;
				const id = q.row.id;
				const index = this.live.state.queue.findIndex((item) => item.id === id);
				const unqueue =
					index >= 0 ? [{ op: "splice", path: ["queue"], start: index, remove: 1, items: [] } as PatchOp] : [];
				let entry: StoredEntry;
				try {
					entry = this.#store.deliver(this.id, id, {
						kind: "user",
						data: { kind: "user", text: q.row.text } satisfies StoredData,
						author: q.row.author,
						requestId: q.row.requestId,
						runId: run.id,
					});
				} catch (error) {
					// Not stored, so not the conversation's: back to its author, and the run stops on the error.
					this.#update([...unqueue, { op: "push", path: ["returned"], items: [this.#returnedOf(q)] }]);
					throw error;
				}
				this.#update([...unqueue, { op: "push", path: ["entries"], items: [toView(entry)] }]);
				this.#trimWindow();
				return;
			}
			case "tool_start":
				this.#update([
					{
						op: "push",
						path: ["live", "tools"],
						items: [{ id: event.id, name: event.name, args: event.args, output: "", startedAt: Date.now() }],
					},
				]);
				return;
			case "tool_update": {
				const tools = this.live.state.live?.tools ?? [];
				const index = tools.findIndex((t) => t.id === event.id);
				const tool = tools[index];
				if (!tool || tool.output === event.output) return;
				this.#update([textPatch(["live", "tools", index, "output"], tool.output, event.output)]);
				return;
			}
			case "tool_end": {
				const index = (this.live.state.live?.tools ?? []).findIndex((t) => t.id === event.id);
				this.#commit(
					{
						kind: "tool",
						callId: event.id,
						name: event.name,
						args: event.args,
						result: {
							content: event.result.content,
							details: event.result.details ?? null,
							isError: event.result.isError,
						},
						durationMs: event.durationMs,
					},
					run.id,
					index >= 0 ? [{ op: "splice", path: ["live", "tools"], start: index, remove: 1, items: [] }] : [],
				);
				return;
			}
			case "retry_scheduled":
				this.#update([
					{
						op: "set",
						path: ["live", "retry"],
						value: {
							attempt: event.attempt,
							maxAttempts: event.maxAttempts,
							until: Date.now() + event.delayMs,
							error: event.error,
						},
					},
				]);
				return;
			case "retry_cleared":
				if (this.live.state.live) this.#update([{ op: "set", path: ["live", "retry"], value: null }]);
				return;
		}
	}

	/** Stores an entry first, then shows it: what clients see is always already durable. */
	#commit(data: StoredData, runId: string, extra: PatchOp[]): void {
		const entry = this.#store.append(this.id, { kind: data.kind, data, runId });
		this.#update([...extra, { op: "push", path: ["entries"], items: [toView(entry)] }]);
		this.#trimWindow();
	}

	#reportUsage(message: AssistantMessage): void {
		const u = message.usage;
		if (!u) return;
		const totalInput = u.input + u.cacheRead + u.cacheWrite;
		this.#contextTokens = totalInput + u.output;
		this.#ctx.bus.emit({
			type: "usage.changed",
			session: this.session,
			conversation: this.id,
			usage: {
				input: u.input,
				output: u.output,
				cacheRead: u.cacheRead,
				cacheWrite: u.cacheWrite,
				cost: u.cost?.total ?? 0,
			},
			contextTokens: totalInput + u.output,
			cacheHitRate: totalInput > 0 ? u.cacheRead / totalInput : null,
		});
	}

	#forget(ids: readonly string[]): void {
		for (const id of ids) this.#queue.take(id);
		this.#update([{ op: "set", path: ["queue"], value: this.#queue.shown() }]);
		this.#requeue();
	}

	/** Keeps the replicated window bounded: clients page older entries from the store. */
	#trimWindow(): void {
		const count = this.live.state.entries.length;
		if (count <= WINDOW_ENTRIES) return;
		this.#update([
			{ op: "splice", path: ["entries"], start: 0, remove: count - WINDOW_KEEP, items: [] },
			{ op: "set", path: ["older"], value: true },
		]);
	}

	#update(ops: PatchOp[]): void {
		this.live.update(ops);
	}

	/** After the message was stored: a failure here is logged, never the sender's error. */
	#nameSessionAfter(text: string): void {
		afterStored("naming the session", () => {
			const record = this.#ctx.catalog.get(this.session);
			if (record?.title !== "") return;
			const title = text.replace(/\s+/g, " ").trim().slice(0, 80);
			if (title === "") return;
			this.#ctx.catalog.update(this.session, { title });
			this.#ctx.bus.emit({ type: "session.activity", session: this.session });
		});
	}

	#resolveModel(): Model<Api> | undefined {
		const { models, settings } = this.#ctx;
		const record = this.#ctx.catalog.get(this.session);
		const [provider, ...rest] = (record?.model ?? "").split("/");
		const chosen = provider && rest.length ? models.find(provider, rest.join("/")) : undefined;
		if (chosen) return chosen;
		const fallback = settings.value.defaultModel;
		return (fallback && models.find(fallback.provider, fallback.id)) || models.usable()[0];
	}

	#resolveThinking(model: Model<Api> | undefined): ThinkingLevel {
		if (!model?.reasoning) return "off";
		const record = this.#ctx.catalog.get(this.session);
		const wanted = (record?.thinkingLevel ??
			this.#ctx.settings.value.defaultThinkingLevel ??
			"medium") as ThinkingLevel;
		return clampThinkingLevel(model, wanted) as ThinkingLevel;
	}
}
