/**
 * Server-internal events between plugins, so no plugin imports another. The core declares its own events
 * here; a plugin that emits one of its own adds it to `ServerEvents` by declaration merging, in its folder:
 *
 *     declare module "../../server/events.ts" {
 *         interface ServerEvents { "notes.added": { session: string; note: string } }
 *     }
 */
export interface ServerEvents {
	/** A run, a compaction or a command started (true) or ended (false) in a session. */
	"session.busy": { session: string; busy: boolean };
	/** A session's row changed (its title, model, a new session): its catalog row is worth publishing again. */
	"session.activity": { session: string };
	/** Someone has a conversation of this session open (or the last one closed it): live facts are worth watching. */
	"session.watched": { session: string; watched: boolean };
	/**
	 * A session was cloned (pi's /clone): `to` holds the entries of `from`'s conversations now, and each plugin
	 * copies its own data of `from` into `to` as it hears this (its handlers run before the clone is given back).
	 */
	"session.cloned": { from: string; to: string };
	/** What is usable changed (a sign-in, an edited models.json): the model catalog was read again. */
	"models.changed": {};
	/** A machine could not be reached (`trouble` says why), or a test reached it again (null). */
	"env.connection": { name: string; trouble: string | null };
}

export type ServerEventName = keyof ServerEvents;

/** One event as it travels: its name as `type`, with its fields. */
export type ServerEvent<K extends ServerEventName = ServerEventName> = K extends ServerEventName
	? { readonly type: K } & ServerEvents[K]
	: never;

type Handler<E> = (event: E) => void;

export class EventBus {
	#handlers = new Map<ServerEventName, Set<Handler<ServerEvent>>>();

	on<K extends ServerEventName>(type: K, handler: Handler<ServerEvent<K>>): () => void {
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
