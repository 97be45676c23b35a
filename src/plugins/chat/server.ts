import { ProtocolError } from "../../protocol/codes.ts";
import type { Author, UsageTotals } from "../../protocol/common.ts";
import {
	checkDirectory,
	isOwner,
	maySeeSession,
	PLUGIN_ENTRY_TYPE,
	type PluginEntry,
	type ServerContext,
	type ServerPlugin,
	type SessionStore,
	type StoredEntry,
} from "../../server/plugin.ts";
import { type ChatInput, chatContract, MAIN_CONVERSATION, MAX_PREVIEW_CHARS } from "./contract.ts";
import { Conversation } from "./conversation.ts";
import { addFileRoutes } from "./file-routes.ts";
import { goneDirectory, refuseInGoneDirectory, showGoneDirectory } from "./gone-directory.ts";
import { GuestChatState } from "./guest-state.ts";
import { acquireOrReport, retryProviderCredentials, retrySessionOpen } from "./run-notices.ts";
import { storedSchemas } from "./stored-data.ts";
import type { TaskResult } from "./tasks.ts";
import { Uploads } from "./uploads.ts";

declare module "../../server/events.ts" {
	interface ServerEvents {
		/** An answer's usage, for the footer's numbers. */
		"usage.changed": {
			session: string;
			conversation: string;
			usage: UsageTotals;
			/**
			 * Input + output + cache tokens of this response: the context size after it. Null when the answer failed
			 * or was stopped: it measured nothing, and the last known size (and cache hit rate) stands.
			 */
			contextTokens: number | null;
			cacheHitRate: number | null;
		};
		/** A compaction or a fresh context: the conversation's context size is unknown until the next answer. */
		"context.reset": { session: string; conversation: string };
		/** A run of the agent started (`outcome` null) or ended, in one conversation. */
		"chat.run": { session: string; conversation: string; outcome: "done" | "aborted" | "error" | null };
	}
}

/** A task for a conversation of a session: its first (or next) message, given by another conversation's agent. */
export interface ChatTask {
	readonly session: string;
	readonly conversation: string;
	readonly text: string;
	/** Aborts the task's runs (the agent that gave it was stopped). */
	readonly signal: AbortSignal;
	/** One line of what the conversation is doing, each time it changes. */
	onActivity(line: string): void;
}

/** The chat's conversations as other plugins may use them: a subagent's conversation is given its task here. */
export interface ChatTasks {
	/** Runs the task and resolves when the conversation's agent has nothing more to do. */
	run(task: ChatTask): Promise<TaskResult>;
}

declare module "../../server/services.ts" {
	interface ServerServices {
		chatTasks: ChatTasks;
		/** Adds a plugin's entry to a conversation: stored, then shown to everyone watching it. */
		conversationEntries: {
			append(session: string, conversation: string, entry: PluginEntry, author: Author | null): void;
		};
	}
}

/** Every entry of one conversation, oldest first. */
function allEntries(store: SessionStore, conversation: string): StoredEntry[] {
	const rows: StoredEntry[] = [];
	for (let after = 0; ; ) {
		const page = store.since(conversation, after, 1000);
		rows.push(...page.entries);
		const last = page.entries.at(-1);
		if (!page.more || !last) return rows;
		after = last.seq;
	}
}

/** An entry as a fork or clone stores it again. */
const copied = (r: StoredEntry) => ({ kind: r.kind, data: r.data, author: r.author });

interface Slot {
	readonly conversation: Conversation;
	readonly release: () => void;
	holders: number;
}

/** Live conversations: opened by the first client, kept while someone watches or a run is going. */
class Conversations {
	#ctx: ServerContext;
	#uploads: Uploads;
	#slots = new Map<string, Slot>();

	constructor(ctx: ServerContext, uploads: Uploads) {
		this.#ctx = ctx;
		this.#uploads = uploads;
		ctx.bus.on("sharing.approval", ({ session, on }) => {
			if (on) return;
			for (const slot of this.#slots.values())
				if (slot.conversation.session === session) slot.conversation.releaseWaiting();
		});
		// A sign-in or an edited models.json: each open conversation shows (and uses) the model it resolves to now.
		ctx.bus.on("models.changed", () => {
			for (const slot of this.#slots.values()) slot.conversation.followModels();
		});
		ctx.bus.on("session.busy", ({ session, busy }) => {
			if (busy) return;
			for (const [key, slot] of this.#slots) {
				if (slot.conversation.session === session) this.#maybeDrop(key, slot);
			}
		});
	}

	acquire(input: ChatInput): Slot {
		const key = `${input.session}/${input.conversation}`;
		let slot = this.#slots.get(key);
		if (!slot) {
			if (!this.#ctx.catalog.get(input.session)) throw new ProtocolError("not_found", `no session ${input.session}`);
			const held = this.#ctx.stores.hold(input.session);
			// A session's conversations are its main one and those its agents started: no one makes up another.
			if (input.conversation !== MAIN_CONVERSATION && !held.store.conversationRow(input.conversation)) {
				held.release();
				throw new ProtocolError("not_found", `no conversation ${input.conversation} in this session`);
			}
			const conversation = new Conversation(this.#ctx, held.store, input.session, input.conversation, this.#uploads);
			slot = { conversation, release: held.release, holders: 0 };
			this.#slots.set(key, slot);
			this.#ctx.bus.emit({ type: "session.watched", session: input.session, watched: true });
		}
		slot.holders++;
		return slot;
	}

	/**
	 * A child session holding this conversation's entries before `beforeSeq` (a user message), or, without it, a
	 * clone of the whole session: every conversation's entries, the files sent to it, and what other plugins
	 * keep of it (they copy their own on `session.cloned`).
	 */
	fork(input: ChatInput, beforeSeq: number | undefined, cwd: string | undefined): { session: string } {
		const { catalog, stores, bus } = this.#ctx;
		const record = catalog.get(input.session);
		if (!record) throw new ProtocolError("not_found", `no session ${input.session}`);
		if (input.conversation !== MAIN_CONVERSATION) {
			throw new ProtocolError("conflict", "Forking a subagent conversation is not supported yet");
		}
		const clone = beforeSeq === undefined;
		// A clone is the session as it stands: what runs now would be half in it.
		if (clone && this.#busy(input.session)) throw new ProtocolError("conflict", "Stop the current run before cloning");
		const source = stores.hold(input.session);
		try {
			const rows = allEntries(source.store, input.conversation);
			if (beforeSeq !== undefined && !rows.some((r) => r.seq === beforeSeq && r.kind === "user")) {
				throw new ProtocolError("not_found", "no message of yours to fork from there");
			}
			const kept = beforeSeq === undefined ? rows : rows.filter((r) => r.seq < beforeSeq);
			// This device's directory is checked here; on another machine a fork stays where its session is.
			if (cwd !== undefined && record.env !== "local") {
				throw new ProtocolError("bad_args", `Fork here, then /cd: the session runs on ${record.env}`);
			}
			if (cwd !== undefined) checkDirectory(cwd);
			const created = catalog.create({
				cwd: cwd ?? record.cwd,
				env: record.env,
				title: record.title,
				model: record.model,
				thinkingLevel: record.thinkingLevel,
				parent: record.id,
			});
			const target = stores.hold(created.id);
			try {
				target.store.appendMany(input.conversation, kept.map(copied));
				if (clone) {
					for (const id of source.store.conversations()) {
						if (id !== MAIN_CONVERSATION) target.store.appendMany(id, allEntries(source.store, id).map(copied));
					}
				}
			} finally {
				target.release();
			}
			if (clone) {
				this.#uploads.copy(input.session, created.id);
				bus.emit({ type: "session.cloned", from: input.session, to: created.id });
			}
			bus.emit({ type: "session.activity", session: created.id });
			return { session: created.id };
		} finally {
			source.release();
		}
	}

	/** Something runs in one of the session's conversations (a run, a compaction, a `!` command). */
	#busy(session: string): boolean {
		return [...this.#slots.values()].some((slot) => slot.conversation.session === session && slot.conversation.busy);
	}

	/** Holds the conversation while its task runs, so it stays live (and watched) to the end. */
	async task(t: ChatTask): Promise<TaskResult> {
		const input = { session: t.session, conversation: t.conversation };
		const slot = this.acquire(input);
		try {
			return await slot.conversation.task(t.text, t.signal, (line) => t.onActivity(line));
		} finally {
			this.releaseOne(input, slot);
		}
	}

	releaseOne(input: ChatInput, slot: Slot): void {
		slot.holders--;
		this.#maybeDrop(`${input.session}/${input.conversation}`, slot);
	}

	#maybeDrop(key: string, slot: Slot): void {
		if (slot.holders > 0 || slot.conversation.busy || this.#slots.get(key) !== slot) return;
		this.#slots.delete(key);
		slot.release();
		const session = slot.conversation.session;
		if (![...this.#slots.values()].some((s) => s.conversation.session === session)) {
			this.#ctx.bus.emit({ type: "session.watched", session, watched: false });
		}
	}

	async close(): Promise<void> {
		await Promise.all([...this.#slots.values()].map((s) => s.conversation.shutdown()));
		const sessions = new Set<string>();
		for (const slot of this.#slots.values()) {
			slot.release();
			sessions.add(slot.conversation.session);
		}
		this.#slots.clear();
		for (const session of sessions) this.#ctx.bus.emit({ type: "session.watched", session, watched: false });
	}
}

/** The start of a sent file as text, or null when it is binary (a NUL, or bytes that are not UTF-8). */
function previewOf(uploads: Uploads, session: string, id: string): { text: string | null; truncated: boolean } {
	const file = uploads.read(session, id);
	if (!file) throw new ProtocolError("not_found", "no such file");
	const head = file.bytes.subarray(0, MAX_PREVIEW_CHARS);
	const truncated = file.bytes.byteLength > head.byteLength;
	if (head.includes(0)) return { text: null, truncated };
	try {
		// A cut may split the last character: only the whole ones before it must be UTF-8.
		new TextDecoder("utf-8", { fatal: true }).decode(truncated ? head.subarray(0, head.byteLength - 4) : head);
	} catch {
		return { text: null, truncated };
	}
	const text = new TextDecoder().decode(head);
	return { text: text.length > MAX_PREVIEW_CHARS ? text.slice(0, MAX_PREVIEW_CHARS) : text, truncated };
}

/** Who sent a file the agent offered (no person: nobody may attach it, and it counts in no guest's quota). */
const AGENT = "agent";

declare module "../../server/services.ts" {
	interface ServerServices {
		/** Offers a file to the people in a session: kept with its uploads, listed by /download. */
		sessionFiles: {
			offer(session: string, name: string, bytes: Uint8Array): { id: string; name: string; size: number };
		};
	}
}

export function chatPlugin(): ServerPlugin {
	let live: Conversations | null = null;
	return {
		name: "chat",
		checkedSchemas: storedSchemas,
		register(ctx) {
			const uploads = new Uploads(ctx.dataDir);
			addFileRoutes(ctx, uploads);
			// Files the agent sends (another plugin's tool) join the uploads: /download lists them and serves them.
			ctx.services.provide("sessionFiles", {
				offer: (session, name, bytes) => {
					const meta = uploads.save(session, name, bytes, AGENT);
					return { id: meta.id, name: meta.name, size: meta.size };
				},
			});
			retryProviderCredentials(ctx);
			retrySessionOpen(ctx);
			const conversations = new Conversations(ctx, uploads);
			live = conversations;
			ctx.services.provide("chatTasks", { run: (task) => conversations.task(task) });
			ctx.services.provide("conversationEntries", {
				append(session, conversation, entry, author) {
					if (!PLUGIN_ENTRY_TYPE.test(entry.type)) throw new Error(`bad entry type ${entry.type}`);
					const slot = conversations.acquire({ session, conversation });
					try {
						slot.conversation.note(entry, author);
					} finally {
						conversations.releaseOne({ session, conversation }, slot);
					}
				},
			});
			ctx.host.serve(chatContract, {
				open(input, { principal }) {
					if (!maySeeSession(principal, input.session))
						throw new ProtocolError("forbidden", "this session is not shared with you");
					const slot = acquireOrReport(ctx, () => conversations.acquire(input), input.session);
					const c = slot.conversation;
					showGoneDirectory(c.live, goneDirectory(ctx, input.session));
					// A guest's copy leaves out what their role may not see (a viewer: the server's paths).
					const guest = isOwner(principal) ? null : new GuestChatState(c.live, principal.role);
					let released = false;
					return {
						state: guest?.live ?? c.live,
						methods: {
							send(args, { principal }) {
								refuseInGoneDirectory(ctx, input.session, c.live, principal);
								return { status: c.send(args, principal) };
							},
							stop: (_args, { principal }) => c.stop(principal),
							dequeue: ({ id }, { principal }) => c.dequeue(id, principal),
							dequeueOwn: (_args, { principal }) => c.dequeueOwn(principal),
							configure: (args) => c.configure(args),
							page: ({ beforeSeq, limit }) => c.page(beforeSeq, limit),
							approve: ({ id }) => c.approve(id),
							reject: ({ id }) => c.reject(id),
							compact: ({ instructions }, { principal }) => c.compact(instructions, principal),
							shell({ command, includeInContext, requestId }, { principal }) {
								refuseInGoneDirectory(ctx, input.session, c.live, principal);
								return c.shell(command, includeInContext, requestId, principal);
							},
							fork: ({ beforeSeq, cwd }) => conversations.fork(input, beforeSeq, cwd),
							newContext: ({ handoff }) => c.newContext(handoff),
							ackReturned: ({ id }, { principal }) => c.ackReturned(id, principal),
							files: () => ({
								files: uploads.list(input.session).map(({ id, name, size, mimeType, at, by }) => ({
									id,
									name,
									size,
									mimeType,
									at,
									...(by === AGENT ? { agent: true } : {}),
								})),
							}),
							preview: ({ id }) => previewOf(uploads, input.session, id),
							image: ({ seq, index }) => c.image(seq, index),
						},
						principalChanged: (next) => guest?.setRole(next.role),
						release() {
							if (released) return;
							released = true;
							guest?.release();
							conversations.releaseOne(input, slot);
						},
					};
				},
			});
		},
		async close() {
			await live?.close();
			live = null;
		},
	};
}
