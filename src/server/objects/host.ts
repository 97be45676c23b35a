import { type } from "../../protocol/ark.ts";
import { CLOSE_CODES, ProtocolError, type RefusalCode, toProtocolError } from "../../protocol/codes.ts";
import { type AnyContract, acceptsVersion, mayCall, type VariantSpec, variantFor } from "../../protocol/contract.ts";
import { type ClientFrame, MAX_FRAME_BYTES, PROTOCOL_VERSION, parseClientFrame } from "../../protocol/frames.ts";
import { argsKey, inputKey, resultKey, stateKey } from "../../protocol/schema-checks.ts";
import { checkWire, checkWith, serverChecks } from "../checks.ts";
import { StoreFullError } from "../store/errors.ts";
import { FrameBudget, frameCost, GuestBudgets } from "./frame-budget.ts";
import type { CallContext, ObjectImpl, OpenedObject } from "./object-impl.ts";
import { isOwner, type Principal } from "./principal.ts";

/** What the client is told: a refusal as thrown, a full disk in words a person can act on, else "internal". */
function refusalOf(error: unknown): ProtocolError {
	if (error instanceof StoreFullError) return new ProtocolError("unavailable", error.message);
	return toProtocolError(error);
}

/** Why the server ended a connection: its socket's close code and reason (at most 123 bytes). */
export interface Ending {
	readonly code: number;
	readonly reason: string;
}

const ACCESS_ENDED: Ending = { code: CLOSE_CODES.accessEnded, reason: "access ended" };
/** The socket is closed too, so the client reconnects rather than waiting on a connection that is gone. */
const SEND_FAILED: Ending = { code: 1011, reason: "the server could not send" };

export interface Transport {
	send(text: string): void;
	/** The connection ended: `why` when the server ended it, nothing when its socket closed first. */
	close?(why?: Ending): void;
}

interface Served {
	readonly contract: AnyContract;
	readonly impl: ObjectImpl;
}

export interface ConnectionLimits {
	maxFrameBytes: number;
	maxHandles: number;
	/**
	 * Token bucket: frames per second and burst (a large frame costs more than one, `frameCost`). An owner's
	 * connections each have one and are never closed for their pace; a guest has one for all their connections.
	 */
	framesPerSecond: number;
	burst: number;
}

const DEFAULT_LIMITS: ConnectionLimits = {
	maxFrameBytes: MAX_FRAME_BYTES,
	maxHandles: 256,
	framesPerSecond: 200,
	burst: 400,
};

/** The registry of served contracts; one per server. */
export class ObjectHost {
	#reprincipalListeners = new Set<
		(filter: (p: Principal) => boolean, next: (p: Principal) => Principal | null) => void
	>();
	/**
	 * Where the host's own failures go: the server's log (a full disk becomes a notice for the owner); standard
	 * error until the server sets it.
	 */
	problem: (text: string, error?: unknown, notice?: { key: string }) => void = (text, error) =>
		console.error(text, ...(error === undefined ? [] : [error]));
	#served = new Map<string, Served>();
	#connections = new Set<Connection>();
	#guestBudgets = new GuestBudgets();
	#presence = new Set<() => void>();
	#nextConnection = 1;

	serve<C extends AnyContract>(contract: C, impl: ObjectImpl<C>): void {
		if (this.#served.has(contract.name)) throw new Error(`object ${contract.name} is served twice`);
		this.#served.set(contract.name, { contract, impl });
	}

	lookup(name: string): Served | undefined {
		return this.#served.get(name);
	}

	contracts(): AnyContract[] {
		return [...this.#served.values()].map((s) => s.contract);
	}

	/** `transport.close` is called when the connection ends (e.g. the principal was signed out), with why. */
	connect(principal: Principal, transport: Transport, limits: Partial<ConnectionLimits> = {}): Connection {
		const merged = { ...DEFAULT_LIMITS, ...limits };
		const rate = { perSecond: merged.framesPerSecond, burst: merged.burst };
		// Owners are not limited per principal: a runaway client of theirs cannot lock them out of a new connection.
		const owner = isOwner(principal);
		const budget = owner ? new FrameBudget(rate) : this.#guestBudgets.hold(principal.id, rate);
		const connection = new Connection(
			this,
			principal,
			transport.send,
			merged,
			{ budget, perPrincipal: !owner },
			`c${this.#nextConnection++}`,
			(why) => {
				this.#connections.delete(connection);
				if (!owner) this.#guestBudgets.release(principal.id);
				transport.close?.(why);
				this.#presenceChanged();
			},
		);
		this.#connections.add(connection);
		this.#presenceChanged();
		connection.greet();
		return connection;
	}

	/** Who is connected now, one entry per connection. */
	connectedPrincipals(): Principal[] {
		return [...this.#connections].map((c) => c.principal);
	}

	/** Called whenever someone connects, leaves or has their access changed. */
	onPresence(listener: () => void): () => void {
		this.#presence.add(listener);
		return () => this.#presence.delete(listener);
	}

	#presenceChanged(): void {
		for (const listener of this.#presence) {
			try {
				listener();
			} catch (error) {
				this.problem("presence listener failed", error);
			}
		}
	}

	/** Re-evaluates every connection of principals matching `filter` (e.g. a guest demoted or removed). */
	reprincipal(filter: (p: Principal) => boolean, next: (p: Principal) => Principal | null): void {
		for (const connection of this.#connections) {
			if (filter(connection.principal)) connection.setPrincipal(next(connection.principal));
		}
		for (const listener of this.#reprincipalListeners) listener(filter, next);
		this.#presenceChanged();
	}

	/** Told of every `reprincipal`: what else a principal holds (the server's byte relays) follows it too. */
	onReprincipal(listener: (filter: (p: Principal) => boolean, next: (p: Principal) => Principal | null) => void): void {
		this.#reprincipalListeners.add(listener);
	}
}

interface OpenHandle {
	readonly served: Served;
	readonly object: OpenedObject;
	readonly unsubscribe: () => void;
}

/** One client's frames: open, call and close objects, each checked against its contract and the principal. */
export class Connection {
	#host: ObjectHost;
	#principal: Principal;
	#send: (text: string) => void;
	#limits: ConnectionLimits;
	#handles = new Map<number, OpenHandle>();
	/** Handles whose object is still opening, each settling once its snapshot or refusal went out. */
	#opening = new Map<number, Promise<void>>();
	#budget: FrameBudget;
	/** Whether the budget is the principal's, shared with their other connections (a guest's). */
	#perPrincipal: boolean;
	#closed = false;
	#onClose: (why?: Ending) => void;
	readonly id: string;

	constructor(
		host: ObjectHost,
		principal: Principal,
		send: (text: string) => void,
		limits: ConnectionLimits,
		frames: { budget: FrameBudget; perPrincipal: boolean },
		id: string,
		onClose: (why?: Ending) => void,
	) {
		this.#host = host;
		this.#principal = principal;
		this.#send = send;
		this.#limits = limits;
		this.#budget = frames.budget;
		this.#perPrincipal = frames.perPrincipal;
		this.id = id;
		this.#onClose = onClose;
	}

	/** The first frame, once the host holds the connection (a send that fails closes it like any other). */
	greet(): void {
		this.#emit({ t: "hello", protocol: PROTOCOL_VERSION, role: this.#principal.role, name: this.#principal.name });
	}

	get principal(): Principal {
		return this.#principal;
	}

	get openHandles(): number {
		return this.#handles.size;
	}

	/**
	 * Feeds one frame from the client. Never throws, and the promise never rejects: a bad frame is answered with
	 * `refused`, one past the budget is dropped (a guest who goes on regardless is closed).
	 */
	receive(frame: string | Uint8Array): Promise<void> {
		if (this.#closed) return Promise.resolve();
		const size = typeof frame === "string" ? frame.length : frame.byteLength;
		if (!this.#spend(frameCost(size, this.#limits.maxFrameBytes + 1))) return Promise.resolve();
		if (typeof frame !== "string") {
			this.#refuse("bad_frame", "frames are text");
			return Promise.resolve();
		}
		try {
			const parsed = parseClientFrame(frame, this.#limits.maxFrameBytes, serverChecks);
			if (!parsed.ok) {
				this.#refuse(parsed.code, parsed.message);
				return Promise.resolve();
			}
			return this.#dispatch(parsed.frame).catch((error) => this.#failed(error));
		} catch (error) {
			this.#failed(error);
			return Promise.resolve();
		}
	}

	/** The principal changed (demoted, removed): handles the new role may not hold are closed. */
	setPrincipal(next: Principal | null): void {
		if (next === null) {
			this.close(ACCESS_ENDED);
			return;
		}
		this.#principal = next;
		for (const [h, handle] of this.#handles) {
			if (variantFor(handle.served.contract, next.role) === null) {
				this.#release(h);
				this.#emit({ t: "closed", h, code: "forbidden", message: "your access no longer includes this object" });
			} else {
				try {
					handle.object.principalChanged?.(next);
				} catch (error) {
					this.#host.problem(`${handle.served.contract.name}: principalChanged failed`, error);
				}
			}
		}
	}

	/** `why`: the server ends the connection (its socket is closed with it); none when the socket closed first. */
	close(why?: Ending): void {
		if (this.#closed) return;
		this.#closed = true;
		for (const h of [...this.#handles.keys()]) this.#release(h);
		this.#onClose(why);
	}

	#ctx(): CallContext {
		return { principal: this.#principal, connectionId: this.id };
	}

	/** Whether a frame of this cost may be handled; one that may not is refused, or the connection closed. */
	#spend(cost: number): boolean {
		const spent = this.#budget.spend(cost);
		if (spent === "taken") return true;
		const pace = `over ${this.#budget.rate.perSecond} a second`;
		if (spent === "exhausted") {
			this.close({
				code: CLOSE_CODES.tooManyFrames,
				reason: `too many frames from this guest (${pace}, all connections)`,
			});
		} else if (this.#perPrincipal) {
			this.#refuse("rate_limited", `too many frames from this guest (${pace}); this one was dropped`);
		} else {
			this.#refuse("rate_limited", `too many frames on this connection (${pace}); this one was dropped`);
		}
		return false;
	}

	/** A frame's handling failed in a way nothing caught: the server's to log, the client told it was not done. */
	#failed(error: unknown): void {
		this.#host.problem("handling a frame failed", error);
		this.#refuse("internal", "the server could not handle this frame");
	}

	async #dispatch(frame: ClientFrame): Promise<void> {
		switch (frame.t) {
			case "open":
				return this.#open(frame.h, frame.object, frame.version, frame.input);
			case "call":
				return this.#call(frame.h, frame.id, frame.method, frame.args);
			case "close":
				if (!this.#handles.has(frame.h))
					return this.#refuse("unknown_handle", `handle ${frame.h} is not open`, frame.h);
				this.#release(frame.h);
				return;
		}
	}

	async #open(h: number, name: string, version: number, input: unknown): Promise<void> {
		if (this.#handles.has(h) || this.#opening.has(h)) return this.#refuse("handle_in_use", `handle ${h} is in use`, h);
		if (this.#handles.size + this.#opening.size >= this.#limits.maxHandles) {
			return this.#refuse("rate_limited", "too many open objects", h);
		}
		const served = this.#host.lookup(name);
		if (!served) return this.#refuse("unknown_object", `no object named ${name}`, h);
		const { contract } = served;
		if (!acceptsVersion(contract, version)) {
			return this.#refuse("unsupported_version", `${name} speaks version ${contract.version}, not ${version}`, h);
		}
		const variant = variantFor(contract, this.#principal.role);
		if (!variant) return this.#refuse("forbidden", `your access does not include ${name}`, h);
		const checked = checkWire(inputKey(contract), contract.input, input);
		if (!checked.ok) return this.#refuse("bad_input", checked.why.slice(0, 500), h);
		let settle!: () => void;
		this.#opening.set(
			h,
			new Promise<void>((resolve) => {
				settle = resolve;
			}),
		);
		try {
			await this.#finishOpen(h, served, variant, checked.value);
		} finally {
			this.#opening.delete(h);
			settle();
		}
	}

	async #finishOpen(h: number, served: Served, variant: VariantSpec, checked: unknown): Promise<void> {
		const { contract, impl } = served;
		const name = contract.name;
		let object: OpenedObject;
		try {
			object = await impl.open(checked, this.#ctx());
		} catch (error) {
			const e = refusalOf(error);
			this.#reportFailure(`open ${name} failed`, error, e.code);
			return this.#refuse(e.code, e.message, h);
		}
		if (this.#closed) {
			object.release?.();
			return;
		}
		const prefix = `{"t":"patch","h":${h},"ops":`;
		const { state, unsubscribe } = object.state.subscribe((opsJson) => this.#sendText(`${prefix}${opsJson}}`));
		this.#handles.set(h, { served, object, unsubscribe });
		const stateCheck = checkWith(stateKey(contract, this.#principal.role), variant.state, state);
		if (stateCheck instanceof type.errors) {
			this.#host.problem(`${name}: server state does not match its contract: ${stateCheck.summary}`);
			this.#release(h);
			return this.#refuse("bad_state", "the server's state did not match its contract", h);
		}
		this.#emit({ t: "snapshot", h, version: contract.version, role: this.#principal.role, state });
	}

	async #call(h: number, id: number, name: string, args: unknown): Promise<void> {
		// A call may follow its open without waiting for the snapshot (a start's first call): it waits here.
		const opening = this.#opening.get(h);
		if (opening) await opening;
		const handle = this.#handles.get(h);
		if (!handle) return this.#fail(h, id, "unknown_handle", `handle ${h} is not open`);
		const { contract } = handle.served;
		const spec = Object.hasOwn(contract.methods, name) ? contract.methods[name] : undefined;
		if (!spec) return this.#fail(h, id, "unknown_method", `${contract.name} has no method ${name}`);
		if (!mayCall(contract, this.#principal.role, name)) {
			return this.#fail(h, id, "forbidden", `your access does not allow ${contract.name}.${name}`);
		}
		const checked = checkWire(argsKey(contract, name), spec.args, args);
		if (!checked.ok) return this.#fail(h, id, "bad_args", checked.why.slice(0, 500));
		const methods = handle.object.methods;
		const handler = Object.hasOwn(methods, name) ? methods[name] : undefined;
		if (!handler) {
			this.#host.problem(`${contract.name}.${name}: the object has no handler for it`);
			return this.#fail(h, id, "internal", "the server cannot answer this method");
		}
		let value: unknown;
		try {
			value = await handler(checked.value, this.#ctx());
		} catch (error) {
			const e = refusalOf(error);
			this.#reportFailure(`${contract.name}.${name} failed`, error, e.code);
			return this.#fail(h, id, e.code, e.message);
		}
		const resultCheck = checkWith(resultKey(contract, name), spec.result, value === undefined ? null : value);
		if (resultCheck instanceof type.errors) {
			this.#host.problem(`${contract.name}.${name}: result does not match its contract: ${resultCheck.summary}`);
			return this.#fail(h, id, "internal", "the server's answer did not match its contract");
		}
		if (this.#handles.get(h) !== handle) return;
		this.#emit({ t: "result", h, id, ok: true, value: value === undefined ? null : value });
	}

	#release(h: number): void {
		const handle = this.#handles.get(h);
		if (!handle) return;
		this.#handles.delete(h);
		handle.unsubscribe();
		try {
			handle.object.release?.();
		} catch (error) {
			this.#host.problem(`release of ${handle.served.contract.name} failed`, error);
		}
	}

	/** Internal failures are the server's to log; a full disk is also a notice for the owner. */
	#reportFailure(what: string, error: unknown, code: RefusalCode): void {
		if (error instanceof StoreFullError) this.#host.problem(what, error, { key: "disk.full" });
		else if (code === "internal") this.#host.problem(what, error);
	}

	#fail(h: number, id: number, code: RefusalCode, message: string): void {
		this.#emit({ t: "result", h, id, ok: false, code, message: message.slice(0, 2000) });
	}

	#refuse(code: RefusalCode, message: string, h?: number): void {
		this.#emit({ t: "refused", ...(h === undefined ? {} : { h }), code, message: message.slice(0, 2000) });
	}

	#emit(frame: object): void {
		this.#sendText(JSON.stringify(frame));
	}

	#sendText(text: string): void {
		if (this.#closed) return;
		try {
			this.#send(text);
		} catch (error) {
			this.#host.problem("send failed; closing the connection", error);
			this.close(SEND_FAILED);
		}
	}
}

export { ProtocolError };
