import type { UserMessage } from "@earendil-works/pi-ai";
import type { Author } from "../../protocol/common.ts";
import type { QueuedRow } from "../../server/plugin.ts";
import type { QueuedInput } from "./contract.ts";
import { withContext } from "./history.ts";

/** A message sent while the agent works (or held for approval): stored, shown in the queue, not yet an entry. */
export interface Queued {
	readonly row: QueuedRow;
	readonly message: UserMessage;
	/** Held for the owner's approval: not given to the agent until accepted. */
	waiting: boolean;
	/** What plugins said of it (see `Said`), stored with it when it reaches the agent. */
	readonly said?: Said;
	/** The plugins' context as it is now: asked again when it reaches the agent (see `deliveredSaid`). */
	readonly context?: () => string | null;
}

/** What the plugins' say in a message adds to its stored entry: the model's context and the transcript's lead. */
export interface Said {
	readonly context?: string;
	readonly lead?: string;
}

export const authorIdOf = (q: Queued) => (q.row.author as Author).id;

/**
 * What plugins say of a queued message as it reaches the agent: its context made again (chat mode's context is
 * the chat since the agent last ran, which went on while the message waited), and the message the model reads
 * made with it. When the context cannot be made now, the one made at sending stands.
 */
export function deliveredSaid(q: Queued): Said {
	if (!q.context) return q.said ?? {};
	let context: string | null | undefined;
	try {
		context = q.context();
	} catch {
		context = q.said?.context;
	}
	q.message.content = withContext(q.row.text, context ?? undefined);
	return { ...(context ? { context } : {}), ...(q.said?.lead ? { lead: q.said.lead } : {}) };
}

export function asQueuedInput({ row, waiting }: Queued): QueuedInput {
	return { id: row.id, mode: row.mode, text: row.text, author: row.author as Author, at: row.at, waiting };
}

/**
 * The queued inputs of one conversation, in the order they were sent, found by id or by the agent's message
 * (when the agent takes one). Only bookkeeping: storing, showing and the agent's own queue are the
 * conversation's.
 */
export class PendingInputs {
	readonly #byId = new Map<string, Queued>();
	readonly #byMessage = new Map<UserMessage, string>();

	add(row: QueuedRow, message: UserMessage, waiting: boolean, said?: Said, context?: () => string | null): Queued {
		const queued: Queued = { row, message, waiting, ...(said ? { said } : {}), ...(context ? { context } : {}) };
		this.#byId.set(row.id, queued);
		this.#byMessage.set(message, row.id);
		return queued;
	}

	get(id: string): Queued | undefined {
		return this.#byId.get(id);
	}

	has(id: string): boolean {
		return this.#byId.has(id);
	}

	get size(): number {
		return this.#byId.size;
	}

	/** In the order sent. */
	all(): Queued[] {
		return [...this.#byId.values()];
	}

	/** What the agent may have: everything not waiting for approval. */
	ready(): Queued[] {
		return this.all().filter((q) => !q.waiting);
	}

	byAuthor(id: string): Queued[] {
		return this.all().filter((q) => authorIdOf(q) === id);
	}

	/** Takes one out (the agent delivered it, it was withdrawn, or it went back to its author). */
	take(id: string): Queued | undefined {
		const q = this.#byId.get(id);
		if (!q) return undefined;
		this.#byId.delete(id);
		this.#byMessage.delete(q.message);
		return q;
	}

	/** The input the agent just delivered, taken out; undefined for the run's own first message. */
	takeDelivered(message: UserMessage): Queued | undefined {
		const id = this.#byMessage.get(message);
		return id === undefined ? undefined : this.take(id);
	}

	clear(): void {
		this.#byId.clear();
		this.#byMessage.clear();
	}

	/** What clients see as `queue`. */
	shown(): QueuedInput[] {
		return this.all().map(asQueuedInput);
	}
}
