import type { UsageTotals } from "../protocol/common.ts";

/** Server-internal events between plugins, so no plugin imports another. */
export type ServerEvent =
	| { type: "session.busy"; session: string; busy: boolean }
	| { type: "session.activity"; session: string }
	| {
			type: "usage.changed";
			session: string;
			conversation: string;
			usage: UsageTotals;
			/** Input + output + cache tokens of this response: the context size after it. */
			contextTokens: number;
			cacheHitRate: number | null;
	  }
	/** A compaction or a fresh context: the conversation's context size is unknown until the next answer. */
	| { type: "context.reset"; session: string; conversation: string }
	/** Someone has a conversation of this session open (or the last one closed it): live facts are worth watching. */
	| { type: "session.watched"; session: string; watched: boolean }
	/** The owner turned approval mode on or off for a session's guests. */
	| { type: "sharing.approval"; session: string; on: boolean }
	/** Sign-ins changed what is usable: the model catalog is read again. */
	| { type: "models.changed" };

type Handler<E> = (event: E) => void;

export class EventBus {
	#handlers = new Map<ServerEvent["type"], Set<Handler<ServerEvent>>>();

	on<T extends ServerEvent["type"]>(type: T, handler: Handler<Extract<ServerEvent, { type: T }>>): () => void {
		let set = this.#handlers.get(type);
		if (!set) {
			set = new Set();
			this.#handlers.set(type, set);
		}
		set.add(handler as Handler<ServerEvent>);
		const handlers = set;
		return () => handlers.delete(handler as Handler<ServerEvent>);
	}

	emit(event: ServerEvent): void {
		for (const handler of this.#handlers.get(event.type) ?? []) {
			try {
				handler(event);
			} catch (error) {
				console.error(`event ${event.type} handler failed:`, error);
			}
		}
	}
}
