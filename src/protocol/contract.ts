import type { Type } from "arktype";
import type { Role } from "./roles.ts";

/** A method: what it takes and what it returns, both validated. */
export interface MethodSpec<Args = unknown, Result = unknown> {
	readonly args: Type<Args>;
	readonly result: Type<Result>;
}

/** What one role sees and may call; `null` in a contract's variants means the role may not open the object. */
export interface VariantSpec<State = unknown, M extends string = string> {
	readonly state: Type<State>;
	readonly methods: readonly M[];
}

export interface ContractSpec<
	Input = unknown,
	State = unknown,
	Methods extends Record<string, MethodSpec> = Record<string, MethodSpec>,
> {
	/** The object's name, e.g. `chat`. */
	readonly name: string;
	/** The version this build speaks. */
	readonly version: number;
	/** Older versions this build still accepts from clients (their frames must be compatible). */
	readonly accepts?: readonly number[];
	readonly input: Type<Input>;
	readonly methods: Methods;
	readonly variants: { readonly [R in Role]: VariantSpec<State, Extract<keyof Methods, string>> | null };
}

export type Contract<
	Input = unknown,
	State = unknown,
	Methods extends Record<string, MethodSpec> = Record<string, MethodSpec>,
> = ContractSpec<Input, State, Methods>;

/** Any contract, whatever its types; arktype's `Type` is invariant, so `Contract<unknown, …>` would not do. */
// biome-ignore lint/suspicious/noExplicitAny: the widest contract type is only used where types are erased (the host).
export type AnyContract = ContractSpec<any, any, any>;

// biome-ignore-start lint/suspicious/noExplicitAny: inference over invariant arktype types needs the wide positions.
export type InputOf<C> = C extends ContractSpec<infer I, any, any> ? I : never;
export type StateOf<C> = C extends ContractSpec<any, infer S, any> ? S : never;
export type MethodsOf<C> = C extends ContractSpec<any, any, infer M> ? M : never;
export type ArgsOf<C, K extends keyof MethodsOf<C>> = MethodsOf<C>[K] extends MethodSpec<infer A, any> ? A : never;
export type ResultOf<C, K extends keyof MethodsOf<C>> = MethodsOf<C>[K] extends MethodSpec<any, infer R> ? R : never;
// biome-ignore-end lint/suspicious/noExplicitAny: see above.

export function method<Args, Result>(args: Type<Args>, result: Type<Result>): MethodSpec<Args, Result> {
	return { args, result };
}

const DEFINED = new WeakSet<object>();

export function defineContract<Input, State, Methods extends Record<string, MethodSpec>>(
	spec: ContractSpec<Input, State, Methods>,
): Contract<Input, State, Methods> {
	for (const variant of Object.values(spec.variants) as (VariantSpec | null)[]) {
		for (const name of variant?.methods ?? []) {
			if (!Object.hasOwn(spec.methods, name)) throw new Error(`${spec.name}: variant names unknown method ${name}`);
		}
	}
	const contract = Object.freeze(spec);
	DEFINED.add(contract);
	return contract;
}

/** Whether `value` is a contract `defineContract` made (how the bundle's build finds the plugins' contracts). */
export function isContract(value: unknown): value is AnyContract {
	return typeof value === "object" && value !== null && DEFINED.has(value);
}

export function acceptsVersion(contract: AnyContract, version: number): boolean {
	return version === contract.version || (contract.accepts ?? []).includes(version);
}

export function variantFor(contract: AnyContract, role: Role): VariantSpec | null {
	return contract.variants[role];
}

export function mayCall(contract: AnyContract, role: Role, name: string): boolean {
	return variantFor(contract, role)?.methods.includes(name) ?? false;
}
