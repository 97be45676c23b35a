import { Database } from "bun:sqlite";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type } from "arktype";
import { ensurePrivateDir, PRIVATE_FILE_MODE, readPrivateFile, writePrivateFile } from "./data-dir.ts";
import { sqliteCode } from "./sqlite.ts";

/** The SQLite file whose exclusive lock says "a server owns this data directory". */
export const LOCK_FILE = "server.lock";
/** Who holds the lock: written by the holder only, read by whoever finds the directory taken. */
export const HOLDER_FILE = "server.holder.json";

const Holder = type({ pid: "number.integer", origin: "string | null", since: "number" });
export type DataDirHolder = typeof Holder.infer;

/** Another server owns the data directory; `holder` says which, when it could be read. */
export class DataDirBusyError extends Error {
	override name = "DataDirBusyError";
	readonly dataDir: string;
	readonly holder: DataDirHolder | null;

	constructor(dataDir: string, holder: DataDirHolder | null) {
		const who = holder ? ` (pid ${holder.pid}${holder.origin ? `, ${holder.origin}` : ", still starting"})` : "";
		super(`the data directory ${dataDir} is in use by another p2 server${who}`);
		this.dataDir = dataDir;
		this.holder = holder;
	}
}

export interface DataDirLock {
	/** Records where the holder listens, for whoever finds the directory taken. */
	setOrigin(origin: string): void;
	release(): void;
}

/**
 * Connections that hold a lock, kept here so the garbage collector never closes one (closing the connection
 * is what lets the lock go).
 */
const held = new Set<Database>();

/**
 * Takes the data directory for this process, or throws DataDirBusyError naming the holder. The lock is
 * SQLite's exclusive lock on `server.lock`: the operating system drops it when the process ends in any way
 * (kill -9 included), so it is never left stale, and a stopped (SIGSTOP) holder keeps it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
	ensurePrivateDir(dataDir);
	const db = tryLock(dataDir);
	if (!db) throw new DataDirBusyError(dataDir, readHolder(dataDir));
	held.add(db);
	const since = Date.now();
	const holderPath = join(dataDir, HOLDER_FILE);
	const write = (origin: string | null) =>
		writePrivateFile(holderPath, `${JSON.stringify({ pid: process.pid, origin, since })}\n`);
	try {
		write(null);
	} catch (error) {
		held.delete(db);
		db.close();
		throw error;
	}
	let released = false;
	return {
		setOrigin: (origin) => write(origin),
		release() {
			if (released) return;
			released = true;
			held.delete(db);
			db.close();
		},
	};
}

/** Who holds the data directory now, or null when nobody does (then nothing is left locked by this call). */
export function dataDirHolder(dataDir: string): DataDirBusyError | null {
	if (!existsSync(join(dataDir, LOCK_FILE))) return null;
	const db = tryLock(dataDir);
	if (!db) return new DataDirBusyError(dataDir, readHolder(dataDir));
	db.close();
	return null;
}

function tryLock(dataDir: string): Database | null {
	const path = join(dataDir, LOCK_FILE);
	// Created 0600 before SQLite opens it; SQLite keeps the mode of an existing file.
	if (!existsSync(path)) writeFileSync(path, "", { mode: PRIVATE_FILE_MODE, flag: "a" });
	const db = new Database(path, { create: true, readwrite: true });
	try {
		db.exec("PRAGMA busy_timeout=0");
		// In exclusive locking mode the first write takes the lock, and it is kept until the connection closes.
		db.exec("PRAGMA locking_mode=EXCLUSIVE");
		db.exec("BEGIN EXCLUSIVE");
		db.exec("CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY, taken_at INTEGER NOT NULL)");
		db.run("INSERT OR REPLACE INTO lock (id, taken_at) VALUES (1, ?)", [Date.now()]);
		db.exec("COMMIT");
		return db;
	} catch (error) {
		db.close();
		if (isBusy(error)) return null;
		throw error;
	}
}

function isBusy(error: unknown): boolean {
	const code = sqliteCode(error);
	return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

function readHolder(dataDir: string): DataDirHolder | null {
	try {
		const text = readPrivateFile(join(dataDir, HOLDER_FILE));
		if (text === undefined) return null;
		const parsed = Holder(JSON.parse(text));
		return parsed instanceof type.errors ? null : parsed;
	} catch {
		return null;
	}
}
