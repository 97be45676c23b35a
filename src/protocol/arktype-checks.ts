import { type } from "./ark.ts";
import type { SchemaChecks } from "./schema-checks.ts";

/** Checks with the arktype schemas themselves: their output, or arktype's summary of what is wrong. */
export const arktypeChecks: SchemaChecks = {
	check(_key, schema, data) {
		const out = schema(data);
		return out instanceof type.errors ? { ok: false, why: out.summary } : { ok: true, value: out };
	},
};
