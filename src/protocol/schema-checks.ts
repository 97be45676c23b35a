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
// …and the server's: what it checks on every start and connection, so it starts without arktype.
export const CLIENT_FRAME_KEY = "frame/client";

export function inputKey(contract: Pick<AnyContract, "name" | "version">): string {
	return `${contract.name}@${contract.version}/input`;
}

export function argsKey(contract: Pick<AnyContract, "name" | "version">, method: string): string {
	return `${contract.name}@${contract.version}/args/${method}`;
}

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

/**
 * Checks with precompiled validators where one fits the key, and with the arktype schema otherwise, and for
 * every refusal (whose words only arktype has). A precompiled validator is arktype's own compiled check of a
 * schema without transforms, so a value it accepts is the value the schema would return.
 */
export function precompiledFirst(
	validators: Readonly<Record<string, PrecompiledValidator>>,
	fallback: SchemaChecks,
): SchemaChecks {
	return {
		check(key, schema, data) {
			if (Object.hasOwn(validators, key) && validators[key]!(data)) return { ok: true, value: data };
			return fallback.check(key, schema, data);
		},
	};
}
