/**
 * How the server checks what reaches it on every start and connection (client frames, objects' inputs and
 * arguments, models.json): with validators precompiled from the same arktype schemas (`server-validators.ts`)
 * where one fits, so a server starts and serves without loading arktype; with the schema itself for anything
 * else and for every refusal, whose words only arktype has.
 */
import { arktypeChecks } from "../protocol/arktype-checks.ts";
import { type PrecompiledValidator, precompiledFirst, type SchemaChecks } from "../protocol/schema-checks.ts";

let current: SchemaChecks = arktypeChecks;
let validators: Readonly<Record<string, PrecompiledValidator>> = Object.freeze(Object.create(null));

/** From now on, check with these validators first (set once when the server process starts). */
export function useServerValidators(precompiled: Readonly<Record<string, PrecompiledValidator>>): void {
	validators = precompiled;
	current = precompiledFirst(precompiled, arktypeChecks);
}

export const serverChecks: SchemaChecks = {
	check: (key, schema, data) => current.check(key, schema, data),
};

/**
 * `schema(data)` as arktype answers it — the value, or its refusal — checked first by the precompiled
 * validator for `key` when there is one.
 */
export function checkWith<T, E>(key: string, schema: (data: unknown) => T | E, data: unknown): T | E {
	if (Object.hasOwn(validators, key) && validators[key]!(data)) return data as T;
	return schema(data);
}
