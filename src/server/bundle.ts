import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { BunPlugin } from "bun";
import { sourcesStamp } from "./build-id.ts";
import type { GuestBundle } from "./server.ts";
import { cachedPath, keepMade, makeInChild } from "./sources-cache.ts";

const ROOT = join(import.meta.dir, "..", "..");
const ENTRY = join(ROOT, "src", "guest", "entry.ts");
const PROCESS_SHIM = join(ROOT, "src", "guest", "process-shim.ts");
const NODE_STUB = join(ROOT, "src", "guest", "node-stub.ts");
const ARKTYPE_SHIM = join(ROOT, "src", "guest", "arktype-shim.ts");
const DEFERRED_ARKTYPE = join(ROOT, "src", "protocol", "ark.ts");
const PRECOMPILED = "p2:precompiled-validators";
const DEFERRED_LOADER = join(ROOT, "src", "guest", "deferred-module.ts");
/** Modules the UI needs only for some answers (syntax highlighting, diagrams): each is carried as text. */
const DEFERRED_DIR = join(ROOT, "src", "ui", "deferred");
const NODE_BUILTINS = /^(node:)?(fs|path|os|url|child_process|module|perf_hooks|crypto|util|tty|events|stream)(\/.*)?$/;

/**
 * Makes third-party code fit the sandbox at build time: `node:*` imports become stubs without capabilities,
 * and modules that read `process` get the guest's own process object (filled from the launcher's facts).
 */
export const sandboxPlugin: BunPlugin = {
	name: "p2-guest-sandbox",
	setup(build) {
		build.onResolve({ filter: NODE_BUILTINS }, () => ({ path: NODE_STUB }));
		build.onLoad({ filter: /\.(m?js|ts)$/ }, (args) => {
			const text = readFileSync(args.path, "utf8");
			const loader = args.path.endsWith(".ts") ? "ts" : "js";
			// A module's own URL means nothing in the sandbox (it is only used to locate native addons).
			const contents = text.replaceAll("import.meta.url", '"file:///p2-guest/"');
			if (args.path === PROCESS_SHIM || !/\bprocess\b/.test(contents)) return { contents, loader };
			return { contents: `import { process } from ${JSON.stringify(PROCESS_SHIM)};\n${contents}`, loader };
		});
	},
};

/**
 * Keeps arktype out of the guest: `arktype` resolves to an inert shim, and `p2:precompiled-validators` is the
 * module of validators arktype compiles now from every schema the guest checks (written only if imported).
 */
export const guestValidatorsPlugin: BunPlugin = {
	name: "p2-guest-validators",
	setup(build) {
		build.onResolve({ filter: /^arktype(\/config)?$/ }, () => ({ path: ARKTYPE_SHIM }));
		build.onResolve({ filter: /\/ark\.ts$/ }, (args) =>
			resolve(dirname(args.importer), args.path) === DEFERRED_ARKTYPE ? { path: ARKTYPE_SHIM } : undefined,
		);
		build.onResolve({ filter: /^p2:precompiled-validators$/ }, () => ({
			path: PRECOMPILED,
			namespace: "p2-precompiled",
		}));
		build.onLoad({ filter: /.*/, namespace: "p2-precompiled" }, async () => {
			// Loaded only for a build: the launcher reads the cached bundle through this module before anything
			// else of the server, and the schemas would cost it arktype's start-up.
			const [{ guestSchemas }, { precompiledValidatorsModule }] = await Promise.all([
				import("./guest-schemas.ts"),
				import("./precompile-validators.ts"),
			]);
			return { contents: precompiledValidatorsModule(await guestSchemas()), loader: "js" };
		});
	},
};

/**
 * Keeps the modules of `DEFERRED_DIR` in the bundle as text, evaluated (in the guest's compartment) when first
 * required: the worker parses the whole bundle before the UI starts, and these were 30% of it, for code many
 * sessions reach late or never (4–5 ms of the worker's start). Each is built on its own, through the same
 * sandbox plugin, as a CommonJS factory with the bound globals; the text is part of the bundle, so its hash
 * covers it and nothing is fetched later.
 */
function deferredModulesPlugin(factories: ReadonlyMap<string, string>): BunPlugin {
	return {
		name: "p2-guest-deferred",
		setup(build) {
			build.onResolve({ filter: /\/deferred\/[\w-]+\.ts$/ }, (args) => {
				const path = resolve(dirname(args.importer), args.path);
				return factories.has(path) ? { path, namespace: "p2-deferred" } : undefined;
			});
			build.onLoad({ filter: /.*/, namespace: "p2-deferred" }, (args) => {
				const source = factories.get(args.path);
				if (source === undefined) throw new Error(`no deferred module ${args.path}`);
				const loader = JSON.stringify(DEFERRED_LOADER);
				return {
					contents: `module.exports = require(${loader}).evaluateDeferred(${JSON.stringify(source)});`,
					loader: "js",
				};
			});
		},
	};
}

/**
 * Each deferred module's factory by its path (see `deferredModulesPlugin`), built before the bundle: a build
 * run inside another's plugin never ends.
 */
async function deferredFactories(minify: boolean): Promise<Map<string, string>> {
	const files = [...new Bun.Glob("*.ts").scanSync({ cwd: DEFERRED_DIR, absolute: true })];
	return new Map(await Promise.all(files.map(async (path) => [path, await deferredFactory(path, minify)] as const)));
}

/** The module at `path` as the text of a function `(module, exports)` that fills `module.exports` with it. */
async function deferredFactory(path: string, minify: boolean): Promise<string> {
	const result = await Bun.build({
		entrypoints: [path],
		target: "browser",
		format: "cjs",
		minify,
		plugins: [sandboxPlugin],
		define: { "process.env.NODE_ENV": '"production"' },
	});
	if (!result.success) {
		throw new Error(`deferred module ${path} failed to build:\n${result.logs.map((l) => String(l)).join("\n")}`);
	}
	const names = BOUND_GLOBALS.join(",");
	return fitForSes(`((${names})=>function(module,exports){${await result.outputs[0]!.text()}\n})(${names})`);
}

/**
 * Hardened JavaScript refuses source that contains HTML comment tokens or the text of a dynamic import, even
 * inside strings and regular expressions. Rewrites them to equivalent escapes; the result is parse-checked.
 */
export function fitForSes(source: string): string {
	const out = source
		.replaceAll("<!--", "\\x3C!--")
		.replaceAll("-->", "--\\x3E")
		.replace(/\bimport(\s*\()/g, "imp\\u006Frt$1");
	// A rewrite outside a string or regex would change the program; refuse to ship it.
	new Function(out);
	return out;
}

/**
 * The globals guest code reads most, passed once as parameters of a function around the bundle. Inside a
 * compartment a free name is looked up through Hardened JavaScript's `with` scopes at every use, which
 * JavaScriptCore does not cache: bound as parameters, a keystroke's render in the sandbox took 0.6 ms at the
 * median instead of 1.1. The arguments are read in the compartment, so the code sees the same objects as
 * before; a name the compartment lacks is undefined, as reading it was. Nothing in the bundle assigns them
 * (a global set later would not be seen through these names).
 */
export const BOUND_GLOBALS = [
	"globalThis",
	"Object",
	"Array",
	"String",
	"Number",
	"Boolean",
	"Symbol",
	"BigInt",
	"Math",
	"JSON",
	"Reflect",
	"Proxy",
	"Promise",
	"Map",
	"Set",
	"WeakMap",
	"WeakSet",
	"WeakRef",
	"Date",
	"RegExp",
	"Error",
	"TypeError",
	"RangeError",
	"SyntaxError",
	"ArrayBuffer",
	"DataView",
	"Uint8Array",
	"Uint16Array",
	"Uint32Array",
	"Int32Array",
	"Float64Array",
	"parseInt",
	"parseFloat",
	"isNaN",
	"isFinite",
	"encodeURIComponent",
	"decodeURIComponent",
	"Intl",
	"TextEncoder",
	"TextDecoder",
	"setTimeout",
	"clearTimeout",
	"setInterval",
	"clearInterval",
	"queueMicrotask",
	"performance",
	"console",
	"undefined",
	"NaN",
	"Infinity",
] as const;

/** `source` run with `BOUND_GLOBALS` bound as parameters (its own declarations of those names still win inside). */
export function bindGlobals(source: string): string {
	const names = BOUND_GLOBALS.join(",");
	return `((${names})=>{${source}\n})(${names});`;
}

export interface GuestBuildOptions {
	minify?: boolean;
	/** Another entry, only for benchmarks and tests that run guest code in the real sandbox. */
	entry?: string;
}

/** The guest script and every module it was built from (paths, as Bun's metafile names them). */
export async function buildGuestScript(options: GuestBuildOptions = {}): Promise<{ source: string; inputs: string[] }> {
	const deferred = await deferredFactories(options.minify ?? true);
	const result = await Bun.build({
		entrypoints: [options.entry ?? ENTRY],
		target: "browser",
		format: "iife",
		minify: options.minify ?? true,
		plugins: [deferredModulesPlugin(deferred), guestValidatorsPlugin, sandboxPlugin],
		define: { "process.env.NODE_ENV": '"production"' },
		metafile: true,
	});
	if (!result.success) {
		throw new Error(`guest bundle build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
	}
	const raw = await result.outputs[0]!.text();
	return { source: bindGlobals(fitForSes(raw)), inputs: Object.keys(result.metafile?.inputs ?? {}) };
}

/** Builds the guest bundle: the runtime, `src/ui` and the enabled plugins' TUI parts, as one script. */
export async function buildGuestBundle(options: GuestBuildOptions = {}): Promise<GuestBundle> {
	const { source } = await buildGuestScript(options);
	return bundleOf(source);
}

/** A bundle's source with its hash (what the launcher checks the bundle it runs against). */
function bundleOf(source: string): GuestBundle {
	return { source, hash: new Bun.CryptoHasher("sha256").update(source).digest("hex") };
}

const CACHE_DIR = join(ROOT, "node_modules", ".cache", "p2-guest-bundle");
/**
 * The development bundle, built once per change of its inputs and kept on disk by their stamp (their names,
 * sizes and times: a start from source then costs a look at the sources, not a build). Only the latest few are kept.
 * The build runs in a process of its own.
 */
export async function cachedGuestBundle(cacheDir = CACHE_DIR): Promise<GuestBundle> {
	const key = sourcesStamp();
	const path = cachedPath(cacheDir, key);
	if (existsSync(path)) {
		return bundleOf(readFileSync(path, "utf8"));
	}
	const source = await makeInChild("bundle");
	keepMade(cacheDir, key, source);
	return bundleOf(source);
}

/** A server run from source (not the compiled executable): its bundle can be rebuilt while it runs (/dev-reload). */
export function isDevelopmentBuild(): boolean {
	return !(globalThis as { P2_EMBEDDED_BUNDLE?: string }).P2_EMBEDDED_BUNDLE;
}

/** The compiled executable carries a prebuilt bundle; development uses the bundle cached for its sources. */
export function defaultGuestBundle(): () => Promise<GuestBundle> {
	const embedded = (globalThis as { P2_EMBEDDED_BUNDLE?: string }).P2_EMBEDDED_BUNDLE;
	if (embedded) {
		let read: GuestBundle | undefined;
		return async () => {
			if (!read) {
				read = bundleOf(readFileSync(embedded, "utf8"));
			}
			return read;
		};
	}
	return () => cachedGuestBundle();
}
