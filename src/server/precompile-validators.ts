/**
 * The guest's validators, precompiled when its bundle is built. arktype compiles every schema to JavaScript
 * (`precompilation`: the source of one object whose methods are the checks of the schema and of everything it
 * references). This module keeps the boolean checks (`<id>Allows`), drops the ones that collect error messages,
 * writes the registry values they read (`$ark.<name>`: key sets, patterns) into the module, and renames both by
 * order of first use, so the output depends on the schemas alone, not on what the process built before.
 */

/** The parts of an arktype type this reads (a `Type` is its own root node). */
interface CompiledSchema {
	readonly id: string;
	readonly precompilation?: string;
	readonly includesTransform: boolean;
	readonly allowsRequiresContext: boolean;
}

export class PrecompileError extends Error {
	override name = "PrecompileError";
}

const METHOD_HEAD = /^ {4}([A-Za-z_$][\w$]*)\(data, ctx\) \{/gm;
const OBJECT_END = /\n {4}\}\s*\}\s*$/;
const THIS_CALL = /\bthis\.([A-Za-z_$][\w$]*)/g;
const REGISTRY_REF = /(\$ark\d*)\b(?:\.([A-Za-z_$][\w$]*))?/g;
// The traversal context, not a key named `ctx` (`data.ctx`, `"ctx" in data`).
const USES_CONTEXT = /(?<![.\w$"'])ctx\b/;

/** Every `<id>Allows` method of one precompilation, by name, with its body. */
function allowsMethods(key: string, precompilation: string): Map<string, string> {
	// `function $() { return { <name>(data, ctx) { <body> }, … } }`: the object's methods, each ending in `},`.
	const tail = precompilation.match(OBJECT_END);
	if (!tail) throw new PrecompileError(`${key}: cannot read arktype's compiled checks`);
	const text = precompilation.slice(0, tail.index);
	const heads = [...text.matchAll(METHOD_HEAD)];
	const methods = new Map<string, string>();
	heads.forEach((head, i) => {
		const name = head[1]!;
		if (!name.endsWith("Allows")) return;
		const chunk = text.slice(head.index + head[0].length, heads[i + 1]?.index ?? text.length).trimEnd();
		if (!chunk.endsWith("},")) throw new PrecompileError(`${key}: cannot read arktype's compiled ${name}`);
		methods.set(name, chunk.slice(0, -2));
	});
	return methods;
}

function asCompiled(key: string, schema: unknown): CompiledSchema {
	const compiled = schema as Partial<CompiledSchema>;
	if (typeof compiled.id !== "string") throw new PrecompileError(`${key}: not an arktype schema`);
	if (compiled.includesTransform) {
		throw new PrecompileError(
			`${key}: the schema transforms values (a morph, a default or deleted keys); only checks precompile`,
		);
	}
	if (compiled.allowsRequiresContext) {
		throw new PrecompileError(`${key}: the schema's check needs arktype's traversal context (a contextual narrow)`);
	}
	if (typeof compiled.precompilation !== "string") {
		throw new PrecompileError(`${key}: arktype did not compile the schema (is it configured jitless in this process?)`);
	}
	return compiled as CompiledSchema;
}

/** A registry value as source: a pattern, a primitive, or a set of keys that the checks only test with `in`. */
function registryLiteral(ref: string, value: unknown, onlyIn: boolean, users: string): string {
	if (value instanceof RegExp && value.lastIndex === 0) return String(value);
	if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
	if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
	if (onlyIn && typeof value === "object") {
		const keys = Reflect.ownKeys(value);
		if (keys.every((k) => typeof k === "string")) {
			const proto = Object.getPrototypeOf(value);
			if (proto === null || proto === Object.prototype) {
				// `__proto__` as a computed key is an own key; written plainly it would set the prototype.
				const entries = (keys as string[]).map((k) => `[${JSON.stringify(k)}]: 1`);
				const head = proto === null ? ["__proto__: null"] : [];
				return `Object.freeze({ ${[...head, ...entries].join(", ")} })`;
			}
		}
	}
	const what =
		typeof value === "function" ? `a function (${value.name || "anonymous"})` : Object.prototype.toString.call(value);
	throw new PrecompileError(`${users}: the check reads ${ref}, ${what}, which cannot be written into the guest bundle`);
}

interface RegistryRef {
	readonly name: string;
	readonly value: unknown;
	readonly firstUser: string;
	uses: number;
	inUses: number;
}

/** Rewrites `$ark.<name>` reads to module constants, counting how each value is used. */
function registryRewriter(refs: Map<string, RegistryRef>, key: string, method: string) {
	return (_all: string, registry: string, member: string | undefined, offset: number, text: string): string => {
		if (member === undefined) {
			throw new PrecompileError(`${key}: ${method} reads arktype's registry by a computed name`);
		}
		const ref = `${registry}.${member}`;
		let entry = refs.get(ref);
		if (!entry) {
			const table = (globalThis as Record<string, unknown>)[registry] as Record<string, unknown> | undefined;
			if (!table || !Object.hasOwn(table, member)) {
				throw new PrecompileError(`${key}: ${ref} is not in arktype's registry`);
			}
			entry = { name: `r${refs.size}`, value: table[member], firstUser: key, uses: 0, inUses: 0 };
			refs.set(ref, entry);
		}
		entry.uses++;
		if (/(^|[^\w$])in $/.test(text.slice(Math.max(0, offset - 4), offset))) entry.inUses++;
		return entry.name;
	};
}

/** The `Allows` methods of every schema by arktype's name (the same node compiles the same everywhere). */
function collectMethods(schemas: ReadonlyMap<string, unknown>, keys: readonly string[]) {
	const bodies = new Map<string, { body: string; key: string }>();
	const roots = new Map<string, string>();
	for (const key of keys) {
		const schema = asCompiled(key, schemas.get(key));
		for (const [name, body] of allowsMethods(key, schema.precompilation!)) {
			const known = bodies.get(name);
			if (known && known.body !== body) {
				throw new PrecompileError(`${key}: arktype compiled ${name} twice, differently`);
			}
			if (!known) bodies.set(name, { body, key });
		}
		roots.set(key, `${schema.id}Allows`);
	}
	return { bodies, roots };
}

/**
 * The source of an ES module exporting `precompiledValidators`: for each key, a function that answers whether
 * a value fits that schema, exactly as `schema.allows` would. Throws a PrecompileError for a schema whose check
 * cannot be precompiled (a transform, a narrow written as a function).
 */
export function precompiledValidatorsModule(schemas: ReadonlyMap<string, unknown>): string {
	const keys = [...schemas.keys()].sort();
	const { bodies, roots } = collectMethods(schemas, keys);

	// Methods named by order of first use from the roots, depth first.
	const names = new Map<string, string>();
	const order: string[] = [];
	const visit = (name: string, key: string): void => {
		if (names.has(name)) return;
		const method = bodies.get(name);
		if (!method) throw new PrecompileError(`${key}: arktype's compiled check calls ${name}, which it did not compile`);
		names.set(name, `v${names.size}`);
		order.push(name);
		if (USES_CONTEXT.test(method.body)) throw new PrecompileError(`${key}: ${name} needs arktype's traversal context`);
		for (const call of method.body.matchAll(THIS_CALL)) {
			if (!call[1]!.endsWith("Allows")) throw new PrecompileError(`${key}: ${name} calls ${call[1]}, not a check`);
			visit(call[1]!, key);
		}
	};
	for (const key of keys) visit(roots.get(key)!, key);

	// Registry values are named by order of first use too.
	const refs = new Map<string, RegistryRef>();
	const methods = order.map((original) => {
		const { body, key } = bodies.get(original)!;
		const renamed = body
			.replace(THIS_CALL, (_all, callee: string) => `this.${names.get(callee)}`)
			.replace(REGISTRY_REF, registryRewriter(refs, key, original));
		return `\t${names.get(original)}(data) {\n\t\t${renamed.trim()}\n\t},`;
	});
	const consts = [...refs].map(
		([ref, e]) => `const ${e.name} = ${registryLiteral(ref, e.value, e.uses === e.inUses, e.firstUser)};`,
	);
	const exports = keys.map((key) => `\t${JSON.stringify(key)}: (data) => $.${names.get(roots.get(key)!)}(data),`);
	return [
		"// Generated when the guest bundle is built (src/server/precompile-validators.ts), from arktype's compiled checks.",
		...consts,
		"const $ = {",
		...methods,
		"};",
		"export const precompiledValidators = Object.freeze({",
		"\t__proto__: null,",
		...exports,
		"});",
		"",
	].join("\n");
}
