import { arktypeChecks } from "./arktype-checks.ts";
import { ProtocolError, type RefusalCode } from "./codes.ts";
import type { AnyContract, ArgsOf, InputOf, MethodsOf, ResultOf, StateOf } from "./contract.ts";
import { parseServerFrame, type ServerFrame } from "./frames.ts";
import { applyPatch, onlyAppends, PatchError } from "./patch.ts";
import type { Role } from "./roles.ts";
import { resultKey, type SchemaChecks, stateKey } from "./schema-checks.ts";

/**
 * The client's own "unavailable": the transport is down (or the object not open yet), so the call may be
 * tried again. A server that answers `unavailable` (no model configured) is a refusal, not this.
 */
export class ConnectionLost extends ProtocolError {
	constructor(message: string) {
		super("unavailable", message);
		this.name = "ConnectionLost";
	}
}

export type RefStatus =
	| { kind: "connecting" }
	| { kind: "live"; role: Role }
	| { kind: "refused"; code: RefusalCode; message: string }
	| { kind: "closed" };

type Listener<S> = (state: S, ref: ObjectRef<AnyContract>) => void;

interface Pending {
	resolve(value: unknown): void;
	reject(error: unknown): void;
	/** The method's result schema and its key among the precompiled validators. */
	result: { key: string; schema: (data: unknown) => unknown };
}

/** A client-side replica of one server object: its state, its status and its methods. */
export class ObjectRef<C extends AnyContract> {
	readonly contract: C;
	readonly input: InputOf<C>;
	#client: ObjectClient;
	#state: StateOf<C> | undefined;
	#status: RefStatus = { kind: "connecting" };
	#listeners = new Set<Listener<StateOf<C>>>();
	#statusListeners = new Set<(status: RefStatus) => void>();
	#ready: Promise<void>;
	#settleReady!: { resolve: () => void; reject: (e: unknown) => void };
	h = 0;

	constructor(client: ObjectClient, contract: C, input: InputOf<C>) {
		this.#client = client;
		this.contract = contract;
		this.input = input;
		this.#ready = this.#newReady();
	}

	#newReady(): Promise<void> {
		const p = new Promise<void>((resolve, reject) => {
			this.#settleReady = { resolve, reject };
		});
		p.catch(() => {});
		return p;
	}

	get state(): StateOf<C> | undefined {
		return this.#state;
	}

	get status(): RefStatus {
		return this.#status;
	}

	/** Resolves at the first snapshot; rejects if the server refused the object. */
	get ready(): Promise<void> {
		return this.#ready;
	}

	onChange(listener: Listener<StateOf<C>>): () => void {
		this.#listeners.add(listener as Listener<StateOf<C>>);
		return () => this.#listeners.delete(listener as Listener<StateOf<C>>);
	}

	onStatus(listener: (status: RefStatus) => void): () => void {
		this.#statusListeners.add(listener);
		return () => this.#statusListeners.delete(listener);
	}

	call<K extends keyof MethodsOf<C> & string>(method: K, args: ArgsOf<C, K>): Promise<ResultOf<C, K>> {
		return this.#client.call(this, method, args) as Promise<ResultOf<C, K>>;
	}

	close(): void {
		this.#client.closeRef(this);
	}

	/** @internal */
	setState(state: StateOf<C>): void {
		this.#state = state;
		for (const l of this.#listeners) l(state, this as unknown as ObjectRef<AnyContract>);
	}

	/** @internal */
	setStatus(status: RefStatus): void {
		const wasLive = this.#status.kind === "live";
		this.#status = status;
		if (status.kind === "live") this.#settleReady.resolve();
		else if (status.kind === "refused") this.#settleReady.reject(new ProtocolError(status.code, status.message));
		else if (status.kind === "connecting" && wasLive) this.#ready = this.#newReady();
		for (const l of this.#statusListeners) l(status);
	}
}

export interface ObjectClientOptions {
	/** Called for every server frame that could not be taken (shown to developers, never trusted). */
	onProtocolError?(message: string): void;
	maxFrameBytes?: number;
	/** How frames, states and results are checked: the guest passes its precompiled validators; arktype's otherwise. */
	checks?: SchemaChecks;
}

/**
 * The client end of the object protocol, transport-agnostic: feed it server frames with `receive`, give it a
 * `send` with `attach`. Every frame is validated: envelope, snapshot state against the role's variant, patched
 * state, and call results; a bad frame changes nothing.
 */
export class ObjectClient {
	#send: ((text: string) => void) | undefined;
	#refs = new Map<number, ObjectRef<AnyContract>>();
	#pending = new Map<number, Pending & { h: number }>();
	#nextHandle = 1;
	#nextCall = 1;
	#options: ObjectClientOptions;
	#checks: SchemaChecks;
	hello: { role: Role; name: string } | undefined;

	constructor(options: ObjectClientOptions = {}) {
		this.#options = options;
		this.#checks = options.checks ?? arktypeChecks;
	}

	/** A transport is up: every ref (re)opens and gets a fresh snapshot. */
	attach(send: (text: string) => void): void {
		this.#send = send;
		for (const ref of this.#refs.values()) this.#sendOpen(ref);
	}

	/** The transport went away: refs go back to connecting, pending calls fail with `unavailable`. */
	detach(): void {
		this.#send = undefined;
		this.hello = undefined;
		for (const [id, pending] of this.#pending) {
			this.#pending.delete(id);
			pending.reject(new ConnectionLost("the connection was lost"));
		}
		for (const ref of this.#refs.values()) {
			if (ref.status.kind === "live") ref.setStatus({ kind: "connecting" });
		}
	}

	get connected(): boolean {
		return this.#send !== undefined;
	}

	open<C extends AnyContract>(contract: C, input: InputOf<C>): ObjectRef<C> {
		const ref = new ObjectRef(this, contract, input);
		ref.h = this.#nextHandle++;
		this.#refs.set(ref.h, ref as unknown as ObjectRef<AnyContract>);
		if (this.#send) this.#sendOpen(ref as unknown as ObjectRef<AnyContract>);
		return ref;
	}

	closeRef(ref: ObjectRef<AnyContract>): void {
		if (this.#refs.get(ref.h) !== ref) return;
		this.#refs.delete(ref.h);
		if (ref.status.kind === "live") this.#send?.(JSON.stringify({ t: "close", h: ref.h }));
		ref.setStatus({ kind: "closed" });
		this.#failCalls(ref.h, new ProtocolError("unknown_handle", "the object was closed"));
	}

	call(ref: ObjectRef<AnyContract>, method: string, args: unknown): Promise<unknown> {
		const spec = Object.hasOwn(ref.contract.methods, method) ? ref.contract.methods[method] : undefined;
		if (!spec) return Promise.reject(new ProtocolError("unknown_method", `${ref.contract.name} has no ${method}`));
		// An object asked for on this connection and not open yet (a start's first call, a person typing right
		// after /new) takes the call at once: the server holds it until the object opened, and a refusal fails it.
		const asked = ref.status.kind === "connecting" && this.#refs.get(ref.h) === ref;
		if (!this.#send || (ref.status.kind !== "live" && !asked)) {
			return Promise.reject(new ConnectionLost(`${ref.contract.name} is not connected`));
		}
		const id = this.#nextCall++;
		return new Promise((resolve, reject) => {
			const result = { key: resultKey(ref.contract, method), schema: spec.result };
			this.#pending.set(id, { resolve, reject, result, h: ref.h });
			this.#send?.(JSON.stringify({ t: "call", h: ref.h, id, method, args: args ?? null }));
		});
	}

	/** Feeds one server frame. Never throws. */
	receive(text: string): void {
		const parsed = parseServerFrame(text, this.#options.maxFrameBytes, this.#checks);
		if (!parsed.ok) return this.#problem(`refused a server frame: ${parsed.message}`);
		this.#take(parsed.frame);
	}

	#sendOpen(ref: ObjectRef<AnyContract>): void {
		const { name, version } = ref.contract;
		ref.setStatus({ kind: "connecting" });
		this.#send?.(JSON.stringify({ t: "open", h: ref.h, object: name, version, input: ref.input }));
	}

	#take(frame: ServerFrame): void {
		switch (frame.t) {
			case "hello":
				this.hello = { role: frame.role, name: frame.name };
				return;
			case "snapshot": {
				const ref = this.#refs.get(frame.h);
				if (!ref) return;
				const variant = ref.contract.variants[frame.role];
				if (!variant) return this.#problem(`${ref.contract.name}: snapshot for a role with no variant`);
				const checked = this.#checks.check(stateKey(ref.contract, frame.role), variant.state, frame.state);
				if (!checked.ok) return this.#problem(`${ref.contract.name}: snapshot refused: ${checked.why}`);
				ref.setState(checked.value);
				ref.setStatus({ kind: "live", role: frame.role });
				return;
			}
			case "patch": {
				const ref = this.#refs.get(frame.h);
				if (ref?.status.kind !== "live") return;
				let next: unknown;
				try {
					next = applyPatch(ref.state, frame.ops);
				} catch (error) {
					const why = error instanceof PatchError ? error.message : "bad patch";
					return this.#problem(`${ref.contract.name}: patch refused: ${why}`);
				}
				if (!onlyAppends(frame.ops)) {
					const role = ref.status.role;
					const variant = ref.contract.variants[role];
					const checked = variant
						? this.#checks.check(stateKey(ref.contract, role), variant.state, next)
						: { ok: false as const, why: "no variant" };
					if (!checked.ok) return this.#problem(`${ref.contract.name}: patched state refused: ${checked.why}`);
				}
				ref.setState(next);
				return;
			}
			case "result": {
				const pending = this.#pending.get(frame.id);
				if (!pending || pending.h !== frame.h) return;
				this.#pending.delete(frame.id);
				if (!frame.ok) return pending.reject(new ProtocolError(frame.code, frame.message));
				const checked = this.#checks.check(pending.result.key, pending.result.schema, frame.value);
				if (!checked.ok) {
					this.#problem(`result refused: ${checked.why}`);
					return pending.reject(new ProtocolError("bad_frame", "the server's answer did not match the contract"));
				}
				return pending.resolve(checked.value);
			}
			case "refused": {
				const ref = frame.h === undefined ? undefined : this.#refs.get(frame.h);
				if (ref && ref.status.kind === "connecting") {
					ref.setStatus({ kind: "refused", code: frame.code, message: frame.message });
					this.#failCalls(ref.h, new ProtocolError(frame.code, frame.message));
					return;
				}
				return this.#problem(`server refused a frame: ${frame.code}: ${frame.message}`);
			}
			case "closed": {
				const ref = this.#refs.get(frame.h);
				if (!ref) return;
				this.#refs.delete(frame.h);
				ref.setStatus({ kind: "refused", code: frame.code, message: frame.message });
				this.#failCalls(ref.h, new ProtocolError(frame.code, frame.message));
				return;
			}
		}
	}

	/** Calls still unanswered on a handle that is gone fail with why it went. */
	#failCalls(h: number, error: Error): void {
		for (const [id, pending] of this.#pending) {
			if (pending.h !== h) continue;
			this.#pending.delete(id);
			pending.reject(error);
		}
	}

	#problem(message: string): void {
		this.#options.onProtocolError?.(message);
	}
}
