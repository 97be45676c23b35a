/**
 * The server's precompiled validators: arktype's compiled checks of every schema the server checks on its
 * start and on every connection (`checks.ts`), so neither loads arktype (about 190 ms, and more to build the
 * schemas). The executable carries them, made when it is built; a server run from source keeps them on disk
 * by the names, sizes and times of its sources, made again after any change by a process of its own (a start
 * after an edit pays arktype once, in that process).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { argsKey, CLIENT_FRAME_KEY, inputKey, type PrecompiledValidator } from "../protocol/schema-checks.ts";
import { sourcesStampOnce } from "./build-id.ts";
import { cachedPath, keepMade, makeInChild } from "./sources-cache.ts";

const ROOT = join(import.meta.dir, "..", "..");
const CACHE_DIR = join(ROOT, "node_modules", ".cache", "p2-server-validators");

type Validators = Readonly<Record<string, PrecompiledValidator>>;

/** Every schema the server checks with a precompiled validator first, by its key. */
export async function serverSchemas(root = ROOT): Promise<Map<string, unknown>> {
	const [{ ClientFrame }, { contractSchemas, pluginContracts }, models, { defaultPlugins }] = await Promise.all([
		import("../protocol/frames.ts"),
		import("./guest-schemas.ts"),
		import("./agent/models.ts"),
		import("./plugins.ts"),
	]);
	const schemas = new Map<string, unknown>([
		[CLIENT_FRAME_KEY, ClientFrame],
		[models.MODELS_FILE_KEY, models.ModelsFile],
		[models.MODELS_PROVIDER_KEY, models.ProviderEntry],
		[models.MODELS_MODEL_KEY, models.ModelEntry],
	]);
	for (const contract of await pluginContracts(root)) {
		schemas.set(inputKey(contract), contract.input);
		for (const [name, spec] of Object.entries(contract.methods as Record<string, { args: unknown }>)) {
			schemas.set(argsKey(contract, name), spec.args);
		}
		for (const [key, schema] of contractSchemas(contract)) schemas.set(key, schema);
	}
	for (const plugin of defaultPlugins()) {
		for (const [key, schema] of plugin.checkedSchemas?.() ?? []) {
			if (schemas.has(key)) throw new Error(`plugin ${plugin.name}: the schema key ${key} is taken`);
			schemas.set(key, schema);
		}
	}
	return schemas;
}

/** The module's source: precompiled validators of every server schema (one that cannot be precompiled fails it). */
export async function serverValidatorsModule(root = ROOT): Promise<string> {
	const { precompiledValidatorsModule } = await import("./precompile-validators.ts");
	return precompiledValidatorsModule(await serverSchemas(root));
}

/** The executable's validators, set by its entry before the server loads (see scripts/build.ts). */
function embeddedValidators(): Validators | undefined {
	return (globalThis as { P2_SERVER_VALIDATORS?: Validators }).P2_SERVER_VALIDATORS;
}

/** The validators for this build: the executable's own, or those cached for these sources (made if missing). */
export async function loadServerValidators(cacheDir = CACHE_DIR): Promise<Validators> {
	const embedded = embeddedValidators();
	if (embedded) return embedded;
	const key = sourcesStampOnce();
	const path = cachedPath(cacheDir, key);
	// Made by a process of its own (arktype stays out of this one); when it cannot be kept, this one checks with arktype.
	if (!existsSync(path) && !keepMade(cacheDir, key, await makeInChild("validators"))) {
		return Object.freeze(Object.create(null));
	}
	return ((await import(path)) as { precompiledValidators: Validators }).precompiledValidators;
}
