/**
 * The server's structured log: one JSON line per entry (time, level, source, text) in `logs/server.jsonl` in
 * the data directory, rotated by size and bounded (the file and a few older ones). Recent entries are kept in
 * memory too, for owners' live views (/logs) and for notices: an entry may carry a notice tag, which makes it
 * something the owner should act on. Text is redacted before it is kept anywhere: registered secrets and
 * anything shaped like a token, key, bearer or cookie. Prompt texts are never logged at info.
 */
import { appendFileSync, closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { errorText } from "../protocol/errors.ts";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "./store/data-dir.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** An entry is something the owner should act on: `key` names the fault (a newer one replaces an older one). */
export interface NoticeTag {
	readonly key: string;
	/** What /retry does about it, by name, handled by whoever registered that name (`ServerLog.onRetry`). */
	readonly retry?: string;
}

export interface LogEntry {
	readonly seq: number;
	readonly time: number;
	readonly level: LogLevel;
	/** `server`, `session:<id>`, `env:<name>` or a plugin's name. */
	readonly source: string;
	readonly text: string;
	readonly notice?: NoticeTag;
	/** Set by `resolve`: the fault named by this notice's key is over. */
	readonly resolves?: string;
}

export interface LogOptions {
	/** Bytes one file may hold before it is rotated; 1 MiB by default. */
	readonly maxFileBytes?: number;
	/** Older files kept beside the live one; 3 by default. */
	readonly keepFiles?: number;
	/** Entries kept in memory for live views; 1000 by default. */
	readonly keepEntries?: number;
	/** Entries below this level are not kept; `info` by default (`P2_LOG_LEVEL` in the server's environment). */
	readonly level?: LogLevel;
	readonly now?: () => number;
	/** Warnings and errors also go to standard error (the device server's server.log); true by default. */
	readonly echo?: boolean;
}

export const LOG_DIR = "logs";
export const LOG_FILE = "server.jsonl";
const REDACTED = "[redacted]";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Patterns of secrets, whatever code wrote them: tokens, provider keys, bearer values, cookies, key=value. */
const SECRET_PATTERNS: readonly RegExp[] = [
	/\b(?:sk|pk|rk|xai|gsk|hf)-[A-Za-z0-9_-]{8,}/g,
	/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
	/\b(p2_owner|p2_guest|cookie|set-cookie)([=:]\s*)[^;\s]+/gi,
	/\b(api[_-]?key|apikey|token|secret|password|passwd|authorization|access_token|refresh_token)(["']?\s*[=:]\s*["']?)[^\s"',;]{4,}/gi,
	/** 32 or more token characters in a row with letters and digits: p2's tokens (43), most keys. */
	/(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g,
];

export function redactText(text: string, secrets: Iterable<string> = []): string {
	let out = text;
	for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(REDACTED);
	for (const pattern of SECRET_PATTERNS) {
		out = out.replace(pattern, (match: string, name?: unknown, sep?: unknown) => {
			if (typeof name === "string" && typeof sep === "string") return `${name}${sep}${REDACTED}`;
			// Session and sign-in ids are UUIDs: names, not secrets.
			return UUID.test(match) ? match : REDACTED;
		});
	}
	return out;
}

/** What one entry says about an error: its message only (stacks name local paths of the server's code). */
export function describe(what: string, error?: unknown): string {
	return error === undefined ? what : `${what}: ${errorText(error)}`;
}

type Listener = (entry: LogEntry) => void;

export class ServerLog {
	readonly dir: string;
	readonly #path: string;
	readonly #maxFileBytes: number;
	readonly #keepFiles: number;
	readonly #keepEntries: number;
	readonly #level: number;
	readonly #now: () => number;
	readonly #echo: boolean;
	readonly #secrets = new Set<string>();
	readonly #entries: LogEntry[] = [];
	readonly #listeners = new Set<Listener>();
	readonly #retries = new Map<string, (key: string) => Promise<string> | string>();
	#size = 0;
	#seq = 0;
	#writeFailed = false;

	constructor(dataDir: string, options: LogOptions = {}) {
		this.dir = join(dataDir, LOG_DIR);
		this.#path = join(this.dir, LOG_FILE);
		this.#maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
		this.#keepFiles = options.keepFiles ?? 3;
		this.#keepEntries = options.keepEntries ?? 1000;
		this.#level = LEVELS.indexOf(options.level ?? "info");
		this.#now = options.now ?? Date.now;
		this.#echo = options.echo ?? true;
		ensurePrivateDir(this.dir);
		this.#size = existsSync(this.#path) ? statSync(this.#path).size : 0;
		// Earlier runs' last entries, so /logs after a restart shows what led to it (their notices are over).
		if (this.#size > 0) {
			for (const line of readTail(this.#path, this.#keepEntries)) {
				const entry = parseStored(line);
				if (entry) this.#entries.push({ seq: ++this.#seq, ...entry });
			}
		}
	}

	/** Text equal to this is never written (a device token, a key read from the environment). */
	addSecret(secret: string): void {
		if (secret.length >= 8) this.#secrets.add(secret);
	}

	debug(source: string, text: string): void {
		this.write("debug", source, text);
	}
	info(source: string, text: string, notice?: NoticeTag): void {
		this.write("info", source, text, notice);
	}
	warn(source: string, text: string, notice?: NoticeTag): void {
		this.write("warn", source, text, notice);
	}
	error(source: string, text: string, notice?: NoticeTag): void {
		this.write("error", source, text, notice);
	}

	/** The fault a notice named is over (a sign-in again, a run that worked): its notice goes. Heard, not kept. */
	resolve(source: string, key: string, text: string): void {
		this.#add({ level: "info", source, text, resolves: key });
	}

	write(level: LogLevel, source: string, text: string, notice?: NoticeTag): void {
		if (LEVELS.indexOf(level) < this.#level) return;
		this.#add({ level, source, text, ...(notice ? { notice } : {}) });
	}

	#add(fields: Omit<LogEntry, "seq" | "time">): void {
		const entry: LogEntry = {
			seq: ++this.#seq,
			time: this.#now(),
			...fields,
			source: redactText(fields.source, this.#secrets),
			text: redactText(fields.text, this.#secrets),
		};
		if (entry.resolves === undefined) {
			this.#entries.push(entry);
			if (this.#entries.length > this.#keepEntries) this.#entries.splice(0, this.#entries.length - this.#keepEntries);
			this.#append(entry);
		}
		if (this.#echo && (entry.level === "warn" || entry.level === "error")) {
			console.error(`p2 server${entry.source === "server" ? "" : ` (${entry.source})`}: ${entry.text}`);
		}
		for (const listener of [...this.#listeners]) {
			try {
				listener(entry);
			} catch {
				// A listener's failure is its own; the log goes on.
			}
		}
	}

	#append(entry: LogEntry): void {
		const { seq: _seq, ...stored } = entry;
		const line = `${JSON.stringify(stored)}\n`;
		try {
			if (this.#size > 0 && this.#size + line.length > this.#maxFileBytes) this.#rotate();
			appendFileSync(this.#path, line, { mode: PRIVATE_FILE_MODE });
			this.#size += Buffer.byteLength(line);
			this.#writeFailed = false;
		} catch (error) {
			// A full disk must not take the server down with its log; said once on standard error.
			if (!this.#writeFailed) console.error(`p2 server: the log could not be written: ${errorText(error)}`);
			this.#writeFailed = true;
		}
	}

	#rotate(): void {
		const older = (n: number) => join(this.dir, `server.${n}.jsonl`);
		rmSync(older(this.#keepFiles), { force: true });
		for (let n = this.#keepFiles - 1; n >= 1; n--) if (existsSync(older(n))) renameSync(older(n), older(n + 1));
		if (this.#keepFiles > 0) renameSync(this.#path, older(1));
		else rmSync(this.#path, { force: true });
		this.#size = 0;
	}

	/** The entries kept in memory, oldest first. */
	recent(): readonly LogEntry[] {
		return this.#entries;
	}

	/** Hears every entry kept from now on. */
	subscribe(listener: Listener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** The handler for a notice's `retry` name; one per name. */
	onRetry(name: string, handler: (key: string) => Promise<string> | string): () => void {
		if (this.#retries.has(name)) throw new Error(`a retry for ${name} is already registered`);
		this.#retries.set(name, handler);
		return () => this.#retries.delete(name);
	}

	/** Runs the retry a notice names; its text says what happened. Unknown names are refused. */
	async retry(name: string, key: string): Promise<string> {
		const handler = this.#retries.get(name);
		if (!handler) throw new Error(`nothing can retry ${name} on this server`);
		return await handler(key);
	}
}

/** The last `count` lines of a file, reading at most its last 1 MiB. */
function readTail(path: string, count: number): string[] {
	const size = statSync(path).size;
	const bytes = Math.min(size, 1024 * 1024);
	const fd = openSync(path, "r");
	try {
		const buffer = Buffer.alloc(bytes);
		readSync(fd, buffer, 0, bytes, size - bytes);
		const lines = buffer.toString("utf8").split("\n");
		if (bytes < size) lines.shift();
		return lines.slice(-count - 1);
	} finally {
		closeSync(fd);
	}
}

/** One stored line, read as untrusted (a file someone may have edited): own keys, checked types. */
function parseStored(line: string): Omit<LogEntry, "seq"> | null {
	if (!line) return null;
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return null;
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
	const get = (key: string): unknown =>
		Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
	const time = get("time");
	const level = get("level");
	const source = get("source");
	const text = get("text");
	if (typeof time !== "number" || typeof source !== "string" || typeof text !== "string") return null;
	if (typeof level !== "string" || !LEVELS.includes(level as LogLevel)) return null;
	return { time, level: level as LogLevel, source, text };
}
