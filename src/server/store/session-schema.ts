/**
 * What a session store holds: its schema, the shapes of its rows and how a row is read back. The store itself
 * (session-store.ts) reads and writes them.
 */
import type { SQLQueryBindings, Statement } from "bun:sqlite";
import { ColumnReader, type Migration } from "./sqlite.ts";

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

export const CONVERSATION_STATUSES = ["running", "done", "failed", "aborted"] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** A conversation other than the main one: a subagent's, started by `parent` with a task (its title). */
export interface ConversationRow {
	readonly id: string;
	readonly parent: string;
	readonly title: string;
	/** `provider/id` of the model it answers with; null: the session's. */
	readonly model: string | null;
	readonly status: ConversationStatus;
	readonly archived: boolean;
	readonly createdAt: number;
	readonly endedAt: number | null;
}

export interface ConversationRecord {
	id: unknown;
	parent: unknown;
	title: unknown;
	model: unknown;
	status: unknown;
	archived: unknown;
	created_at: unknown;
	ended_at: unknown;
}

export const CONVERSATION = "id, parent, title, model, status, archived, created_at, ended_at";

export function decodeConversation(row: ConversationRecord): ConversationRow {
	const read = new ColumnReader(`conversation ${String(row.id)}`);
	return {
		id: read.text(row.id, "id"),
		parent: read.text(row.parent, "parent"),
		title: read.text(row.title, "title"),
		model: read.optionalText(row.model, "model"),
		status: read.oneOf(row.status, "status", CONVERSATION_STATUSES),
		archived: read.integer(row.archived, "archived") !== 0,
		createdAt: read.integer(row.created_at, "created_at"),
		endedAt: read.optionalInteger(row.ended_at, "ended_at"),
	};
}

/** A run to start, with what starts it: all of it is stored in one transaction, or none of it. */
export interface TurnInput {
	readonly runId: string;
	/** The person's message that starts the run (none when the run goes on from the history). */
	readonly entry?: EntryInput;
	/** The queued input this turn delivers (marked delivered in the same transaction). */
	readonly delivered?: string;
	readonly at?: number;
}

export const MIGRATIONS: readonly Migration[] = [
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
	// The session's own catalog row (JSON), so a lost or damaged catalog can be rebuilt from the stores.
	(db) => db.exec("CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL) STRICT;"),
	// The session's conversations beside the main one (subagents): who started each, what for, how it went.
	(db) =>
		db.exec(`CREATE TABLE conversations (
			id TEXT PRIMARY KEY,
			parent TEXT NOT NULL,
			title TEXT NOT NULL,
			model TEXT,
			status TEXT NOT NULL CHECK (status IN (${CONVERSATION_STATUSES.map((s) => `'${s}'`).join(", ")})),
			archived INTEGER NOT NULL DEFAULT 0,
			created_at INTEGER NOT NULL,
			ended_at INTEGER
		) STRICT;`),
];

export interface EntryRecord {
	seq: unknown;
	conversation: unknown;
	kind: unknown;
	data: unknown;
	author: unknown;
	request_id: unknown;
	run_id: unknown;
	at: unknown;
}
export interface RunRecord {
	id: unknown;
	conversation: unknown;
	started_at: unknown;
	ended_at: unknown;
	status: unknown;
}
export interface QueueRecord {
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

export type Query<Row> = Statement<Row, SQLQueryBindings[]>;

export const ENTRY = "seq, conversation, kind, data, author, request_id, run_id, at";
export const RUN = "id, conversation, started_at, ended_at, status";
// `rowid` is the queue's submission order: rows are never deleted, so it only grows.
export const QUEUE = "rowid AS pos, id, conversation, mode, text, author, request_id, at, state";

export function clampLimit(limit: number): number {
	if (!Number.isFinite(limit) || limit <= 0) return 0;
	return Math.floor(limit);
}

export function decodeRun(row: RunRecord): RunRow {
	const read = new ColumnReader(`run ${String(row.id)}`);
	return {
		id: read.text(row.id, "id"),
		conversation: read.text(row.conversation, "conversation"),
		startedAt: read.integer(row.started_at, "started_at"),
		endedAt: read.optionalInteger(row.ended_at, "ended_at"),
		status: read.oneOf(row.status, "status", RUN_STATUSES),
	};
}

export function decodeQueued(row: QueueRecord): QueuedRow {
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
