/**
 * An object that follows the open session: the plugin says which input it wants for the session and role on
 * screen (or none), and the object is opened for it, closed when the session or role no longer wants it, and
 * opened again for the next one. Plugins read the current ref and hear its changes here, instead of holding
 * refs and session listeners of their own. A lazy one (`{ lazy: true }`) is opened only when the plugin first
 * asks for it (`use()`, a panel's command, a completion): a session switch closes it, and the next use opens
 * the new session's, so switching sessions costs nothing for an object nobody used there.
 */
import type { AnyContract, InputOf, StateOf } from "../protocol/contract.ts";
import type { ObjectRef } from "../protocol/object-client.ts";
import type { OpenSession } from "./session.ts";

/** The input for the open session (and who this person is), or undefined to hold no object. */
export type InputFor<C extends AnyContract> = (session: OpenSession) => InputOf<C> | undefined;

/** Hears the current object's state: on each change, and (undefined) when another object or none takes its place. */
export type FollowListener<C extends AnyContract> = (
	state: StateOf<C> | undefined,
	ref: ObjectRef<C> | undefined,
) => void;

export interface FollowOptions {
	/** Opened at the first `use()` for each session, not when the session opens. */
	readonly lazy?: boolean;
}

export interface Followed<C extends AnyContract> {
	/** The object for the open session now; undefined when the input says none (or, lazy, before its first use). */
	readonly ref: ObjectRef<C> | undefined;
	/** The object for the open session, opened now if it is not open yet; undefined when the input says none. */
	use(): ObjectRef<C> | undefined;
	/** Its state, once the server sent it. */
	readonly state: StateOf<C> | undefined;
	onChange(listener: FollowListener<C>): () => void;
	/** Asks `inputFor` again, for a change the session's events do not announce (a plugin's own navigation). */
	refresh(): void;
	/** Stops following and closes the object. */
	close(): void;
}

type Open = <C extends AnyContract>(contract: C, input: InputOf<C>) => ObjectRef<C>;

/** Whether two inputs name the same object: the same own keys with the same values (inputs are flat records). */
function sameInput(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
	const keys = Object.keys(a);
	if (keys.length !== Object.keys(b).length) return false;
	return keys.every((key) => Object.hasOwn(b, key) && Reflect.get(a, key) === Reflect.get(b, key));
}

export class FollowedObject<C extends AnyContract> implements Followed<C> {
	readonly #open: Open;
	readonly #contract: C;
	readonly #inputFor: InputFor<C>;
	readonly #session: OpenSession;
	readonly #listeners = new Set<FollowListener<C>>();
	readonly #offSession: (() => void)[];
	readonly #lazy: boolean;
	#ref: ObjectRef<C> | undefined;
	#offRef: (() => void) | undefined;
	#closed = false;

	constructor(open: Open, session: OpenSession, contract: C, inputFor: InputFor<C>, options: FollowOptions = {}) {
		this.#open = open;
		this.#lazy = options.lazy === true;
		this.#session = session;
		this.#contract = contract;
		this.#inputFor = inputFor;
		const refresh = () => this.refresh();
		this.#offSession = [session.on("opened", refresh), session.on("closed", refresh), session.on("identity", refresh)];
		this.refresh();
	}

	get ref(): ObjectRef<C> | undefined {
		return this.#ref;
	}

	get state(): StateOf<C> | undefined {
		return this.#ref?.state;
	}

	onChange(listener: FollowListener<C>): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	use(): ObjectRef<C> | undefined {
		this.#follow(true);
		return this.#ref;
	}

	refresh(): void {
		this.#follow(!this.#lazy);
	}

	/** Keeps the object the input names now; `open`: opens it when none is open (else one not wanted is closed). */
	#follow(open: boolean): void {
		if (this.#closed) return;
		const input = this.#inputFor(this.#session);
		if (input === undefined ? this.#ref === undefined : this.#ref && sameInput(this.#ref.input, input)) return;
		if (!open && this.#ref === undefined) return;
		this.#drop();
		if (input !== undefined && open) {
			const ref = this.#open(this.#contract, input);
			this.#ref = ref;
			this.#offRef = ref.onChange((state) => {
				if (this.#ref === ref) this.#emit(state, ref);
			});
		}
		this.#emit(undefined, this.#ref);
	}

	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		for (const off of this.#offSession) off();
		this.#drop();
		this.#listeners.clear();
	}

	#drop(): void {
		this.#offRef?.();
		this.#offRef = undefined;
		this.#ref?.close();
		this.#ref = undefined;
	}

	#emit(state: StateOf<C> | undefined, ref: ObjectRef<C> | undefined): void {
		for (const listener of [...this.#listeners]) listener(state, ref);
	}
}
