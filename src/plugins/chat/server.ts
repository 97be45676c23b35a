import { ProtocolError } from "../../protocol/codes.ts";
import type { UsageTotals } from "../../protocol/common.ts";
import { maySeeSession } from "../../server/objects/principal.ts";
import type { ServerContext, ServerPlugin } from "../../server/plugin.ts";
import { checkDirectory } from "../../server/session-directory.ts";
import type { StoredEntry } from "../../server/store/session-store.ts";
import { type ChatInput, chatContract } from "./contract.ts";
import { Conversation } from "./conversation.ts";
import { addFileRoutes } from "./file-routes.ts";
import { goneDirectory, refuseInGoneDirectory, showGoneDirectory } from "./gone-directory.ts";
import { acquireOrReport, retryProviderCredentials, retrySessionOpen } from "./run-notices.ts";
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
	}
}

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
			const conversation = new Conversation(this.#ctx, held.store, input.session, input.conversation, this.#uploads);
			slot = { conversation, release: held.release, holders: 0 };
			this.#slots.set(key, slot);
			this.#ctx.bus.emit({ type: "session.watched", session: input.session, watched: true });
		}
		slot.holders++;
		return slot;
	}

	/** A child session holding this conversation's entries before `beforeSeq` (a user message), or all of them. */
	fork(input: ChatInput, beforeSeq: number | undefined, cwd: string | undefined): { session: string } {
		const { catalog, stores, bus } = this.#ctx;
		const record = catalog.get(input.session);
		if (!record) throw new ProtocolError("not_found", `no session ${input.session}`);
		const source = stores.hold(input.session);
		try {
			const rows: StoredEntry[] = [];
			for (let after = 0; ; ) {
				const page = source.store.since(input.conversation, after, 1000);
				rows.push(...page.entries);
				const last = page.entries.at(-1);
				if (!page.more || !last) break;
				after = last.seq;
			}
			if (beforeSeq !== undefined && !rows.some((r) => r.seq === beforeSeq && r.kind === "user")) {
				throw new ProtocolError("not_found", "no message of yours to fork from there");
			}
			const kept = beforeSeq === undefined ? rows : rows.filter((r) => r.seq < beforeSeq);
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
				target.store.appendMany(
					input.conversation,
					kept.map((r) => ({ kind: r.kind, data: r.data, author: r.author })),
				);
			} finally {
				target.release();
			}
			bus.emit({ type: "session.activity", session: created.id });
			return { session: created.id };
		} finally {
			source.release();
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

export function chatPlugin(): ServerPlugin {
	let live: Conversations | null = null;
	return {
		name: "chat",
		register(ctx) {
			const uploads = new Uploads(ctx.dataDir);
			addFileRoutes(ctx, uploads);
			retryProviderCredentials(ctx);
			retrySessionOpen(ctx);
			const conversations = new Conversations(ctx, uploads);
			live = conversations;
			ctx.host.serve(chatContract, {
				open(input, { principal }) {
					if (!maySeeSession(principal, input.session))
						throw new ProtocolError("forbidden", "this session is not shared with you");
					const slot = acquireOrReport(ctx, () => conversations.acquire(input), input.session);
					const c = slot.conversation;
					showGoneDirectory(c.live, goneDirectory(ctx, input.session));
					let released = false;
					return {
						state: c.live,
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
							shell({ command, includeInContext }, { principal }) {
								refuseInGoneDirectory(ctx, input.session, c.live, principal);
								return c.shell(command, includeInContext, principal);
							},
							fork: ({ beforeSeq, cwd }) => conversations.fork(input, beforeSeq, cwd),
							newContext: ({ handoff }) => c.newContext(handoff),
							ackReturned: ({ id }, { principal }) => c.ackReturned(id, principal),
							files: () => ({
								files: uploads.list(input.session).map(({ id, name, size, mimeType, at }) => ({
									id,
									name,
									size,
									mimeType,
									at,
								})),
							}),
						},
						release() {
							if (released) return;
							released = true;
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
