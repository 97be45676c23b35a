import { ProtocolError } from "../../protocol/codes.ts";
import { maySeeSession } from "../../server/objects/principal.ts";
import type { ServerContext, ServerPlugin } from "../../server/plugin.ts";
import {
	type AckReturnedArgs,
	type ChatInput,
	type ConfigureArgs,
	chatContract,
	type DequeueArgs,
	type PageArgs,
	type SendArgs,
} from "./contract.ts";
import { Conversation } from "./conversation.ts";

interface Slot {
	readonly conversation: Conversation;
	readonly release: () => void;
	holders: number;
}

/** Live conversations: opened by the first client, kept while someone watches or a run is going. */
class Conversations {
	#ctx: ServerContext;
	#slots = new Map<string, Slot>();

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
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
			const conversation = new Conversation(this.#ctx, held.store, input.session, input.conversation);
			slot = { conversation, release: held.release, holders: 0 };
			this.#slots.set(key, slot);
		}
		slot.holders++;
		return slot;
	}

	releaseOne(input: ChatInput, slot: Slot): void {
		slot.holders--;
		this.#maybeDrop(`${input.session}/${input.conversation}`, slot);
	}

	#maybeDrop(key: string, slot: Slot): void {
		if (slot.holders > 0 || slot.conversation.busy || this.#slots.get(key) !== slot) return;
		this.#slots.delete(key);
		slot.release();
	}

	async close(): Promise<void> {
		await Promise.all([...this.#slots.values()].map((s) => s.conversation.shutdown()));
		for (const slot of this.#slots.values()) slot.release();
		this.#slots.clear();
	}
}

export function chatPlugin(): ServerPlugin {
	let live: Conversations | null = null;
	return {
		name: "chat",
		register(ctx) {
			const conversations = new Conversations(ctx);
			live = conversations;
			ctx.host.serve(chatContract, {
				open(raw, { principal }) {
					const input = raw as ChatInput;
					if (!maySeeSession(principal, input.session))
						throw new ProtocolError("forbidden", "this session is not shared with you");
					const slot = conversations.acquire(input);
					const c = slot.conversation;
					let released = false;
					return {
						state: c.live,
						call(method, args, call) {
							const who = call.principal;
							switch (method) {
								case "send":
									return { status: c.send(args as typeof SendArgs.infer, who) };
								case "stop":
									return c.stop(who);
								case "dequeue":
									return c.dequeue((args as typeof DequeueArgs.infer).id, who);
								case "dequeueOwn":
									return c.dequeueOwn(who);
								case "configure":
									return c.configure(args as typeof ConfigureArgs.infer);
								case "page": {
									const a = args as typeof PageArgs.infer;
									return c.page(a.beforeSeq, a.limit);
								}
								case "ackReturned":
									return c.ackReturned((args as typeof AckReturnedArgs.infer).id, who);
							}
							throw new ProtocolError("unknown_method");
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
