import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { openReplacingDamaged } from "../store/sqlite.ts";
import { hashToken, newToken } from "./tokens.ts";

const LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface OwnerLogin {
	readonly id: string;
	readonly createdAt: number;
}

/**
 * Owner sign-in state: one-time owner-link tokens and the logins (cookies) they were redeemed for.
 * Only hashes are stored, so a copy of the database signs nobody in.
 */
export class OwnerStore {
	#db: Database;

	private constructor(db: Database) {
		this.#db = db;
	}

	static open(dataDir: string): OwnerStore {
		const { db } = openReplacingDamaged(join(dataDir, "auth.sqlite"), [
			(db) =>
				db.exec(`CREATE TABLE IF NOT EXISTS owner_links (hash TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
			CREATE TABLE IF NOT EXISTS owner_logins (hash TEXT PRIMARY KEY, id TEXT NOT NULL, created_at INTEGER NOT NULL);`),
		]);
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
	redeem(token: string, now = Date.now()): { cookie: string; login: OwnerLogin } | null {
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
		this.#db.run("INSERT INTO owner_logins (hash, id, created_at) VALUES (?, ?, ?)", [
			hashToken(cookie),
			login.id,
			login.createdAt,
		]);
		return { cookie, login };
	}

	check(cookie: string): OwnerLogin | null {
		const row = this.#db.query("SELECT id, created_at FROM owner_logins WHERE hash = ?").get(hashToken(cookie)) as {
			id: string;
			created_at: number;
		} | null;
		return row ? { id: row.id, createdAt: row.created_at } : null;
	}

	logout(cookie: string): OwnerLogin | null {
		const login = this.check(cookie);
		if (login) this.#db.run("DELETE FROM owner_logins WHERE hash = ?", [hashToken(cookie)]);
		return login;
	}

	logoutAll(): number {
		return this.#db.run("DELETE FROM owner_logins").changes;
	}

	close(): void {
		this.#db.close();
	}
}
