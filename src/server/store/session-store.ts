import type { Database, Statement } from "bun:sqlite";
import { linkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "./data-dir.ts";
import { DuplicateRequestError, StoreClosedError, StoreCorruptError, StoreError } from "./errors.ts";
import {
	CONVERSATION,
	CORRUPT_KIND,
	type ConversationRecord,
	type ConversationRow,
	type ConversationStatus,
	clampLimit,
	decodeConversation,
	decodeQueued,
	decodeRun,
	ENTRY,
	type EntryInput,
	type EntryPage,
	type EntryRecord,
	INTERRUPTED_KIND,
	MIGRATIONS,
	QUEUE,
	QUEUE_MODES,
	type Query,
	type QueuedRow,
	type QueueInput,
	type QueueRecord,
	type RecoveredRun,
	RUN,
	type RunEnd,
	type RunRecord,
	type RunRow,
	type StoredEntry,
	type TurnInput,
} from "./session-schema.ts";
import {
	ColumnReader,
	createDatabase,
	openPrivateDatabase,
	openReplacingDamaged,
	type Replaced,
	toJsonColumn,
	writing,
} from "./sqlite.ts";

export {
	CONVERSATION_STATUSES,
	CORRUPT_KIND,
	type ConversationRow,
	type ConversationStatus,
	type EntryInput,
	type EntryPage,
	INTERRUPTED_KIND,
	QUEUE_MODES,
	QUEUE_STATES,
	type QueuedRow,
	type QueueInput,
	type QueueMode,
	type QueueState,
	type RecoveredRun,
	RUN_STATUSES,
	type RunEnd,
	type RunRow,
	type RunStatus,
	type StoredEntry,
	type TurnInput,
} from "./session-schema.ts";

export interface SessionStoreOptions {
	/** Told about entries that could not be read back (they are returned as `corrupt` entries). */
	readonly onCorrupt?: (error: StoreCorruptError) => void;
	/** Given each connection once it is open (a test limits its size to stand in for a full disk). */
	readonly configure?: (db: Database, path: string) => void;
	/**
	 * A damaged or emptied file is moved aside, reported, and a new store made in its place (`replaced` says
	 * so). Without it, opening such a file throws StoreDamagedError.
	 */
	readonly replaceDamaged?: boolean;
	/** Told that a damaged file was moved aside (the server's log, a notice for the owner); standard error by default. */
	readonly reportDamaged?: (message: string) => void;
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The file of one session's store. Refuses anything but a UUID, so an id can never name another path. */
export function sessionStorePath(dataDir: string, sessionId: string): string {
	if (!SESSION_ID.test(sessionId)) throw new StoreError(`not a session id: ${JSON.stringify(sessionId)}`);
	return join(dataDir, "sessions", `${sessionId}.sqlite`);
}

/**
 * A new, empty session store made ahead of need (`<data>/sessions/.spare-store`, never a session's name): making
 * one takes ~10 ms, on the way from a new session to its first frame; taking the spare is a hard link.
 */
export function makeSpareStore(dataDir: string): string {
	ensurePrivateDir(dataDir);
	ensurePrivateDir(join(dataDir, "sessions"));
	const spare = join(dataDir, "sessions", ".spare-store");
	rmSync(spare, { force: true });
	createDatabase(spare, MIGRATIONS);
	return spare;
}

/**
 * Makes `spare` the session's store when it has none: linked, so that a store that appeared meanwhile is never
 * replaced, then the spare's name removed. False when there was no spare or the session had a store.
 */
export function takeSpareStore(spare: string, dataDir: string, sessionId: string): boolean {
	try {
		linkSync(spare, sessionStorePath(dataDir, sessionId));
	} catch {
		return false;
	}
	rmSync(spare, { force: true });
	return true;
}

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
	#replaced: Replaced | null = null;
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
		const { db, replaced } = options.replaceDamaged
			? openReplacingDamaged(path, MIGRATIONS, options.reportDamaged)
			: { db: openPrivateDatabase(path, MIGRATIONS), replaced: null };
		try {
			options.configure?.(db, path);
			const store = new SessionStore(sessionId, path, db, options);
			store.#recovered = store.#recover();
			store.#replaced = replaced;
			return store;
		} catch (error) {
			db.close();
			throw error;
		}
	}

	/** The damaged file this open moved aside and replaced with a new, empty store; null when none was. */
	get replaced(): Replaced | null {
		return this.#replaced;
	}

	/** The session's catalog row as this store keeps it (parsed JSON), or null when it has none yet. */
	meta(): unknown {
		this.#live();
		const row = this.#db.query<{ record: unknown }, []>("SELECT record FROM meta WHERE id = 1").get();
		return row ? new ColumnReader(`session ${this.sessionId} meta`).json(row.record, "record") : null;
	}

	/** Keeps the session's catalog row with its history (written on every catalog change). */
	setMeta(record: unknown): void {
		this.#live();
		const text = toJsonColumn(record, "session record");
		this.#write(() => this.#db.run("INSERT OR REPLACE INTO meta (id, record) VALUES (1, ?)", [text]));
	}

	/** When the newest entry (any conversation) was written; null when there is none. */
	lastEntryAt(): number | null {
		this.#live();
		const at = this.#db.query<{ at: unknown }, []>("SELECT MAX(at) AS at FROM entries").get()?.at;
		return typeof at === "number" ? at : null;
	}

	// --- entries ---

	/** Appends one entry. A `requestId` already used in the conversation throws DuplicateRequestError. */
	append(conversation: string, input: EntryInput): StoredEntry {
		this.#live();
		return this.#write(() => this.#append(conversation, input));
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
		return this.#write(() => inputs.map((input) => this.#append(conversation, input)));
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

	// --- conversations ---

	/** Records a conversation beside the main one (a subagent's), running. An id in use throws. */
	addConversation(row: {
		id: string;
		parent: string;
		title: string;
		model: string | null;
		at?: number;
	}): ConversationRow {
		this.#live();
		return this.#write(() =>
			decodeConversation(
				this.#db
					.query<ConversationRecord, [string, string, string, string | null, number]>(
						`INSERT INTO conversations (id, parent, title, model, status, created_at) VALUES (?, ?, ?, ?, 'running', ?) RETURNING ${CONVERSATION}`,
					)
					.get(row.id, row.parent, row.title, row.model, row.at ?? Date.now())!,
			),
		);
	}

	/** The conversations beside the main one, oldest first. */
	conversationRows(): ConversationRow[] {
		this.#live();
		return this.#db
			.query<ConversationRecord, []>(`SELECT ${CONVERSATION} FROM conversations ORDER BY created_at, rowid`)
			.all()
			.map(decodeConversation);
	}

	conversationRow(id: string): ConversationRow | undefined {
		this.#live();
		const row = this.#db
			.query<ConversationRecord, [string]>(`SELECT ${CONVERSATION} FROM conversations WHERE id = ?`)
			.get(id);
		return row ? decodeConversation(row) : undefined;
	}

	/** How a conversation's work went; `running` again when it is given more to do. */
	setConversationStatus(id: string, status: ConversationStatus, at = Date.now()): ConversationRow | undefined {
		this.#live();
		const row = this.#write(() =>
			this.#db
				.query<ConversationRecord, [string, number | null, string]>(
					`UPDATE conversations SET status = ?, ended_at = ? WHERE id = ? RETURNING ${CONVERSATION}`,
				)
				.get(status, status === "running" ? null : at, id),
		);
		return row ? decodeConversation(row) : undefined;
	}

	setConversationModel(id: string, model: string): ConversationRow | undefined {
		this.#live();
		const row = this.#write(() =>
			this.#db
				.query<ConversationRecord, [string, string]>(
					`UPDATE conversations SET model = ? WHERE id = ? RETURNING ${CONVERSATION}`,
				)
				.get(model, id),
		);
		return row ? decodeConversation(row) : undefined;
	}

	setConversationArchived(id: string, archived: boolean): ConversationRow | undefined {
		this.#live();
		const row = this.#write(() =>
			this.#db
				.query<ConversationRecord, [number, string]>(
					`UPDATE conversations SET archived = ? WHERE id = ? RETURNING ${CONVERSATION}`,
				)
				.get(archived ? 1 : 0, id),
		);
		return row ? decodeConversation(row) : undefined;
	}

	// --- runs ---

	beginRun(conversation: string, runId: string, at = Date.now()): RunRow {
		return this.beginTurn(conversation, { runId, at }).run;
	}

	/**
	 * Starts a run together with the entry that starts it (and marks the queued input it delivers), in one
	 * transaction: a failed write (a full disk) leaves neither an entry without its run nor a run marked live
	 * without its entry. A `requestId` already used throws DuplicateRequestError and stores nothing.
	 */
	beginTurn(conversation: string, turn: TurnInput): { run: RunRow; entry: StoredEntry | null } {
		this.#live();
		return this.#write(() => {
			if (this.#run.get(turn.runId)) throw new StoreError(`run ${turn.runId} already exists`);
			if (turn.delivered !== undefined) this.#setQueueState.get("delivered", turn.delivered);
			const entry = turn.entry ? this.#append(conversation, turn.entry) : null;
			const run = decodeRun(this.#insertRun.get(turn.runId, conversation, turn.at ?? Date.now())!);
			return { run, entry };
		});
	}

	/** A queued input the agent took during a run: marked delivered and stored as its entry, in one transaction. */
	deliver(conversation: string, queuedId: string, entry: EntryInput): StoredEntry {
		this.#live();
		return this.#write(() => {
			this.#setQueueState.get("delivered", queuedId);
			return this.#append(conversation, entry);
		});
	}

	/** Ends a running run. Returns undefined (and changes nothing) when the run is unknown or no longer running. */
	endRun(runId: string, status: RunEnd, at = Date.now()): RunRow | undefined {
		this.#live();
		if (!["done", "aborted", "error"].includes(status)) throw new StoreError(`a run cannot end as ${status}`);
		const row = this.#write(() => this.#endRun.get(status, at, runId));
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
		return this.#write(() => {
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
		});
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
		return this.#write(() => this.#setQueueState.get("delivered", id)) !== null;
	}

	/** Withdraws those of `ids` that are still queued, atomically; returns them in submission order. */
	withdraw(ids: readonly string[]): QueuedRow[] {
		this.#live();
		return this.#write(() => {
			const rows: QueueRecord[] = [];
			for (const id of new Set(ids)) {
				const row = this.#setQueueState.get("withdrawn", id);
				if (row) rows.push(row);
			}
			return rows.sort((a, b) => Number(a.pos) - Number(b.pos)).map(decodeQueued);
		});
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

	/** One write transaction; a full disk rolls it back whole and becomes a StoreFullError naming this file. */
	#write<T>(body: () => T): T {
		return writing(this.path, () => this.#db.transaction(body).immediate());
	}

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
		return this.#write(() => {
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
			// A subagent still working when the server stopped will not finish: its parent's run was interrupted too.
			this.#db.run("UPDATE conversations SET status = 'aborted', ended_at = ? WHERE status = 'running'", [now]);
			return recovered;
		});
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
