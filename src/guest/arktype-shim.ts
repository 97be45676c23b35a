/**
 * What `arktype` and `arktype/config` are in the guest bundle: the guest carries no arktype. The contracts it
 * shares with the server still declare their schemas with `type(...)`; here a declaration is inert (a stand-in
 * that can be combined further), and every check uses a validator precompiled when the bundle was built
 * (`src/server/precompile-validators.ts`). A stand-in that is called as a check throws, naming the schema, so a
 * guest path that bypasses the precompiled validators fails loudly instead of passing everything.
 */

function describe(definition: unknown): string {
	if (typeof definition === "string") return JSON.stringify(definition.slice(0, 120));
	if (typeof definition === "number" || typeof definition === "boolean") return String(definition);
	if (typeof definition === "object" && definition !== null && !Array.isArray(definition)) {
		const keys = Object.keys(definition).slice(0, 12);
		return `{ ${keys.join(", ")} }`;
	}
	return typeof definition;
}

function missing(what: string): Error {
	return new Error(
		`arktype is not in the guest bundle: ${what} has no validator precompiled at build time (check values through the guest's SchemaChecks)`,
	);
}

// A declaration's stand-in: callable, and each of its methods makes another stand-in (`.or`, `.array()`, …).
function standIn(what: string): unknown {
	const target = () => {};
	return new Proxy(target, {
		apply: () => {
			throw missing(`the schema ${what}`);
		},
		get: (_target, key) => {
			if (typeof key === "symbol" || key === "then") return undefined;
			return (...args: unknown[]) => standIn(`${what}.${key}(${args.map(describe).join(", ")})`);
		},
	});
}

const declare = (...definitions: unknown[]) => standIn(`type(${definitions.map(describe).join(", ")})`);

export const type: unknown = new Proxy(declare, {
	get: (_target, key) => {
		if (typeof key === "symbol") return undefined;
		if (key === "errors") throw missing("type.errors (arktype's refusals)");
		return (...args: unknown[]) => standIn(`type.${key}(${args.map(describe).join(", ")})`);
	},
});

export function configure(): never {
	throw new Error("arktype is not in the guest bundle: arktype/config's configure cannot be called there");
}
