import type { Database, Statement } from "bun:sqlite";
import { join } from "node:path";
import { ensurePrivateDir } from "./data-dir.ts";
import { StoreClosedError, StoreCorruptError, StoreError } from "./errors.ts";
import { ColumnReader, type Migration, MonotonicClock, openPrivateDatabase, writing } from "./sqlite.ts";

/** One session in the catalog. Times are ms since the epoch. */
export interface SessionRecord {
	readonly id: string;
	readonly title: string;
	readonly cwd: string;
	/** Where the session's tools run: `local` is the server's own machine. */
	readonly env: string;
	/** `provider/id`, or null for the server's default model. */
	readonly model: string | null;
	readonly thinkingLevel: string | null;
	readonly pinned: boolean;
	readonly archived: boolean;
	readonly createdAt: number;
	readonly updatedAt: number;
	/** The session this one was forked or cloned from. */
	readonly parent: string | null;
}
export type SessionRow = SessionRecord;

export interface CreateSessionInput {
	readonly cwd: string;
	readonly env?: string;
	readonly title?: string;
	readonly parent?: string | null;
	readonly model?: string | null;
	readonly thinkingLevel?: string | null;
}

export type SessionPatch = Partial<
	Pick<SessionRecord, "title" | "pinned" | "archived" | "model" | "thinkingLevel" | "cwd" | "env">
>;

export interface CatalogOptions {
	/** Told about rows `list` had to skip because they are damaged. Defaults to console.error. */
	readonly onCorrupt?: (error: StoreCorruptError) => void;
	/** Given the connection once it is open (a test limits its size to stand in for a full disk). */
	readonly configure?: (db: Database, path: string) => void;
	/**
	 * Told every record created or changed, after it is committed: the session's store keeps a copy, so the
	 * catalog can be rebuilt from the stores. A failure is reported, never the caller's error.
	 */
	readonly mirror?: (record: SessionRecord) => void;
}

export const DEFAULT_ENV = "local";
export const CATALOG_FILE = "catalog.sqlite";

interface Row {
	id: unknown;
	title: unknown;
	cwd: unknown;
	env: unknown;
	model: unknown;
	thinking_level: unknown;
	pinned: unknown;
	archived: unknown;
	created_at: unknown;
	updated_at: unknown;
	parent: unknown;
}

const MIGRATIONS: readonly Migration[] = [
	(db) =>
		db.exec(`CREATE TABLE sessions (
			id TEXT PRIMARY KEY,
			title TEXT NOT NULL,
			cwd TEXT NOT NULL,
			env TEXT NOT NULL,
			model TEXT,
			thinking_level TEXT,
			pinned INTEGER NOT NULL DEFAULT 0,
			archived INTEGER NOT NULL DEFAULT 0,
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL,
			parent TEXT
		) STRICT;
		CREATE INDEX sessions_by_updated ON sessions (updated_at DESC);`),
];

const COLUMNS = "id, title, cwd, env, model, thinking_level, pinned, archived, created_at, updated_at, parent";

/** The list of sessions: `<data>/catalog.sqlite`. */
export class Catalog {
	#db: Database;
	readonly #path: string;
	#clock: MonotonicClock;
	#onCorrupt: (error: StoreCorruptError) => void;
	#mirror: (record: SessionRecord) => void;
	#closed = false;
	#insert: Statement<Row>;
	#get: Statement<Row>;
	#listAll: Statement<Row>;
	#listByArchived: Statement<Row>;
	#touch: Statement;

	private constructor(db: Database, path: string, options: CatalogOptions) {
		this.#db = db;
		this.#path = path;
		this.#onCorrupt = options.onCorrupt ?? ((error) => console.error(error.message));
		this.#mirror = options.mirror ?? (() => {});
		const newest = db.query<{ t: number | null }, []>("SELECT MAX(updated_at) AS t FROM sessions").get()?.t;
		this.#clock = new MonotonicClock(typeof newest === "number" ? newest : 0);
		this.#insert = db.query(`INSERT INTO sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?) RETURNING *`);
		this.#get = db.query(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
		this.#listAll = db.query(`SELECT ${COLUMNS} FROM sessions ORDER BY updated_at DESC, id`);
		this.#listByArchived = db.query(`SELECT ${COLUMNS} FROM sessions WHERE archived = ? ORDER BY updated_at DESC, id`);
		this.#touch = db.query("UPDATE sessions SET updated_at = ? WHERE id = ?");
	}

	static open(dataDir: string, options: CatalogOptions = {}): Catalog {
		ensurePrivateDir(dataDir);
		const path = join(dataDir, CATALOG_FILE);
		// Checked whole on open: a damaged catalog is found now, and rebuilt from the session stores.
		const db = openPrivateDatabase(path, MIGRATIONS, { check: true });
		try {
			options.configure?.(db, path);
			return new Catalog(db, path, options);
		} catch (error) {
			db.close();
			throw error;
		}
	}

	create(input: CreateSessionInput): SessionRecord {
		this.#live();
		const now = this.#clock.now();
		const row = writing(this.#path, () =>
			this.#insert.get(
				crypto.randomUUID(),
				input.title ?? "",
				input.cwd,
				input.env ?? DEFAULT_ENV,
				input.model ?? null,
				input.thinkingLevel ?? null,
				now,
				now,
				input.parent ?? null,
			),
		);
		const record = decode(row!);
		// A new session's store is opened (and given its copy of this row) just after the answer: opening it (or
		// making it, when no spare is ready) takes longer than the rest of a create, and the client's next step
		// (opening the chat) needs the answer.
		// A store opened first gets its copy then (SessionStores), from the row as it is by then.
		setImmediate(() => {
			if (this.#closed) return;
			try {
				const now = this.get(record.id);
				if (now) this.#mirrored(now);
			} catch (error) {
				console.error(`session ${record.id}: its store could not keep a copy of its catalog record:`, error);
			}
		});
		return record;
	}

	/** Puts back a record as it was (rebuilding the catalog from the session stores); replaces one with its id. */
	restore(record: SessionRecord): SessionRecord {
		this.#live();
		const row = writing(this.#path, () =>
			this.#db
				.query<Row, (string | number | null)[]>(
					`INSERT OR REPLACE INTO sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
				)
				.get(
					record.id,
					record.title,
					record.cwd,
					record.env,
					record.model,
					record.thinkingLevel,
					record.pinned ? 1 : 0,
					record.archived ? 1 : 0,
					record.createdAt,
					record.updatedAt,
					record.parent,
				),
		);
		this.#clock = new MonotonicClock(Math.max(this.#clock.now(), record.updatedAt));
		return decode(row!);
	}

	/** The session, or undefined when there is none; a damaged row throws StoreCorruptError. */
	get(id: string): SessionRecord | undefined {
		this.#live();
		const row = this.#get.get(id);
		return row ? decode(row) : undefined;
	}

	/** Newest first. `archived` selects one scope; leave it out for both. Damaged rows are skipped and reported. */
	list(filter: { archived?: boolean } = {}): SessionRecord[] {
		this.#live();
		const rows =
			filter.archived === undefined ? this.#listAll.all() : this.#listByArchived.all(filter.archived ? 1 : 0);
		const out: SessionRecord[] = [];
		for (const row of rows) {
			try {
				out.push(decode(row));
			} catch (error) {
				if (!(error instanceof StoreCorruptError)) throw error;
				this.#onCorrupt(error);
			}
		}
		return out;
	}

	/**
	 * Changes the given fields; throws StoreError when there is no such session. `updatedAt` is the session's
	 * last activity (pi's "modified": its latest message), so a rename, a pin, an archive or a restore leaves it
	 * as it is; `touch` marks activity.
	 */
	update(id: string, patch: SessionPatch): SessionRecord {
		this.#live();
		const sets: string[] = [];
		const values: (string | number | null)[] = [];
		const set = (column: string, value: string | number | null) => {
			sets.push(`${column} = ?`);
			values.push(value);
		};
		if (patch.title !== undefined) set("title", patch.title);
		if (patch.cwd !== undefined) set("cwd", patch.cwd);
		if (patch.env !== undefined) set("env", patch.env);
		if (patch.model !== undefined) set("model", patch.model);
		if (patch.thinkingLevel !== undefined) set("thinking_level", patch.thinkingLevel);
		if (patch.pinned !== undefined) set("pinned", patch.pinned ? 1 : 0);
		if (patch.archived !== undefined) set("archived", patch.archived ? 1 : 0);
		if (sets.length === 0) {
			const unchanged = this.get(id);
			if (!unchanged) throw new StoreError(`no session ${id}`);
			return unchanged;
		}
		// The column list varies with the patch; the handful of shapes stay in bun:sqlite's statement cache.
		const row = writing(this.#path, () =>
			this.#db
				.query<Row, (string | number | null)[]>(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ? RETURNING *`)
				.get(...values, id),
		);
		if (!row) throw new StoreError(`no session ${id}`);
		return this.#mirrored(decode(row));
	}

	/** Marks activity: bumps `updatedAt` so the session sorts first. Returns false when there is no such session. */
	touch(id: string): boolean {
		this.#live();
		return writing(this.#path, () => this.#touch.run(this.#clock.now(), id)).changes > 0;
	}

	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		this.#db.close();
	}

	#live(): void {
		if (this.#closed) throw new StoreClosedError("the catalog is closed");
	}

	#mirrored(record: SessionRecord): SessionRecord {
		try {
			this.#mirror(record);
		} catch (error) {
			console.error(`session ${record.id}: its store could not keep a copy of its catalog record:`, error);
		}
		return record;
	}
}

function decode(row: Row): SessionRecord {
	const read = new ColumnReader(`catalog row ${typeof row.id === "string" ? row.id : "?"}`);
	return {
		id: read.text(row.id, "id"),
		title: read.text(row.title, "title"),
		cwd: read.text(row.cwd, "cwd"),
		env: read.text(row.env, "env"),
		model: read.optionalText(row.model, "model"),
		thinkingLevel: read.optionalText(row.thinking_level, "thinking_level"),
		pinned: read.flag(row.pinned, "pinned"),
		archived: read.flag(row.archived, "archived"),
		createdAt: read.integer(row.created_at, "created_at"),
		updatedAt: read.integer(row.updated_at, "updated_at"),
		parent: read.optionalText(row.parent, "parent"),
	};
}
