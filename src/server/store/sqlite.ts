import { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorText } from "../../protocol/errors.ts";
import { ensurePrivateFileMode, PRIVATE_FILE_MODE, randomHex } from "./data-dir.ts";
import { StoreCorruptError, StoreDamagedError, StoreFullError, StoreOpenError } from "./errors.ts";

/** One schema step; step `i` takes `PRAGMA user_version` from `i` to `i + 1`. */
export type Migration = (db: Database) => void;

export interface OpenOptions {
	/** Run SQLite's quick_check when opening, so damage anywhere in the file is found now. */
	readonly check?: boolean;
}

/**
 * Opens (creating when missing) a 0600 SQLite file in WAL mode and brings its schema up to date. A file that
 * exists but is empty, is not a database or is damaged throws StoreDamagedError: it is never silently made into
 * a new, empty store. A new store is made under a temporary name and renamed into place once its schema is
 * there, so an empty file at `path` can only be damage.
 *
 * Durability: `synchronous=NORMAL`. In WAL mode a commit has been written to the -wal file (the OS page cache)
 * before it returns, so it survives the process being killed at any moment; only a power loss or kernel crash
 * can roll back the last few commits, and never corrupts the file. `FULL` would add an fsync per commit, which
 * streamed agent output (one commit per entry) would pay for on every token batch.
 */
export function openPrivateDatabase(
	path: string,
	migrations: readonly Migration[],
	options: OpenOptions = {},
): Database {
	if (!existsSync(path)) createDatabase(path, migrations);
	else if (statSync(path).size === 0) throw new StoreDamagedError(path, "the file is empty");
	let db: Database | undefined;
	try {
		ensurePrivateFileMode(path);
		db = new Database(path, { create: false, readwrite: true });
		prepare(db, migrations);
		if (options.check) {
			const result = db.query<{ quick_check: string }, []>("PRAGMA quick_check(1)").get()?.quick_check;
			if (result !== "ok") throw new StoreDamagedError(path, result ?? "quick_check gave no answer");
		}
		for (const suffix of ["-wal", "-shm"]) if (existsSync(path + suffix)) ensurePrivateFileMode(path + suffix);
		return db;
	} catch (error) {
		db?.close();
		if (error instanceof StoreOpenError) throw error;
		const code = sqliteCode(error);
		if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") throw new StoreDamagedError(path, errorText(error));
		throw new StoreOpenError(`cannot open ${path}: ${errorText(error)}`, { cause: error });
	}
}

function prepare(db: Database, migrations: readonly Migration[]): void {
	db.exec("PRAGMA busy_timeout=5000");
	const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode=WAL").get()?.journal_mode;
	if (mode?.toLowerCase() !== "wal") throw new Error(`WAL mode refused (journal_mode=${mode})`);
	db.exec("PRAGMA synchronous=NORMAL");
	migrate(db, migrations);
}

/** A new store: made 0600 under a temporary name, given its schema, closed (its WAL folded in) and renamed. */
export function createDatabase(path: string, migrations: readonly Migration[]): void {
	const temp = join(dirname(path), `.${basename(path)}.${randomHex(6)}.new`);
	try {
		// SQLite gives -wal and -shm the main file's permissions, so creating it 0600 covers all three.
		writeFileSync(temp, "", { mode: PRIVATE_FILE_MODE, flag: "wx" });
		const db = new Database(temp, { create: false, readwrite: true });
		try {
			prepare(db, migrations);
		} finally {
			db.close();
		}
		renameSync(temp, path);
	} catch (error) {
		for (const suffix of ["", "-wal", "-shm"]) rmSync(temp + suffix, { force: true });
		if ((error as NodeJS.ErrnoException).code === "ENOSPC" || sqliteCode(error) === "SQLITE_FULL") {
			throw new StoreFullError(path);
		}
		throw error;
	}
}

/** A damaged store that was moved aside; a new one took its place. */
export interface Replaced {
	readonly reason: string;
	readonly movedTo: string;
}

/**
 * Opens a store; one found damaged (or emptied) is moved aside, reported by name, and a new one is made in its
 * place. For stores whose loss is better than a server that cannot start (sign-ins, shares, one session).
 */
export function openReplacingDamaged(
	path: string,
	migrations: readonly Migration[],
	report: (message: string) => void = console.error,
): { db: Database; replaced: Replaced | null } {
	try {
		return { db: openPrivateDatabase(path, migrations), replaced: null };
	} catch (error) {
		if (!(error instanceof StoreDamagedError)) throw error;
		const movedTo = moveAside(path);
		report(`${path} could not be read (${error.reason}); it was moved to ${movedTo} and a new, empty one made`);
		return { db: openPrivateDatabase(path, migrations), replaced: { reason: error.reason, movedTo } };
	}
}

/**
 * Moves a damaged store aside, with its -wal and -shm (a new store must never replay an old WAL), under a name
 * that says so; returns the new path of the main file. Nothing is deleted.
 */
export function moveAside(path: string, now = new Date()): string {
	const stamp = now.toISOString().replace(/[:.]/g, "-");
	const aside = `${path}.damaged-${stamp}`;
	for (const suffix of ["", "-wal", "-shm"]) {
		if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
	}
	return aside;
}

function migrate(db: Database, migrations: readonly Migration[]): void {
	const version = db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
	if (version > migrations.length) {
		throw new StoreOpenError(`schema version ${version} is newer than this p2 understands (${migrations.length})`);
	}
	if (version === migrations.length) return;
	db.transaction(() => {
		for (let step = version; step < migrations.length; step++) migrations[step]!(db);
		db.exec(`PRAGMA user_version=${migrations.length}`);
	}).immediate();
}

/** SQLite's result code of an error it threw, e.g. `SQLITE_FULL`; undefined for anything else. */
export function sqliteCode(error: unknown): string | undefined {
	if (typeof error !== "object" || error === null || !Object.hasOwn(error, "code")) return undefined;
	const code = (error as { code: unknown }).code;
	return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/** Runs a write; a full disk becomes a StoreFullError naming the file (SQLite has rolled the write back). */
export function writing<T>(path: string, write: () => T): T {
	try {
		return write();
	} catch (error) {
		if (sqliteCode(error) === "SQLITE_FULL") throw new StoreFullError(path);
		throw error;
	}
}

/** Parses a JSON column written by us; a damaged value becomes a StoreCorruptError naming the row. */
export function parseJsonColumn(text: string, where: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new StoreCorruptError(`${where}: invalid JSON (${errorText(error)})`);
	}
}

/** Serializes a value for a JSON column; values JSON cannot represent are refused rather than stored as garbage. */
export function toJsonColumn(value: unknown, what: string): string {
	let text: string | undefined;
	try {
		text = JSON.stringify(value);
	} catch (error) {
		throw new TypeError(`${what} is not JSON-serializable: ${errorText(error)}`);
	}
	if (text === undefined) throw new TypeError(`${what} is not JSON-serializable`);
	return text;
}

/** A monotonic millisecond clock: never goes backwards and never repeats, so "newest first" is a total order. */
export class MonotonicClock {
	#last: number;

	constructor(last = 0) {
		this.#last = last;
	}

	now(): number {
		this.#last = Math.max(Date.now(), this.#last + 1);
		return this.#last;
	}
}

/** Typed reads of one row's columns; a value of the wrong type throws a StoreCorruptError naming row and column. */
export class ColumnReader {
	readonly where: string;

	constructor(where: string) {
		this.where = where;
	}

	text(value: unknown, column: string): string {
		if (typeof value !== "string") throw new StoreCorruptError(`${this.where}: ${column} is not text`);
		return value;
	}

	optionalText(value: unknown, column: string): string | null {
		return value === null ? null : this.text(value, column);
	}

	integer(value: unknown, column: string): number {
		if (typeof value !== "number" || !Number.isSafeInteger(value)) {
			throw new StoreCorruptError(`${this.where}: ${column} is not an integer`);
		}
		return value;
	}

	optionalInteger(value: unknown, column: string): number | null {
		return value === null ? null : this.integer(value, column);
	}

	flag(value: unknown, column: string): boolean {
		if (value !== 0 && value !== 1) throw new StoreCorruptError(`${this.where}: ${column} is not 0 or 1`);
		return value === 1;
	}

	oneOf<const T extends string>(value: unknown, column: string, allowed: readonly T[]): T {
		const text = this.text(value, column);
		if (!(allowed as readonly string[]).includes(text)) {
			throw new StoreCorruptError(`${this.where}: ${column} is not one of ${allowed.join(", ")}`);
		}
		return text as T;
	}

	json(value: unknown, column: string): unknown {
		return parseJsonColumn(this.text(value, column), `${this.where}: ${column}`);
	}

	optionalJson(value: unknown, column: string): unknown {
		return value === null ? null : this.json(value, column);
	}
}
