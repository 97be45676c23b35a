/**
 * How a plugin serves a contract: `open` gives one handle's replicated state and one handler per method, each
 * typed from the contract's schemas. The host validates a call's arguments before its handler runs and the
 * handler's result before it is sent; a contract method without a handler does not compile.
 */
import { ProtocolError, type RefusalCode } from "../../protocol/codes.ts";
import type { AnyContract, ArgsOf, InputOf, MethodsOf, ResultOf, StateOf } from "../../protocol/contract.ts";
import type { LiveState } from "./live-state.ts";
import type { Principal } from "./principal.ts";

export interface CallContext {
	readonly principal: Principal;
	/** Unique per connection; lets an object tell two tabs of one person apart. */
	readonly connectionId: string;
}

type MethodName<C> = keyof MethodsOf<C> & string;

/** One handler per method of the contract: its validated arguments in, its result (or a ProtocolError) out. */
export type Handlers<C extends AnyContract> = {
	readonly [K in MethodName<C>]: (args: ArgsOf<C, K>, ctx: CallContext) => ResultOf<C, K> | Promise<ResultOf<C, K>>;
};

/** What an implementation hands back for one open handle. */
export interface OpenedObject<C extends AnyContract = AnyContract> {
	readonly state: LiveState<StateOf<C>>;
	readonly methods: Handlers<C>;
	/** The handle closed (by the client, the server or a disconnect). */
	release?(): void;
	/** The caller's access changed while the handle stays open (a guest demoted or promoted). */
	principalChanged?(next: Principal): void;
}

export interface ObjectImpl<C extends AnyContract = AnyContract> {
	/** `input` was validated against the contract; the role may open the object (its variant is not null). */
	open(input: InputOf<C>, ctx: CallContext): OpenedObject<C> | Promise<OpenedObject<C>>;
}

/**
 * Handlers that refuse every method, for a handle whose holder may call none of them (the host already refuses
 * what the role's variant does not list; this is the second lock).
 */
export function refuseEvery<C extends AnyContract>(contract: C, code: RefusalCode, message?: string): Handlers<C> {
	const refuse = () => {
		throw new ProtocolError(code, message);
	};
	// One handler under each of the contract's method names is what `Handlers<C>` is; the compiler cannot see it.
	return Object.fromEntries(Object.keys(contract.methods).map((name) => [name, refuse])) as unknown as Handlers<C>;
}
