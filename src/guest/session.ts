/**
 * The open session as the guest's plugins see it: who this person is on the server, which session is open,
 * and the facts of its row. Plugins do not call each other when these change; they listen for the change.
 */
import type { Role } from "../protocol/roles.ts";
import type { ReadingAnchor } from "./snapshot.ts";

/** Who the server says this person is: their role, the id it stamps on what they author, their name. */
export interface Identity {
	readonly role: Role;
	readonly id: string;
	readonly name: string;
	/** The session a guest was admitted to; owners see every session. */
	readonly session: string | null;
}

/** The open session's row, as the footer and the terminal's title show it. */
export interface SessionFacts {
	readonly cwd: string;
	readonly branch: string | null;
	readonly title: string;
}

/** How a session opens: with this text in the editor (a fork), or scrolled to where a reload left it. */
export interface OpenOptions {
	readonly draft?: string;
	readonly anchor?: ReadingAnchor;
}

export interface SessionEvents {
	/** The server said who this is: first, and again when an owner changes a guest's access. */
	identity: { readonly identity: Identity; readonly before: Identity | undefined };
	/** Another session is about to open in place of this one. */
	closed: { readonly id: string };
	opened: { readonly id: string; readonly previous: string | undefined } & OpenOptions;
	facts: SessionFacts;
}

type Listener<K extends keyof SessionEvents> = (event: SessionEvents[K]) => void;

export class OpenSession {
	readonly #listeners: { [K in keyof SessionEvents]: Set<Listener<K>> } = {
		identity: new Set(),
		closed: new Set(),
		opened: new Set(),
		facts: new Set(),
	};
	readonly #onError: (error: unknown) => void;
	#identity: Identity | undefined;
	#id: string | undefined;
	#facts: SessionFacts | undefined;

	/** `onError`: a listener that throws is reported there; the others still hear the change. */
	constructor(onError: (error: unknown) => void) {
		this.#onError = onError;
	}

	get identity(): Identity | undefined {
		return this.#identity;
	}

	/** The role the server admitted this person with; undefined until it says. */
	get role(): Role | undefined {
		return this.#identity?.role;
	}

	/** The open session's id; undefined until one opens. */
	get id(): string | undefined {
		return this.#id;
	}

	get facts(): SessionFacts | undefined {
		return this.#facts;
	}

	setIdentity(identity: Identity): void {
		const before = this.#identity;
		this.#identity = identity;
		this.#emit("identity", { identity, before });
	}

	/** Opens a session on the screen: the one open before (if another) closes first. */
	open(id: string, options: OpenOptions = {}): void {
		const previous = this.#id;
		if (previous && previous !== id) this.#emit("closed", { id: previous });
		this.#id = id;
		this.#emit("opened", { id, previous, ...options });
	}

	setFacts(facts: SessionFacts): void {
		this.#facts = facts;
		this.#emit("facts", facts);
	}

	on<K extends keyof SessionEvents>(kind: K, listener: Listener<K>): () => void {
		const listeners = this.#listeners[kind] as Set<Listener<K>>;
		listeners.add(listener);
		return () => listeners.delete(listener);
	}

	#emit<K extends keyof SessionEvents>(kind: K, event: SessionEvents[K]): void {
		for (const listener of [...(this.#listeners[kind] as Set<Listener<K>>)]) {
			try {
				listener(event);
			} catch (error) {
				this.#onError(error);
			}
		}
	}
}
