import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { join } from "node:path";
import { ensurePrivateDir } from "./data-dir.ts";
import { DuplicateRequestError, StoreClosedError, StoreCorruptError, StoreError } from "./errors.ts";
import { ColumnReader, type Migration, openPrivateDatabase, toJsonColumn } from "./sqlite.ts";

/** One committed entry of a conversation's transcript. `seq` orders all entries of the session. */
export interface StoredEntry {
	readonly seq: number;
	readonly conversation: string;
	readonly kind: string;
	/** Parsed JSON; validate it against the kind's schema before trusting its shape. */
	readonly data: unknown;
	/** Parsed JSON of the server-stamped author, or null for entries no person wrote. */
	readonly author: unknown;
	readonly requestId: string | null;
	readonly runId: string | null;
	readonly at: number;
}

export interface EntryInput {
	readonly kind: string;
	readonly data: unknown;
	readonly author?: unknown;
	/** The client's idempotency key: a second entry with the same key in the conversation is refused. */
	readonly requestId?: string | null;
	readonly runId?: string | null;
	readonly at?: number;
}

export interface EntryPage {
	readonly entries: StoredEntry[];
	/** True when there are entries beyond this page in the direction it was read. */
	readonly more: boolean;
}

/** Kind given to an entry whose stored JSON cannot be read; its data says what it was and why it failed. */
export const CORRUPT_KIND = "corrupt";
/** Kind of the entry recovery appends for a run the server did not see to its end. */
export const INTERRUPTED_KIND = "interrupted";

export const RUN_STATUSES = ["running", "done", "aborted", "error", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** How a run may be ended by the engine; `interrupted` is only ever set by recovery. */
export type RunEnd = Exclude<RunStatus, "running" | "interrupted">;

export interface RunRow {
	readonly id: string;
	readonly conversation: string;
	readonly startedAt: number;
	readonly endedAt: number | null;
	readonly status: RunStatus;
}

/** A run found still `running` when the store was opened, now `interrupted`, with the entry that says so. */
export interface RecoveredRun {
	readonly runId: string;
	readonly conversation: string;
	readonly startedAt: number;
	readonly entry: StoredEntry;
}

export const QUEUE_MODES = ["steer", "followUp"] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];
export const QUEUE_STATES = ["queued", "delivered", "withdrawn"] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export interface QueueInput {
	readonly id: string;
	readonly mode: QueueMode;
	readonly text: string;
	readonly author: unknown;
	readonly requestId?: string | null;
	readonly at?: number;
}

export interface QueuedRow {
	readonly id: string;
	readonly conversation: string;
	readonly mode: QueueMode;
	readonly text: string;
	readonly author: unknown;
	readonly requestId: string | null;
	readonly at: number;
	readonly state: QueueState;
}

export interface SessionStoreOptions {
	/** Told about entries that could not be read back (they are returned as `corrupt` entries). */
	readonly onCorrupt?: (error: StoreCorruptError) => void;
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The file of one session's store. Refuses anything but a UUID, so an id can never name another path. */
export function sessionStorePath(dataDir: string, sessionId: string): string {
	if (!SESSION_ID.test(sessionId)) throw new StoreError(`not a session id: ${JSON.stringify(sessionId)}`);
	return join(dataDir, "sessions", `${sessionId}.sqlite`);
}

const MIGRATIONS: readonly Migration[] = [
	(db) =>
		db.exec(`CREATE TABLE entries (
			seq INTEGER PRIMARY KEY AUTOINCREMENT,
			conversation TEXT NOT NULL,
			kind TEXT NOT NULL,
			data TEXT NOT NULL,
			author TEXT,
			request_id TEXT,
			run_id TEXT,
			at INTEGER NOT NULL
		) STRICT;
		CREATE INDEX entries_by_conversation ON entries (conversation, seq);
		CREATE UNIQUE INDEX entries_by_request ON entries (conversation, request_id) WHERE request_id IS NOT NULL;
		-- Recovery's exactly-once rule, enforced by the file itself and not only by the code.
		CREATE UNIQUE INDEX entries_one_interruption ON entries (run_id) WHERE kind = '${INTERRUPTED_KIND}';

		CREATE TABLE runs (
			id TEXT PRIMARY KEY,
			conversation TEXT NOT NULL,
			started_at INTEGER NOT NULL,
			ended_at INTEGER,
			status TEXT NOT NULL CHECK (status IN (${RUN_STATUSES.map((s) => `'${s}'`).join(", ")}))
		) STRICT;
		CREATE INDEX runs_running ON runs (conversation) WHERE status = 'running';

		CREATE TABLE queue (
			id TEXT PRIMARY KEY,
			conversation TEXT NOT NULL,
			mode TEXT NOT NULL CHECK (mode IN (${QUEUE_MODES.map((s) => `'${s}'`).join(", ")})),
			text TEXT NOT NULL,
			author TEXT,
			request_id TEXT,
			at INTEGER NOT NULL,
			state TEXT NOT NULL CHECK (state IN (${QUEUE_STATES.map((s) => `'${s}'`).join(", ")}))
		) STRICT;
		CREATE INDEX queue_by_conversation ON queue (conversation, state);
		CREATE UNIQUE INDEX queue_by_request ON queue (conversation, request_id) WHERE request_id IS NOT NULL;`),
];

interface EntryRecord {
	seq: unknown;
	conversation: unknown;
	kind: unknown;
	data: unknown;
	author: unknown;
	request_id: unknown;
	run_id: unknown;
	at: unknown;
}
interface RunRecord {
	id: unknown;
	conversation: unknown;
	started_at: unknown;
	ended_at: unknown;
	status: unknown;
}
interface QueueRecord {
	pos: unknown;
	id: unknown;
	conversation: unknown;
	mode: unknown;
	text: unknown;
	author: unknown;
	request_id: unknown;
	at: unknown;
	state: unknown;
}

type Query<Row> = Statement<Row, SQLQueryBindings[]>;

const ENTRY = "seq, conversation, kind, data, author, request_id, run_id, at";
const RUN = "id, conversation, started_at, ended_at, status";
// `rowid` is the queue's submission order: rows are never deleted, so it only grows.
const QUEUE = "rowid AS pos, id, conversation, mode, text, author, request_id, at, state";

/**
 * One session's history: `<data>/sessions/<id>.sqlite`, append-only entries per conversation, the runs that
 * produced them and the inputs queued for the next turn. Opening it recovers from a crash: runs left `running`
 * become `interrupted`, each with one `interrupted` entry.
 *
 * One server process owns a session file at a time; a second process opening it would take the first one's
 * live runs for crashed ones.
 */
export class SessionStore {
	readonly sessionId: string;
	readonly path: string;
	#db: Database;
	#onCorrupt: (error: StoreCorruptError) => void;
	#closed = false;
	#recovered: readonly RecoveredRun[] = [];
	#insertEntry: Query<never>;
	#byRequest: Query<EntryRecord>;
	#latest: Query<EntryRecord>;
	#before: Query<EntryRecord>;
	#after: Query<EntryRecord>;
	#count: Query<{ n: number }>;
	#search: Statement;
	#conversations: Query<{ conversation: unknown }>;
	#insertRun: Query<RunRecord>;
	#endRun: Query<RunRecord>;
	#run: Query<RunRecord>;
	#running: Query<RunRecord>;
	#activeRun: Query<RunRecord>;
	#interruptRun: Query<never>;
	#insertQueued: Query<QueueRecord>;
	#queuedById: Query<QueueRecord>;
	#queuedByRequest: Query<QueueRecord>;
	#queued: Query<QueueRecord>;
	#setQueueState: Query<QueueRecord>;

	private constructor(sessionId: string, path: string, db: Database, options: SessionStoreOptions) {
		this.sessionId = sessionId;
		this.path = path;
		this.#db = db;
		this.#onCorrupt = options.onCorrupt ?? ((error) => console.error(error.message));
		this.#insertEntry = db.query(
			"INSERT INTO entries (conversation, kind, data, author, request_id, run_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		);
		this.#byRequest = db.query(`SELECT ${ENTRY} FROM entries WHERE conversation = ? AND request_id = ?`);
		this.#latest = db.query(`SELECT ${ENTRY} FROM entries WHERE conversation = ? ORDER BY seq DESC LIMIT ?`);
		this.#before = db.query(
			`SELECT ${ENTRY} FROM entries WHERE conversation = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
		);
		this.#after = db.query(`SELECT ${ENTRY} FROM entries WHERE conversation = ? AND seq > ? ORDER BY seq LIMIT ?`);
		this.#count = db.query("SELECT COUNT(*) AS n FROM entries WHERE conversation = ?");
		// A literal, case-insensitive match in the stored JSON; the caller checks the decoded text again.
		this.#search = db.query(
			`SELECT ${ENTRY} FROM entries WHERE kind IN ('user', 'assistant') AND instr(lower(data), lower(?)) > 0 ORDER BY seq DESC LIMIT ?`,
		);
		this.#conversations = db.query("SELECT conversation FROM entries GROUP BY conversation ORDER BY MIN(seq)");
		this.#insertRun = db.query(
			`INSERT INTO runs (id, conversation, started_at, status) VALUES (?, ?, ?, 'running') RETURNING ${RUN}`,
		);
		this.#endRun = db.query(
			`UPDATE runs SET status = ?, ended_at = ? WHERE id = ? AND status = 'running' RETURNING ${RUN}`,
		);
		this.#run = db.query(`SELECT ${RUN} FROM runs WHERE id = ?`);
		this.#running = db.query(`SELECT ${RUN} FROM runs WHERE status = 'running' ORDER BY started_at, rowid`);
		this.#activeRun = db.query(
			`SELECT ${RUN} FROM runs WHERE conversation = ? AND status = 'running' ORDER BY started_at DESC LIMIT 1`,
		);
		this.#interruptRun = db.query(
			"UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id = ? AND status = 'running'",
		);
		this.#insertQueued = db.query(
			`INSERT INTO queue (id, conversation, mode, text, author, request_id, at, state)
			VALUES (?, ?, ?, ?, ?, ?, ?, 'queued') RETURNING ${QUEUE}`,
		);
		this.#queuedById = db.query(`SELECT ${QUEUE} FROM queue WHERE id = ?`);
		this.#queuedByRequest = db.query(`SELECT ${QUEUE} FROM queue WHERE conversation = ? AND request_id = ?`);
		this.#queued = db.query(`SELECT ${QUEUE} FROM queue WHERE conversation = ? AND state = 'queued' ORDER BY rowid`);
		this.#setQueueState = db.query(`UPDATE queue SET state = ? WHERE id = ? AND state = 'queued' RETURNING ${QUEUE}`);
	}

	/** Opens (creating when missing) a session's store and recovers its interrupted runs. */
	static open(dataDir: string, sessionId: string, options: SessionStoreOptions = {}): SessionStore {
		const path = sessionStorePath(dataDir, sessionId);
		ensurePrivateDir(dataDir);
		ensurePrivateDir(join(dataDir, "sessions"));
		const db = openPrivateDatabase(path, MIGRATIONS);
		try {
			const store = new SessionStore(sessionId, path, db, options);
			store.#recovered = store.#recover();
			return store;
		} catch (error) {
			db.close();
			throw error;
		}
	}

	// --- entries ---

	/** Appends one entry. A `requestId` already used in the conversation throws DuplicateRequestError. */
	append(conversation: string, input: EntryInput): StoredEntry {
		this.#live();
		return this.#db.transaction(() => this.#append(conversation, input)).immediate();
	}

	/** Appends entries in one transaction: all of them are committed, or (on any error) none. */
	appendMany(conversation: string, inputs: readonly EntryInput[]): StoredEntry[] {
		this.#live();
		const keys = new Set<string>();
		for (const input of inputs) {
			if (input.requestId == null) continue;
			if (keys.has(input.requestId)) throw new StoreError(`request ${input.requestId} appears twice in one batch`);
			keys.add(input.requestId);
		}
		return this.#db.transaction(() => inputs.map((input) => this.#append(conversation, input))).immediate();
	}

	/** The last `limit` entries of the conversation, oldest first. */
	window(conversation: string, limit: number): StoredEntry[] {
		this.#live();
		return this.#decodeEntries(this.#latest.all(conversation, clampLimit(limit))).reverse();
	}

	/** Up to `limit` entries right before `beforeSeq` (or the end), oldest first; `more` when older ones exist. */
	page(conversation: string, options: { beforeSeq?: number; limit: number }): EntryPage {
		this.#live();
		const limit = clampLimit(options.limit);
		const beforeSeq = options.beforeSeq ?? Number.MAX_SAFE_INTEGER;
		const rows = this.#before.all(conversation, beforeSeq, limit + 1);
		const more = rows.length > limit;
		return { entries: this.#decodeEntries(rows.slice(0, limit)).reverse(), more };
	}

	/** Up to `limit` entries right after `afterSeq`, oldest first; `more` when newer ones exist. For catching up. */
	since(conversation: string, afterSeq: number, limit: number): EntryPage {
		this.#live();
		const max = clampLimit(limit);
		const rows = this.#after.all(conversation, afterSeq, max + 1);
		return { entries: this.#decodeEntries(rows.slice(0, max)), more: rows.length > max };
	}

	/** The newest user and assistant entries (any conversation) whose stored data contains the text. */
	searchText(text: string, limit: number): StoredEntry[] {
		this.#live();
		return this.#decodeEntries(this.#search.all(text, clampLimit(limit)) as EntryRecord[]);
	}

	count(conversation: string): number {
		this.#live();
		return this.#count.get(conversation)?.n ?? 0;
	}

	/** The entry a request already produced, so a retried request can answer without appending again. */
	byRequestId(conversation: string, requestId: string): StoredEntry | undefined {
		this.#live();
		const row = this.#byRequest.get(conversation, requestId);
		return row ? this.#decodeEntry(row) : undefined;
	}

	/** Ids of the conversations that have entries, in the order they began. */
	conversations(): string[] {
		this.#live();
		const read = new ColumnReader("entries");
		return this.#conversations.all().map((row) => read.text(row.conversation, "conversation"));
	}

	// --- runs ---

	beginRun(conversation: string, runId: string, at = Date.now()): RunRow {
		this.#live();
		if (this.#run.get(runId)) throw new StoreError(`run ${runId} already exists`);
		return decodeRun(this.#insertRun.get(runId, conversation, at)!);
	}

	/** Ends a running run. Returns undefined (and changes nothing) when the run is unknown or no longer running. */
	endRun(runId: string, status: RunEnd, at = Date.now()): RunRow | undefined {
		this.#live();
		if (!["done", "aborted", "error"].includes(status)) throw new StoreError(`a run cannot end as ${status}`);
		const row = this.#endRun.get(status, at, runId);
		return row ? decodeRun(row) : undefined;
	}

	run(runId: string): RunRow | undefined {
		this.#live();
		const row = this.#run.get(runId);
		return row ? decodeRun(row) : undefined;
	}

	/** The conversation's run that is still going, if any. */
	activeRun(conversation: string): RunRow | undefined {
		this.#live();
		const row = this.#activeRun.get(conversation);
		return row ? decodeRun(row) : undefined;
	}

	/** The runs this open found still `running` and marked `interrupted`, in the order they started. */
	runsInterrupted(): readonly RecoveredRun[] {
		return this.#recovered;
	}

	// --- queue ---

	/** Queues an input for the conversation's next turn. A reused id or `requestId` throws DuplicateRequestError. */
	enqueue(conversation: string, input: QueueInput): QueuedRow {
		this.#live();
		if (!(QUEUE_MODES as readonly string[]).includes(input.mode)) throw new StoreError(`bad queue mode ${input.mode}`);
		return this.#db
			.transaction(() => {
				const sameId = this.#queuedById.get(input.id);
				if (sameId) throw new DuplicateRequestError(`queued input ${input.id} already exists`, decodeQueued(sameId));
				if (input.requestId != null) {
					const sameRequest = this.#queuedByRequest.get(conversation, input.requestId);
					if (sameRequest) {
						throw new DuplicateRequestError(`request ${input.requestId} is already queued`, decodeQueued(sameRequest));
					}
				}
				const row = this.#insertQueued.get(
					input.id,
					conversation,
					input.mode,
					input.text,
					input.author == null ? null : toJsonColumn(input.author, "author"),
					input.requestId ?? null,
					input.at ?? Date.now(),
				);
				return decodeQueued(row!);
			})
			.immediate();
	}

	/** The input queued under a request id, whatever became of it since (delivered, withdrawn, handed back). */
	queuedByRequestId(conversation: string, requestId: string): QueuedRow | undefined {
		this.#live();
		const row = this.#queuedByRequest.get(conversation, requestId);
		return row ? decodeQueued(row) : undefined;
	}

	/** Inputs still waiting, in submission order. */
	queued(conversation: string): QueuedRow[] {
		this.#live();
		return this.#queued.all(conversation).map(decodeQueued);
	}

	/** Marks a queued input as handed to the agent. False when it was not queued any more. */
	markDelivered(id: string): boolean {
		this.#live();
		return this.#setQueueState.get("delivered", id) !== null;
	}

	/** Withdraws those of `ids` that are still queued, atomically; returns them in submission order. */
	withdraw(ids: readonly string[]): QueuedRow[] {
		this.#live();
		return this.#db
			.transaction(() => {
				const rows: QueueRecord[] = [];
				for (const id of new Set(ids)) {
					const row = this.#setQueueState.get("withdrawn", id);
					if (row) rows.push(row);
				}
				return rows.sort((a, b) => Number(a.pos) - Number(b.pos)).map(decodeQueued);
			})
			.immediate();
	}

	get closed(): boolean {
		return this.#closed;
	}

	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		this.#db.close();
	}

	// --- internals ---

	#append(conversation: string, input: EntryInput): StoredEntry {
		const requestId = input.requestId ?? null;
		if (requestId !== null) {
			const existing = this.#byRequest.get(conversation, requestId);
			if (existing) {
				throw new DuplicateRequestError(`request ${requestId} was already stored`, this.#decodeEntry(existing));
			}
		}
		if (typeof input.kind !== "string" || input.kind === "") throw new StoreError("an entry needs a kind");
		const data = toJsonColumn(input.data, "entry data");
		const author = input.author == null ? null : toJsonColumn(input.author, "entry author");
		const runId = input.runId ?? null;
		const at = input.at ?? Date.now();
		const { lastInsertRowid } = this.#insertEntry.run(conversation, input.kind, data, author, requestId, runId, at);
		// Parsing what was stored hands back what a later read returns, not the caller's (mutable) objects.
		return {
			seq: Number(lastInsertRowid),
			conversation,
			kind: input.kind,
			data: JSON.parse(data),
			author: author === null ? null : JSON.parse(author),
			requestId,
			runId,
			at,
		};
	}

	/** Runs left `running` by a crash become `interrupted`, each with one entry, in one transaction. */
	#recover(): RecoveredRun[] {
		return this.#db
			.transaction(() => {
				const recovered: RecoveredRun[] = [];
				const now = Date.now();
				for (const row of this.#running.all()) {
					const run = decodeRun(row);
					if (this.#interruptRun.run(now, run.id).changes === 0) continue;
					const entry = this.#append(run.conversation, {
						kind: INTERRUPTED_KIND,
						data: { runId: run.id, startedAt: run.startedAt },
						runId: run.id,
						at: now,
					});
					recovered.push({ runId: run.id, conversation: run.conversation, startedAt: run.startedAt, entry });
				}
				return recovered;
			})
			.immediate();
	}

	#decodeEntries(rows: EntryRecord[]): StoredEntry[] {
		return rows.map((row) => this.#decodeEntry(row));
	}

	/** A row whose JSON is damaged becomes a `corrupt` entry in its place, so one bad row never hides the rest. */
	#decodeEntry(row: EntryRecord): StoredEntry {
		const read = new ColumnReader(`session ${this.sessionId} entry ${String(row.seq)}`);
		const seq = read.integer(row.seq, "seq");
		const conversation = read.text(row.conversation, "conversation");
		try {
			return {
				seq,
				conversation,
				kind: read.text(row.kind, "kind"),
				data: read.json(row.data, "data"),
				author: read.optionalJson(row.author, "author"),
				requestId: read.optionalText(row.request_id, "request_id"),
				runId: read.optionalText(row.run_id, "run_id"),
				at: read.integer(row.at, "at"),
			};
		} catch (error) {
			if (!(error instanceof StoreCorruptError)) throw error;
			this.#onCorrupt(error);
			return {
				seq,
				conversation,
				kind: CORRUPT_KIND,
				data: { kind: typeof row.kind === "string" ? row.kind : null, error: error.message },
				author: null,
				requestId: typeof row.request_id === "string" ? row.request_id : null,
				runId: typeof row.run_id === "string" ? row.run_id : null,
				at: typeof row.at === "number" ? row.at : 0,
			};
		}
	}

	#live(): void {
		if (this.#closed) throw new StoreClosedError(`session store ${this.sessionId} is closed`);
	}
}

function clampLimit(limit: number): number {
	if (!Number.isFinite(limit) || limit <= 0) return 0;
	return Math.floor(limit);
}

function decodeRun(row: RunRecord): RunRow {
	const read = new ColumnReader(`run ${String(row.id)}`);
	return {
		id: read.text(row.id, "id"),
		conversation: read.text(row.conversation, "conversation"),
		startedAt: read.integer(row.started_at, "started_at"),
		endedAt: read.optionalInteger(row.ended_at, "ended_at"),
		status: read.oneOf(row.status, "status", RUN_STATUSES),
	};
}

function decodeQueued(row: QueueRecord): QueuedRow {
	const read = new ColumnReader(`queued input ${String(row.id)}`);
	return {
		id: read.text(row.id, "id"),
		conversation: read.text(row.conversation, "conversation"),
		mode: read.oneOf(row.mode, "mode", QUEUE_MODES),
		text: read.text(row.text, "text"),
		author: read.optionalJson(row.author, "author"),
		requestId: read.optionalText(row.request_id, "request_id"),
		at: read.integer(row.at, "at"),
		state: read.oneOf(row.state, "state", QUEUE_STATES),
	};
}
