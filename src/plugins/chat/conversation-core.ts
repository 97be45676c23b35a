/**
 * What every job of one conversation shares: its store, the replicated state its clients see, what it is
 * doing (its activity), and the agent. Entries are stored first and shown after, in a bounded window.
 */
import { relative } from "node:path";
import type { Api, Model } from "@earendil-works/pi-ai";
import { type Author, MAIN_CONVERSATION } from "../../protocol/common.ts";
import type { PatchOp } from "../../protocol/patch.ts";
import {
	type ContextFile,
	type ConversationEngine,
	LiveState,
	loadContextFiles,
	type Principal,
	type ServerContext,
	type SessionStore,
	type StoredEntry,
} from "../../server/plugin.ts";
import { type Activity, IDLE } from "./activity.ts";
import type { ChatState } from "./contract.ts";
import { modelState, requireModel, resolveModel, resolveThinking } from "./model-choice.ts";
import { fitWindow, type StoredData, toView } from "./view.ts";

/** The first window: this many entries at most, and at most this many bytes of them. */
const WINDOW_ENTRIES = 200;
const WINDOW_BYTES = 192 * 1024;
/** The replicated window is trimmed back to this when it grows past WINDOW_ENTRIES during a long session. */
const WINDOW_KEEP = 150;
const HISTORY_PAGE = 1000;

/** What the state carries of the context files: their paths, bounded as the contract bounds them. */
function contextPaths(files: readonly ContextFile[]): string[] {
	return files.slice(0, 64).map((f) => f.path.slice(0, 4096));
}

/** Work that follows a stored message: it may fail (a full disk) without failing what was already stored. */
export function afterStored(what: string, work: () => void): void {
	try {
		work();
	} catch (error) {
		console.error(`${what} failed:`, error);
	}
}

export class ConversationCore {
	readonly ctx: ServerContext;
	readonly store: SessionStore;
	readonly session: string;
	readonly id: string;
	readonly live: LiveState<ChatState>;
	/**
	 * The agent, built from the stored entries when a run needs one. Dropped (set to null) when what the model
	 * should read changed outside a run: a compaction, a fresh context, a `!` command it should see.
	 */
	agent: ConversationEngine | null = null;
	/** The model this conversation chose for itself (`provider/id`, a subagent's), else null: the session's. */
	ownModel: string | null;
	/** The context's size after the latest answer (null: unknown, e.g. right after a compaction). */
	contextTokens: number | null = null;
	/**
	 * A `!` command's entry placed while the agent ran: the running agent does not have it, so the agent is
	 * built again from the entries before its next run.
	 */
	historyChanged = false;
	#activity: Activity = IDLE;
	/** Work beside the activity that keeps the session busy: a `!` command run while the agent works. */
	#besides = 0;
	#busyShown = false;
	/** Writes waiting for the next boundary of what runs (see `atBoundary`). */
	#waiting: (() => void)[] = [];

	constructor(ctx: ServerContext, store: SessionStore, session: string, conversation: string) {
		this.ctx = ctx;
		this.store = store;
		this.session = session;
		this.id = conversation;
		this.ownModel = store.conversationRow(conversation)?.model ?? null;
		this.#noteReplacedStore();
		const stored = store.window(conversation, WINDOW_ENTRIES);
		const window = fitWindow(stored.map(toView), WINDOW_BYTES);
		const total = store.count(conversation);
		const model = resolveModel(ctx, session, this.ownModel);
		const where = ctx.catalog.get(session);
		// Project instructions are read on this device only.
		const cwd = where?.env === "local" ? where.cwd : undefined;
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
			thinkingLevel: resolveThinking(ctx, session, model),
			compacting: null,
			shell: null,
			contextFiles: cwd ? contextPaths(loadContextFiles(cwd)) : [],
		});
	}

	/** The context files the next run's instructions include (pi lists them at start). */
	showContextFiles(files: readonly ContextFile[]): void {
		const paths = contextPaths(files);
		const now = this.live.state.contextFiles ?? [];
		if (paths.length !== now.length || paths.some((p, i) => p !== now[i])) {
			this.update([{ op: "set", path: ["contextFiles"], value: paths }]);
		}
	}

	/**
	 * The session's file was found damaged or emptied and moved aside: the conversation, now empty, says so
	 * first, naming the file that was kept. Never silently a new, empty conversation.
	 */
	#noteReplacedStore(): void {
		const replaced = this.store.replaced;
		if (!replaced || this.store.count(this.id) > 0) return;
		const kept = relative(this.ctx.dataDir, replaced.movedTo);
		const message = `This session's history could not be read (${replaced.reason}); its file was kept as ${kept} in the server's data directory. The conversation starts afresh here.`;
		afterStored("noting the damaged store", () =>
			this.store.append(this.id, { kind: "error", data: { kind: "error", message } satisfies StoredData }),
		);
	}

	/** The model that answers here now: this conversation's own (a subagent's), else the session's. */
	model(): Model<Api> | undefined {
		return resolveModel(this.ctx, this.session, this.ownModel);
	}

	/** The model that answers here, or the refusal pi gives when none can. */
	requireModel(): Model<Api> {
		return requireModel(this.ctx, this.session, this.ownModel);
	}

	get activity(): Activity {
		return this.#activity;
	}

	/** Starts `activity` (the conversation is idle), shows it with `ops`, and tells others the session is busy. */
	begin(activity: Exclude<Activity, { kind: "idle" }>, ops: PatchOp[]): void {
		if (this.#activity.kind !== "idle") throw new Error(`${activity.kind} started during ${this.#activity.kind}`);
		this.#activity = activity;
		this.update(ops);
		this.#tellBusy();
	}

	/** Back to idle: `ops` show it, what waited for a boundary is placed, and others are told if the session rests. */
	end(ops: PatchOp[]): void {
		this.#activity = IDLE;
		this.update(ops);
		this.boundary();
		this.#tellBusy();
	}

	/** Work beside the activity begins; the session is busy until the returned function is called. */
	busyBeside(): () => void {
		this.#besides++;
		this.#tellBusy();
		let done = false;
		return () => {
			if (done) return;
			done = true;
			this.#besides--;
			this.#tellBusy();
		};
	}

	get busy(): boolean {
		return this.#activity.kind !== "idle" || this.#besides > 0;
	}

	#tellBusy(): void {
		const busy = this.busy;
		if (busy === this.#busyShown) return;
		this.#busyShown = busy;
		this.ctx.bus.emit({ type: "session.busy", session: this.session, busy });
	}

	/**
	 * `place` writes an entry where it cannot split what runs: now when the conversation is idle, else at the
	 * next boundary (a turn's tool results are all in, the run or the compaction ended), in the order given.
	 */
	atBoundary(place: () => void): void {
		if (this.#activity.kind === "idle") place();
		else this.#waiting.push(place);
	}

	/** What runs reached a boundary: what waited for one is placed. */
	boundary(): void {
		for (const place of this.#waiting.splice(0)) place();
	}

	update(ops: PatchOp[]): void {
		this.live.update(ops);
	}

	/** Shows a stored entry after `before`; the replicated window stays bounded (clients page older entries). */
	show(entry: StoredEntry, before: PatchOp[] = []): void {
		this.update([...before, { op: "push", path: ["entries"], items: [toView(entry)] }]);
		const count = this.live.state.entries.length;
		if (count <= WINDOW_ENTRIES) return;
		this.update([
			{ op: "splice", path: ["entries"], start: 0, remove: count - WINDOW_KEEP, items: [] },
			{ op: "set", path: ["older"], value: true },
		]);
	}

	/** Stores an entry first, then shows it: what clients see is always already durable. */
	commit(data: StoredData, runId: string, before: PatchOp[]): void {
		this.show(this.store.append(this.id, { kind: data.kind, data, runId }), before);
	}

	allEntries(): StoredEntry[] {
		const all: StoredEntry[] = [];
		let after = 0;
		for (;;) {
			const page = this.store.since(this.id, after, HISTORY_PAGE);
			all.push(...page.entries);
			const last = page.entries[page.entries.length - 1];
			if (!page.more || !last) return all;
			after = last.seq;
		}
	}

	/** The model's context starts over (a compaction, a fresh context): its size is unknown until the next answer. */
	contextReset(): void {
		this.agent = null;
		this.contextTokens = null;
		this.ctx.bus.emit({ type: "context.reset", session: this.session, conversation: this.id });
	}

	/** After the message was stored: a failure here is logged, never the sender's error. */
	nameSessionAfter(text: string): void {
		// A subagent's conversation does not name the session.
		if (this.id !== MAIN_CONVERSATION) return;
		afterStored("naming the session", () => {
			const record = this.ctx.catalog.get(this.session);
			if (record?.title !== "") return;
			const title = text.replace(/\s+/g, " ").trim().slice(0, 80);
			if (title === "") return;
			this.ctx.catalog.update(this.session, { title });
			this.ctx.bus.emit({ type: "session.activity", session: this.session });
		});
	}
}

export function authorOf(principal: Principal): Author {
	return { id: principal.id, name: principal.name, role: principal.role };
}
