import type { AnyContract } from "./contract.ts";
import type { Role } from "./roles.ts";

/** What one schema says of one value: the value as the schema returns it, or why it refused. */
export type Verdict = { ok: true; value: unknown } | { ok: false; why: string };

/**
 * How a client checks what it reads (server frames, object states, call results, its reload snapshot). The
 * server and tests check with the arktype schemas themselves (`arktype-checks.ts`); the guest, which carries no
 * arktype, with validators precompiled from the same schemas when its bundle is built, looked up by `key`.
 */
export interface SchemaChecks {
	check(key: string, schema: (data: unknown) => unknown, data: unknown): Verdict;
}

/** A validator precompiled at build time: arktype's own compiled check of one schema, without its messages. */
export type PrecompiledValidator = (data: unknown) => boolean;

// The keys name every schema the guest checks; the bundle's build precompiles one validator per key.
export const SERVER_FRAME_KEY = "frame/server";
export const SNAPSHOT_KEY = "snapshot";

export function stateKey(contract: Pick<AnyContract, "name" | "version">, role: Role): string {
	return `${contract.name}@${contract.version}/state/${role}`;
}

export function resultKey(contract: Pick<AnyContract, "name" | "version">, method: string): string {
	return `${contract.name}@${contract.version}/result/${method}`;
}

/**
 * Checks with precompiled validators. A refusal names the schema only: the precompiled checks say whether a
 * value fits, not where it does not (that detail is arktype's, which the guest does not carry).
 */
export function precompiledChecks(validators: Readonly<Record<string, PrecompiledValidator>>): SchemaChecks {
	return {
		check(key, _schema, data) {
			if (!Object.hasOwn(validators, key)) return { ok: false, why: `no precompiled validator for ${key}` };
			return validators[key]!(data) ? { ok: true, value: data } : { ok: false, why: `did not match ${key}` };
		},
	};
}
