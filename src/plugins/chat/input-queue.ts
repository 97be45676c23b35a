/**
 * The conversation's queue as everyone sees it: messages sent while the agent works (or held for the owner's
 * approval), shown in `queue`, handed to the agent in order, or given back to their authors through `returned`.
 */
import type { UserMessage } from "@earendil-works/pi-ai";
import type { PatchOp } from "../../protocol/patch.ts";
import type { QueuedRow } from "../../server/plugin.ts";
import type { ConversationCore } from "./conversation-core.ts";
import { asQueuedInput, authorIdOf, PendingInputs, type Queued, type Said } from "./pending-inputs.ts";

export class InputQueue {
	readonly #core: ConversationCore;
	readonly #pending = new PendingInputs();

	#waiting = 0;

	constructor(core: ConversationCore) {
		this.#core = core;
		// Guests' messages waiting for approval are a notice for the owner until none waits (any queue change).
		core.live.subscribe(() => this.#noteWaiting());
	}

	#noteWaiting(): void {
		const waiting = this.#core.live.state.queue.filter((q) => q.waiting).length;
		if (waiting === this.#waiting) return;
		const { ctx, session, id } = this.#core;
		const key = `approval:${session}:${id}`;
		const source = `session:${session}`;
		if (waiting > this.#waiting) {
			const title = ctx.catalog.get(session)?.title || "a session";
			const what = waiting === 1 ? "A guest's message waits" : `${waiting} guests' messages wait`;
			ctx.log.info(source, `${what} for your approval in “${title}” (/share)`, { key });
		} else if (waiting === 0) ctx.log.resolve(source, key, "no guest's message waits for approval");
		this.#waiting = waiting;
	}

	get(id: string): Queued | undefined {
		return this.#pending.get(id);
	}

	get size(): number {
		return this.#pending.size;
	}

	/** In the order sent. */
	all(): Queued[] {
		return this.#pending.all();
	}

	/** What the agent may have: everything not waiting for approval. */
	ready(): Queued[] {
		return this.#pending.ready();
	}

	byAuthor(id: string): Queued[] {
		return this.#pending.byAuthor(id);
	}

	/** A stored input, shown in the queue; the agent gets it at once unless it waits for the owner's approval. */
	add(row: QueuedRow, message: UserMessage, waiting: boolean, said?: Said, context?: () => string | null): void {
		const queued = this.#pending.add(row, message, waiting, said, context);
		if (!waiting) {
			if (row.mode === "steer") this.#core.agent?.steer(message);
			else this.#core.agent?.followUp(message);
		}
		this.#core.update([{ op: "push", path: ["queue"], items: [asQueuedInput(queued)] }]);
	}

	/** Out of the queue (withdrawn, or gone back to its author); the agent is told what is left. */
	forget(ids: readonly string[]): void {
		for (const id of ids) this.#pending.take(id);
		this.#core.update([{ op: "set", path: ["queue"], value: this.#pending.shown() }]);
		this.requeue();
	}

	/** Out of the queue and into `returned`, where its author's client takes it back into their editor. */
	returnToAuthor(q: Queued): void {
		this.forget([q.row.id]);
		this.#core.update([{ op: "push", path: ["returned"], items: [returnedOf(q)] }]);
	}

	/** Everything leaves the queue; `giveBack` (others' inputs) goes back to their authors. */
	clear(giveBack: readonly string[]): void {
		const returned = giveBack.flatMap((id) => {
			const q = this.#pending.get(id);
			return q ? [returnedOf(q)] : [];
		});
		this.#pending.clear();
		const ops: PatchOp[] = [{ op: "set", path: ["queue"], value: [] }];
		for (const r of returned) ops.push({ op: "push", path: ["returned"], items: [r] });
		this.#core.update(ops);
	}

	/** The queued input leaves the queue to start the next run; the patch that shows it gone. */
	take(q: Queued): PatchOp[] {
		this.#pending.take(q.row.id);
		return this.#unqueue(q);
	}

	/** The queued input the agent just took, out of the queue, and the patch that shows it gone. */
	delivered(message: UserMessage): { q: Queued; unqueue: PatchOp[] } | undefined {
		const q = this.#pending.takeDelivered(message);
		return q && { q, unqueue: this.#unqueue(q) };
	}

	#unqueue(q: Queued): PatchOp[] {
		const index = this.#core.live.state.queue.findIndex((item) => item.id === q.row.id);
		return index >= 0 ? [{ op: "splice", path: ["queue"], start: index, remove: 1, items: [] }] : [];
	}

	/** The owner accepted a waiting input while the agent works: it takes its turn in the queue. */
	accept(q: Queued): void {
		q.waiting = false;
		this.requeue();
		const index = this.#core.live.state.queue.findIndex((item) => item.id === q.row.id);
		if (index >= 0) this.#core.update([{ op: "set", path: ["queue", index, "waiting"], value: false }]);
	}

	/** Tells the agent what is queued now, in order; waiting messages are not the agent's until approved. */
	requeue(): void {
		const ready = this.#pending.ready();
		this.#core.agent?.requeue(
			ready.filter((q) => q.row.mode === "steer").map((q) => q.message),
			ready.filter((q) => q.row.mode === "followUp").map((q) => q.message),
		);
	}
}

/** A queued input as its author's client takes it back. */
export function returnedOf(q: Queued) {
	return { id: q.row.id, authorId: authorIdOf(q), texts: [q.row.text], at: Date.now() };
}
