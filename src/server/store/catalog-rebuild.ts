import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type } from "../../protocol/ark.ts";
import { errorText } from "../../protocol/errors.ts";
import { CATALOG_FILE, Catalog, type CatalogOptions, DEFAULT_ENV, type SessionRecord } from "./catalog.ts";
import { StoreDamagedError } from "./errors.ts";
import { SessionStore } from "./session-store.ts";
import { moveAside } from "./sqlite.ts";

const SESSION_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.sqlite$/i;

/** The catalog row a session store keeps of itself. */
const StoredRecord = type({
	id: "string",
	title: "string",
	cwd: "string",
	env: "string",
	model: "string | null",
	thinkingLevel: "string | null",
	pinned: "boolean",
	archived: "boolean",
	createdAt: "number.integer",
	updatedAt: "number.integer",
	parent: "string | null",
});

/**
 * The catalog, rebuilt from the session stores when it is damaged, emptied or gone while sessions exist. A
 * damaged one is moved aside (never deleted) and every step is reported by file name: the catalog is an index
 * of the stores, not the only place a session is known.
 */
export function openCatalog(
	dataDir: string,
	options: CatalogOptions = {},
	report: (message: string) => void = console.error,
): Catalog {
	const path = join(dataDir, CATALOG_FILE);
	const existed = existsSync(path);
	let catalog: Catalog;
	try {
		catalog = Catalog.open(dataDir, options);
		if (existed || sessionIds(dataDir).length === 0) return catalog;
		report(`${path} is missing; the list of sessions is rebuilt from their stores`);
	} catch (error) {
		if (!(error instanceof StoreDamagedError)) throw error;
		const movedTo = moveAside(path);
		report(
			`${path} could not be read (${error.reason}); it was moved to ${movedTo}, and the list of sessions is rebuilt from their stores`,
		);
		catalog = Catalog.open(dataDir, options);
	}
	try {
		const { restored, skipped } = rebuildCatalog(dataDir, catalog, report);
		report(`the list of sessions was rebuilt: ${restored} restored, ${skipped} left out`);
		return catalog;
	} catch (error) {
		catalog.close();
		throw error;
	}
}

/** Puts a row in the catalog for every session store that can be read; reports the ones that cannot. */
export function rebuildCatalog(
	dataDir: string,
	catalog: Catalog,
	report: (message: string) => void,
): { restored: number; skipped: number } {
	let restored = 0;
	let skipped = 0;
	for (const id of sessionIds(dataDir)) {
		let store: SessionStore;
		try {
			store = SessionStore.open(dataDir, id);
		} catch (error) {
			report(`${join(dataDir, "sessions", `${id}.sqlite`)} could not be read (${errorText(error)}); it is not listed`);
			skipped++;
			continue;
		}
		try {
			catalog.restore(recordOf(store, report));
			restored++;
		} finally {
			store.close();
		}
	}
	return { restored, skipped };
}

function sessionIds(dataDir: string): string[] {
	const dir = join(dataDir, "sessions");
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((name) => {
		const match = SESSION_FILE.exec(name);
		return match ? [match[1]!] : [];
	});
}

/** The store's own record, brought up to its newest entry; for a store without one, what can be known. */
function recordOf(store: SessionStore, report: (message: string) => void): SessionRecord {
	const last = store.lastEntryAt();
	let meta: unknown = null;
	try {
		meta = store.meta();
	} catch {
		// A damaged copy is no copy: the fallback below says so.
	}
	const parsed = StoredRecord(meta);
	if (!(parsed instanceof type.errors) && parsed.id === store.sessionId) {
		return { ...parsed, updatedAt: Math.max(parsed.updatedAt, last ?? 0) };
	}
	const cwd = homedir();
	report(`${store.path} keeps no record of its session; it is listed untitled, with ${cwd} as its folder`);
	const at = last ?? Math.floor(statSync(store.path).mtimeMs);
	return {
		id: store.sessionId,
		title: "",
		cwd,
		env: DEFAULT_ENV,
		model: null,
		thinkingLevel: null,
		pinned: false,
		archived: false,
		createdAt: at,
		updatedAt: at,
		parent: null,
	};
}
