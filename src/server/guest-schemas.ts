import { join } from "node:path";
import { ReloadSnapshot } from "../guest/snapshot.ts";
import { type AnyContract, isContract, type MethodSpec } from "../protocol/contract.ts";
import { type AnyEntrySchema, entryKey, isEntrySchema } from "../protocol/entry-schema.ts";
import { ServerFrame } from "../protocol/frames.ts";
import { ROLES } from "../protocol/roles.ts";
import { resultKey, SERVER_FRAME_KEY, SNAPSHOT_KEY, stateKey } from "../protocol/schema-checks.ts";

const ROOT = join(import.meta.dir, "..", "..");

/** The schemas of one contract the guest checks: each role's state and each method's result. */
export function contractSchemas(contract: AnyContract): Map<string, unknown> {
	const schemas = new Map<string, unknown>();
	for (const role of ROLES) {
		const variant = contract.variants[role];
		if (variant) schemas.set(stateKey(contract, role), variant.state);
	}
	for (const [name, spec] of Object.entries(contract.methods as Record<string, MethodSpec>)) {
		schemas.set(resultKey(contract, name), spec.result);
	}
	return schemas;
}

/** What the plugins' `contract.ts` modules export, by path. */
async function contractModules(root: string): Promise<[string, Record<string, unknown>][]> {
	const paths = [...new Bun.Glob("src/plugins/*/contract.ts").scanSync({ cwd: root, onlyFiles: true })].sort();
	return Promise.all(paths.map(async (path) => [path, (await import(join(root, path))) as Record<string, unknown>]));
}

/** Every contract the plugins define (`src/plugins/<name>/contract.ts`), found by looking, not by a list. */
export async function pluginContracts(root = ROOT): Promise<AnyContract[]> {
	const found = new Map<string, AnyContract>();
	for (const [path, module] of await contractModules(root)) {
		for (const value of Object.values(module)) {
			if (!isContract(value)) continue;
			const id = `${value.name}@${value.version}`;
			const known = found.get(id);
			if (known && known !== value) throw new Error(`two contracts are named ${id} (${path})`);
			found.set(id, value);
		}
	}
	return [...found.values()];
}

/** Every transcript entry type the plugins declare next to their contracts (`defineEntry`). */
export async function pluginEntries(root = ROOT): Promise<AnyEntrySchema[]> {
	const found = new Map<string, AnyEntrySchema>();
	for (const [path, module] of await contractModules(root)) {
		for (const value of Object.values(module)) {
			if (!isEntrySchema(value)) continue;
			const known = found.get(value.type);
			if (known && known !== value) throw new Error(`two entry types are named ${value.type} (${path})`);
			found.set(value.type, value);
		}
	}
	return [...found.values()];
}

/** Every schema the guest checks, by the key its precompiled validator has (`schema-checks.ts`). */
export async function guestSchemas(root = ROOT): Promise<Map<string, unknown>> {
	const schemas = new Map<string, unknown>([
		[SERVER_FRAME_KEY, ServerFrame],
		[SNAPSHOT_KEY, ReloadSnapshot],
	]);
	for (const contract of await pluginContracts(root)) {
		for (const [key, schema] of contractSchemas(contract)) schemas.set(key, schema);
	}
	for (const entry of await pluginEntries(root)) schemas.set(entryKey(entry), entry.data);
	return schemas;
}
