/**
 * How the server checks what reaches it on every start and connection (client frames, objects' inputs and
 * arguments, models.json): with validators precompiled from the same arktype schemas (`server-validators.ts`)
 * where one fits, so a server starts and serves without loading arktype; with the schema itself for anything
 * else and for every refusal, whose words only arktype has.
 */
import { arktypeChecks } from "../protocol/arktype-checks.ts";
import type { PrecompiledValidator, SchemaChecks, Verdict } from "../protocol/schema-checks.ts";

let validators: Readonly<Record<string, PrecompiledValidator>> = Object.freeze(Object.create(null));

/** From now on, check with these validators first (set once when the server process starts). */
export function useServerValidators(precompiled: Readonly<Record<string, PrecompiledValidator>>): void {
	validators = precompiled;
}

/**
 * A refused value of more parts than this is refused without arktype's words. Those name every wrong part and
 * print the value they found: for a hostile megabyte (half a million wrong elements, or a value where one string
 * was expected) they took seconds of the server's only thread.
 */
export const DESCRIBED_PARTS = 1000;

const TOO_LARGE_TO_DESCRIBE = `does not match its schema (a value of over ${DESCRIBED_PARTS} parts is not described part by part)`;

/** Whether `value` has more than `max` parts (each value, object and array counts one); stops as soon as it has. */
export function partsOver(value: unknown, max: number): boolean {
	const pending: unknown[] = [value];
	let parts = 0;
	while (pending.length > 0) {
		const next = pending.pop();
		if (++parts > max) return true;
		if (typeof next !== "object" || next === null) continue;
		const children: readonly unknown[] = Array.isArray(next) ? next : Object.keys(next);
		for (let i = 0; i < children.length; i++) {
			if (parts + pending.length >= max) return true;
			pending.push(Array.isArray(next) ? next[i] : (next as Record<string, unknown>)[children[i] as string]);
		}
	}
	return false;
}

/** arktype's fail-fast check (no refusal collected), where the schema has one. */
function allows(schema: (data: unknown) => unknown, data: unknown): boolean {
	const check = (schema as { allows?: unknown }).allows;
	return typeof check === "function" ? Boolean(check.call(schema, data)) : true;
}

/**
 * A value from the wire against its schema: the value as the schema returns it, or words for the refusal that
 * cost little however large and hostile the value (a large one's words do not say which part is wrong).
 */
export function checkWire(key: string, schema: (data: unknown) => unknown, data: unknown): Verdict {
	const precompiled = Object.hasOwn(validators, key) ? validators[key] : undefined;
	if (precompiled?.(data)) return { ok: true, value: data };
	if (partsOver(data, DESCRIBED_PARTS) && (precompiled !== undefined || !allows(schema, data))) {
		return { ok: false, why: TOO_LARGE_TO_DESCRIBE };
	}
	return arktypeChecks.check(key, schema, data);
}

/** Client frames' checks: `checkWire`'s. */
export const serverChecks: SchemaChecks = { check: checkWire };

/**
 * `schema(data)` as arktype answers it — the value, or its refusal — checked first by the precompiled
 * validator for `key` when there is one. For the server's own values and files; what a client sent is checked
 * with `checkWire`.
 */
export function checkWith<T, E>(key: string, schema: (data: unknown) => T | E, data: unknown): T | E {
	if (Object.hasOwn(validators, key) && validators[key]!(data)) return data as T;
	return schema(data);
}
