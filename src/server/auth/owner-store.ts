import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { openReplacingDamaged } from "../store/sqlite.ts";
import { hashToken, newToken } from "./tokens.ts";

const LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface OwnerLogin {
	readonly id: string;
	readonly createdAt: number;
}

/** Where a sign-in was made: the peer's address and the client's own name for itself (both as reported). */
export interface SignInOrigin {
	readonly address?: string;
	readonly agent?: string;
}

/** One owner sign-in (an owner cookie) as /devices lists it; never its cookie. */
export interface OwnerSignIn extends OwnerLogin {
	readonly lastUsedAt: number;
	readonly address: string | null;
	readonly agent: string | null;
}

/** Last use is written at most this often per sign-in, so a busy device does not write on every request. */
const LAST_USED_GRAIN_MS = 60_000;
const MAX_AGENT = 120;

/**
 * Owner sign-in state: one-time owner-link tokens and the logins (cookies) they were redeemed for.
 * Only hashes are stored, so a copy of the database signs nobody in.
 */
export class OwnerStore {
	#db: Database;

	private constructor(db: Database) {
		this.#db = db;
	}

	static open(dataDir: string, reportDamaged?: (message: string) => void): OwnerStore {
		const { db } = openReplacingDamaged(
			join(dataDir, "auth.sqlite"),
			[
				(db) =>
					db.exec(`CREATE TABLE IF NOT EXISTS owner_links (hash TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
			CREATE TABLE IF NOT EXISTS owner_logins (hash TEXT PRIMARY KEY, id TEXT NOT NULL, created_at INTEGER NOT NULL);`),
				(db) =>
					db.exec(`ALTER TABLE owner_logins ADD COLUMN last_used_at INTEGER;
			ALTER TABLE owner_logins ADD COLUMN address TEXT;
			ALTER TABLE owner_logins ADD COLUMN agent TEXT;`),
			],
			reportDamaged,
		);
		return new OwnerStore(db);
	}

	/** Mints a one-time link token, valid for a day. */
	mintLink(now = Date.now()): string {
		const token = newToken();
		this.#db.run("DELETE FROM owner_links WHERE expires_at < ?", [now]);
		this.#db.run("INSERT INTO owner_links (hash, expires_at) VALUES (?, ?)", [
			hashToken(token),
			now + LINK_LIFETIME_MS,
		]);
		return token;
	}

	/** Spends a link token; returns the new login's cookie value, or null when the token is unknown or spent. */
	redeem(token: string, now = Date.now(), origin: SignInOrigin = {}): { cookie: string; login: OwnerLogin } | null {
		const hash = hashToken(token);
		const spent = this.#db.transaction(() => {
			const row = this.#db.query("SELECT expires_at FROM owner_links WHERE hash = ?").get(hash) as {
				expires_at: number;
			} | null;
			if (!row) return false;
			this.#db.run("DELETE FROM owner_links WHERE hash = ?", [hash]);
			return row.expires_at >= now;
		})();
		if (!spent) return null;
		const cookie = newToken();
		const login = { id: crypto.randomUUID(), createdAt: now };
		this.#db.run(
			"INSERT INTO owner_logins (hash, id, created_at, last_used_at, address, agent) VALUES (?, ?, ?, ?, ?, ?)",
			[
				hashToken(cookie),
				login.id,
				login.createdAt,
				now,
				origin.address?.slice(0, 64) ?? null,
				origin.agent?.slice(0, MAX_AGENT) ?? null,
			],
		);
		return { cookie, login };
	}

	/** The login a cookie belongs to; `now` (a request's time) is kept as its last use. */
	check(cookie: string, now?: number): OwnerLogin | null {
		const hash = hashToken(cookie);
		const row = this.#db.query("SELECT id, created_at, last_used_at FROM owner_logins WHERE hash = ?").get(hash) as {
			id: string;
			created_at: number;
			last_used_at: number | null;
		} | null;
		if (!row) return null;
		if (now !== undefined && now - (row.last_used_at ?? 0) >= LAST_USED_GRAIN_MS) {
			this.#db.run("UPDATE owner_logins SET last_used_at = ? WHERE hash = ?", [now, hash]);
		}
		return { id: row.id, createdAt: row.created_at };
	}

	/** Every owner sign-in, newest use first. */
	list(): OwnerSignIn[] {
		const rows = this.#db
			.query("SELECT id, created_at, last_used_at, address, agent FROM owner_logins ORDER BY last_used_at DESC")
			.all() as {
			id: string;
			created_at: number;
			last_used_at: number | null;
			address: string | null;
			agent: string | null;
		}[];
		return rows.map((r) => ({
			id: r.id,
			createdAt: r.created_at,
			lastUsedAt: r.last_used_at ?? r.created_at,
			address: r.address,
			agent: r.agent,
		}));
	}

	/** Ends one sign-in by its id; false when there is none. */
	logoutId(id: string): boolean {
		return this.#db.run("DELETE FROM owner_logins WHERE id = ?", [id]).changes > 0;
	}

	logout(cookie: string): OwnerLogin | null {
		const login = this.check(cookie);
		if (login) this.#db.run("DELETE FROM owner_logins WHERE hash = ?", [hashToken(cookie)]);
		return login;
	}

	/** Ends every login but `keep` (an id), when given. */
	logoutAll(keep?: string): number {
		if (keep !== undefined) return this.#db.run("DELETE FROM owner_logins WHERE id != ?", [keep]).changes;
		return this.#db.run("DELETE FROM owner_logins").changes;
	}

	close(): void {
		this.#db.close();
	}
}
