import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { hashToken, newToken, openReplacingDamaged } from "../../server/plugin.ts";

export type ShareAccess = "view" | "full";

export interface ShareLink {
	readonly session: string;
	readonly access: ShareAccess;
	/** The 43-character token of `/join/<token>`. Kept so the owner can copy the link again. */
	readonly token: string;
	readonly createdAt: number;
}

export interface Guest {
	readonly id: string;
	readonly session: string;
	/** Chosen by the guest; unverified. */
	readonly name: string;
	readonly access: ShareAccess;
	readonly since: number;
	readonly blocked: boolean;
}

interface GuestRow {
	id: string;
	session: string;
	name: string;
	access: ShareAccess;
	created_at: number;
	blocked: number;
}

const toGuest = (row: GuestRow): Guest => ({
	id: row.id,
	session: row.session,
	name: row.name,
	access: row.access,
	since: row.created_at,
	blocked: row.blocked === 1,
});

export type Redeemed = { cookie: string; guest: Guest } | { refused: "invalid" | "blocked" };

/**
 * Share links and the guests they admitted, per session. Guests are known by the hash of their cookie only;
 * a guest stays tied to the link that admitted them, so resetting the link ends their access too.
 */
export class ShareStore {
	#db: Database;

	private constructor(db: Database) {
		this.#db = db;
	}

	static open(dataDir: string): ShareStore {
		return new ShareStore(
			openReplacingDamaged(join(dataDir, "shares.sqlite"), [
				(db) =>
					db.exec(`CREATE TABLE IF NOT EXISTS share_links (
				session TEXT NOT NULL, access TEXT NOT NULL, token TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
				created_at INTEGER NOT NULL, PRIMARY KEY (session, access));
			CREATE TABLE IF NOT EXISTS guests (
				id TEXT PRIMARY KEY, cookie_hash TEXT NOT NULL UNIQUE, session TEXT NOT NULL, name TEXT NOT NULL,
				access TEXT NOT NULL, link_hash TEXT NOT NULL, created_at INTEGER NOT NULL, blocked INTEGER NOT NULL DEFAULT 0);
			CREATE INDEX IF NOT EXISTS guests_session ON guests (session);
			CREATE TABLE IF NOT EXISTS share_settings (session TEXT PRIMARY KEY, approval INTEGER NOT NULL);`),
				(db) => db.exec("ALTER TABLE share_settings ADD COLUMN forwards INTEGER NOT NULL DEFAULT 0"),
			]).db,
		);
	}

	link(session: string, access: ShareAccess): ShareLink | null {
		const row = this.#db
			.query("SELECT token, created_at FROM share_links WHERE session = ? AND access = ?")
			.get(session, access) as { token: string; created_at: number } | null;
		return row ? { session, access, token: row.token, createdAt: row.created_at } : null;
	}

	/** The session's link for this access, created on first use. */
	ensureLink(session: string, access: ShareAccess, now = Date.now()): ShareLink {
		return this.link(session, access) ?? this.#create(session, access, now);
	}

	/** A new token for the link: the old one is dead at once, and so is every guest it admitted. */
	resetLink(session: string, access: ShareAccess, now = Date.now()): { link: ShareLink; ended: Guest[] } {
		return this.#db.transaction(() => {
			const old = this.link(session, access);
			let ended: Guest[] = [];
			if (old) {
				const oldHash = hashToken(old.token);
				ended = (
					this.#db.query("SELECT * FROM guests WHERE link_hash = ? AND blocked = 0").all(oldHash) as GuestRow[]
				).map(toGuest);
				this.#db.run("DELETE FROM guests WHERE link_hash = ? AND blocked = 0", [oldHash]);
				this.#db.run("DELETE FROM share_links WHERE session = ? AND access = ?", [session, access]);
			}
			return { link: this.#create(session, access, now), ended };
		})();
	}

	#create(session: string, access: ShareAccess, now: number): ShareLink {
		const token = newToken();
		this.#db.run("INSERT INTO share_links (session, access, token, hash, created_at) VALUES (?, ?, ?, ?, ?)", [
			session,
			access,
			token,
			hashToken(token),
			now,
		]);
		return { session, access, token, createdAt: now };
	}

	/**
	 * Spends nothing: a share link admits anyone who holds it. A guest who comes back with their cookie keeps
	 * their identity (and gets the access of the link they used now); a blocked one is refused.
	 */
	redeem(token: string, name: string, priorCookie?: string, now = Date.now()): Redeemed {
		const hash = hashToken(token);
		const link = this.#db.query("SELECT session, access FROM share_links WHERE hash = ?").get(hash) as {
			session: string;
			access: ShareAccess;
		} | null;
		if (!link) return { refused: "invalid" };
		if (priorCookie) {
			const row = this.#db
				.query("SELECT * FROM guests WHERE cookie_hash = ?")
				.get(hashToken(priorCookie)) as GuestRow | null;
			if (row && row.session === link.session) {
				if (row.blocked) return { refused: "blocked" };
				this.#db.run("UPDATE guests SET name = ?, access = ?, link_hash = ? WHERE id = ?", [
					name,
					link.access,
					hash,
					row.id,
				]);
				return { cookie: priorCookie, guest: toGuest({ ...row, name, access: link.access }) };
			}
		}
		const cookie = newToken();
		const guest: Guest = {
			id: crypto.randomUUID(),
			session: link.session,
			name,
			access: link.access,
			since: now,
			blocked: false,
		};
		this.#db.run(
			"INSERT INTO guests (id, cookie_hash, session, name, access, link_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
			[guest.id, hashToken(cookie), guest.session, name, guest.access, hash, now],
		);
		return { cookie, guest };
	}

	/** The guest a cookie belongs to, while their access lasts. */
	check(cookie: string): Guest | null {
		const row = this.#db.query("SELECT * FROM guests WHERE cookie_hash = ?").get(hashToken(cookie)) as GuestRow | null;
		return row && !row.blocked ? toGuest(row) : null;
	}

	guest(id: string): Guest | null {
		const row = this.#db.query("SELECT * FROM guests WHERE id = ?").get(id) as GuestRow | null;
		return row ? toGuest(row) : null;
	}

	guests(session: string): Guest[] {
		return (
			this.#db.query("SELECT * FROM guests WHERE session = ? ORDER BY created_at").all(session) as GuestRow[]
		).map(toGuest);
	}

	setAccess(id: string, access: ShareAccess): Guest | null {
		this.#db.run("UPDATE guests SET access = ? WHERE id = ? AND blocked = 0", [access, id]);
		const guest = this.guest(id);
		return guest && !guest.blocked ? guest : null;
	}

	/** Ends a guest's access. A blocked guest's cookie can never rejoin; a removed one may, with the link. */
	remove(id: string, block: boolean): Guest | null {
		const guest = this.guest(id);
		if (!guest) return null;
		if (block) this.#db.run("UPDATE guests SET blocked = 1 WHERE id = ?", [id]);
		else this.#db.run("DELETE FROM guests WHERE id = ?", [id]);
		return guest;
	}

	approval(session: string): boolean {
		const row = this.#db.query("SELECT approval FROM share_settings WHERE session = ?").get(session) as {
			approval: number;
		} | null;
		return row?.approval === 1;
	}

	setApproval(session: string, on: boolean): void {
		this.#db.run(
			"INSERT INTO share_settings (session, approval) VALUES (?, ?) ON CONFLICT (session) DO UPDATE SET approval = excluded.approval",
			[session, on ? 1 : 0],
		);
	}

	/** Whether the session's full guests may open its environment's ports on their computers (/ports). */
	guestForwards(session: string): boolean {
		const row = this.#db.query("SELECT forwards FROM share_settings WHERE session = ?").get(session) as {
			forwards: number;
		} | null;
		return row?.forwards === 1;
	}

	setGuestForwards(session: string, on: boolean): void {
		this.#db.run(
			"INSERT INTO share_settings (session, approval, forwards) VALUES (?, 0, ?) ON CONFLICT (session) DO UPDATE SET forwards = excluded.forwards",
			[session, on ? 1 : 0],
		);
	}

	close(): void {
		this.#db.close();
	}
}
