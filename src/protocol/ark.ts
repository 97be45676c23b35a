/**
 * arktype as the code base uses it: loaded, and each schema built, on first use. Importing arktype costs about
 * 190 ms (its built-in keywords) and building the contracts' schemas more, on the server's start path and in
 * every test process; a process needs only the schemas it touches. `type(...)` and `type.<factory>(...)` return
 * what arktype would, built the first time it is used (called, read, or built into another schema); a schema
 * that combines others (`.or`, `.array()`, `.optional()`) inside a definition is best written inside `lazy`.
 * `value instanceof type.errors` asks whether a check refused, without loading arktype: a process that has not
 * loaded it cannot hold its refusals.
 *
 * Modules import `type` from here, never from "arktype" (test/protocol/ark.test.ts checks it); the guest's bundle maps this
 * module to its inert stand-in (`src/guest/arktype-shim.ts`).
 */
import type { type as arktypeType } from "arktype";
import { lazy } from "./lazy.ts";

type Arktype = typeof import("arktype");
let loaded: Arktype | undefined;

/** arktype itself, loaded now if it was not yet (a synchronous require, so a check can happen at once). */
export function loadArktype(): Arktype {
	if (!loaded) {
		// For finding what loads it: P2_TRACE_ARKTYPE=1 writes the first loader's stack to stderr.
		if (process.env.P2_TRACE_ARKTYPE) {
			Error.stackTraceLimit = 60;
			process.stderr.write(`arktype loaded: ${new Error().stack}\n`);
		}
		loaded = require("arktype") as Arktype;
	}
	return loaded;
}

/** Whether arktype has been loaded in this process (for tests of what starts without it). */
export function arktypeLoaded(): boolean {
	return loaded !== undefined;
}

/** Stands for arktype's ArkErrors in `instanceof`. */
const errorsClass = Object.freeze({
	[Symbol.hasInstance]: (value: unknown) => loaded !== undefined && value instanceof loaded.type.errors,
});

// What `type.<key>` is without building anything: the refusal class's stand-in, or a factory of deferred schemas.
const staticMember = (key: string | symbol): unknown => {
	if (typeof key === "symbol") return undefined;
	if (key === "errors") return errorsClass;
	return (...args: unknown[]) =>
		lazy(() =>
			Reflect.apply(Reflect.get(loadArktype().type, key) as (...a: unknown[]) => object, loadArktype().type, args),
		);
};

export const type = new Proxy((() => {}) as unknown as typeof arktypeType, {
	apply: (_target, _this, args) => lazy(() => Reflect.apply(loadArktype().type, undefined, args) as object),
	get: (_target, key) => staticMember(key),
	has: (_target, key) => Reflect.has(loadArktype().type, key),
});
