import { type FSWatcher, watch } from "node:fs";
import { ProtocolError } from "../../protocol/codes.ts";
import type { Role } from "../../protocol/roles.ts";
import {
	checkDirectory,
	type Handlers,
	isOwner,
	LiveState,
	type OpenedObject,
	type Principal,
	pathProblem,
	refuseEvery,
	type ServerContext,
	type ServerPlugin,
	type SessionRecord,
	StoreClosedError,
} from "../../server/plugin.ts";
import { type SessionRow, type SessionsState, sessionsContract } from "./contract.ts";
import { findGitDir, gitBranch } from "./git-branch.ts";

/** One guest handle's copy of its session's row; the role decides what the row shows. */
interface GuestReplica {
	readonly live: LiveState<SessionsState>;
	role: Role;
}

/** What a guest sees of a row: a view guest gets no git branch, only those who may work there. */
function guestRow(row: SessionRow, role: Role): SessionRow {
	return role === "view" ? { ...row, branch: null } : row;
}

/** Serves the session catalog: one replica for owners, one per open guest handle (by session). */
class SessionsObject {
	#ctx: ServerContext;
	#busy = new Set<string>();
	#owners: LiveState<SessionsState>;
	#guests = new Map<string, Set<GuestReplica>>();
	/** The git branch of sessions on other machines, as last asked there (null: none, or not asked yet). */
	readonly #remoteBranch = new Map<string, string | null>();
	/** Watchers on the git directory of each open session. */
	readonly #heads = new Map<string, FSWatcher>();

	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		this.#owners = new LiveState({ sessions: ctx.catalog.list({}).map((r) => this.#row(r)) });
		ctx.bus.on("session.busy", ({ session, busy }) => {
			if (busy === this.#busy.has(session)) return;
			if (busy) this.#busy.add(session);
			else this.#busy.delete(session);
			const record = ctx.catalog.get(session);
			if (record) this.#publish(record);
			// Nothing watches another machine's HEAD: its branch is asked again when a run or command ends.
			if (record && !busy && record.env !== "local") void this.#askRemoteBranch(record);
		});
		// pi's footer follows a checkout at once: while a session is open, its repository's HEAD is watched.
		ctx.bus.on("session.watched", ({ session, watched }) => {
			this.#heads.get(session)?.close();
			this.#heads.delete(session);
			const record = watched ? ctx.catalog.get(session) : undefined;
			if (record && record.env !== "local") void this.#askRemoteBranch(record);
			const gitDir = record?.env === "local" ? findGitDir(record.cwd) : undefined;
			if (!record || !gitDir) return;
			try {
				const watcher = watch(gitDir, (_event, name) => {
					if (name !== "HEAD") return;
					const now = ctx.catalog.get(session);
					const shown = this.#owners.state.sessions.find((s) => s.id === session)?.branch;
					if (now && gitBranch(now.cwd) !== shown) this.#publish(now);
				});
				watcher.on("error", () => watcher.close());
				this.#heads.set(session, watcher);
			} catch {
				// Not watchable (permissions, too many watches): the branch still follows each run.
			}
		});
		ctx.bus.on("session.activity", ({ session }) => {
			const record = ctx.catalog.get(session);
			if (record) this.#publish(record);
		});
	}

	#row(record: SessionRecord): SessionRow {
		return {
			id: record.id,
			title: record.title,
			cwd: record.cwd,
			branch: record.env === "local" ? gitBranch(record.cwd) : (this.#remoteBranch.get(record.id) ?? null),
			env: record.env,
			model: record.model,
			thinkingLevel: record.thinkingLevel,
			busy: this.#busy.has(record.id),
			pinned: record.pinned,
			archived: record.archived,
			createdAt: record.createdAt,
			updatedAt: record.updatedAt,
			parent: record.parent,
		};
	}

	/** Asks the session's machine for its branch (one command there) and shows it when it changed. */
	async #askRemoteBranch(record: SessionRecord): Promise<void> {
		let out = "";
		try {
			const env = this.#ctx.environments.get(record.env);
			const end = await env.exec({
				command:
					"git symbolic-ref --short -q HEAD 2>/dev/null || { git rev-parse -q --verify HEAD >/dev/null 2>&1 && echo detached; }",
				cwd: record.cwd,
				onData: (chunk) => {
					if (out.length < 1024) out += new TextDecoder().decode(chunk);
				},
			});
			if (end.exitCode !== 0) out = "";
		} catch {
			// Unreachable: the branch stays as it was.
			return;
		}
		const branch = out.trim().split("\n")[0]?.slice(0, 200) || null;
		let now: SessionRecord | undefined;
		try {
			now = this.#ctx.catalog.get(record.id);
		} catch (error) {
			// The server stopped while the machine answered: there is no one left to tell.
			if (error instanceof StoreClosedError) return;
			throw error;
		}
		if (!now || now.env !== record.env || now.cwd !== record.cwd) return;
		if ((this.#remoteBranch.get(record.id) ?? null) === branch) return;
		this.#remoteBranch.set(record.id, branch);
		this.#publish(now);
	}

	#publish(record: SessionRecord): SessionRow {
		const row = this.#row(record);
		const index = this.#owners.state.sessions.findIndex((s) => s.id === row.id);
		if (index < 0) this.#owners.update([{ op: "splice", path: ["sessions"], start: 0, remove: 0, items: [row] }]);
		else this.#owners.update([{ op: "set", path: ["sessions", index], value: row }]);
		for (const replica of this.#guests.get(row.id) ?? []) this.#showGuest(replica, row);
		return row;
	}

	#showGuest(replica: GuestReplica, row: SessionRow): void {
		const shown = guestRow(row, replica.role);
		// A checkout changes nothing a view guest sees; they are not told that something changed.
		if (JSON.stringify(replica.live.state.sessions[0]) === JSON.stringify(shown)) return;
		replica.live.update([{ op: "set", path: ["sessions", 0], value: shown }]);
	}

	open(principal: Principal): OpenedObject<typeof sessionsContract> {
		if (isOwner(principal)) return { state: this.#owners, methods: this.#methods };
		const session = principal.session;
		const record = session ? this.#ctx.catalog.get(session) : undefined;
		if (!session || !record) throw new ProtocolError("forbidden", "no session is shared with you");
		const replica: GuestReplica = {
			live: new LiveState({ sessions: [guestRow(this.#row(record), principal.role)] }),
			role: principal.role,
		};
		let replicas = this.#guests.get(session);
		if (!replicas) {
			replicas = new Set();
			this.#guests.set(session, replicas);
		}
		replicas.add(replica);
		const held = replicas;
		return {
			state: replica.live,
			methods: refuseEvery(sessionsContract, "forbidden"),
			release: () => {
				held.delete(replica);
				if (held.size === 0 && this.#guests.get(session) === held) this.#guests.delete(session);
			},
			// A guest demoted to view loses the branch at once; one promoted to full gets it.
			principalChanged: (next: Principal) => {
				replica.role = next.role;
				const now = this.#ctx.catalog.get(session);
				if (now) this.#showGuest(replica, this.#row(now));
			},
		};
	}

	#require(id: string): SessionRecord {
		const record = this.#ctx.catalog.get(id);
		if (!record) throw new ProtocolError("not_found", `no session ${id}`);
		return record;
	}

	/** The owners' methods; a guest's handle may call none of them. */
	readonly #methods: Handlers<typeof sessionsContract> = {
		create: async ({ cwd, env, title, parent }) => {
			if (parent) this.#require(parent);
			// This device's sessions start where they are asked to; another machine's at the canonical path there.
			const where = env ?? "local";
			const asTyped = where === "local" && !cwd.startsWith("~");
			if (asTyped) checkDirectory(cwd);
			const dir = asTyped ? cwd : await this.#directory(where, cwd);
			const created = this.#ctx.catalog.create({ cwd: dir, env: where, title: title ?? "", parent: parent ?? null });
			if (where !== "local") void this.#askRemoteBranch(created);
			return this.#publish(created);
		},
		relocate: async ({ id, env, cwd }) => {
			this.#require(id);
			const busy = () => {
				if (this.#busy.has(id)) throw new ProtocolError("conflict", "Stop the current run before changing directory");
			};
			busy();
			const dir = await this.#directory(env, cwd);
			// Checked again: a run may have started while the machine answered.
			busy();
			this.#require(id);
			this.#remoteBranch.delete(id);
			const moved = this.#ctx.catalog.update(id, { env, cwd: dir });
			if (env !== "local") void this.#askRemoteBranch(moved);
			return this.#publish(moved);
		},
		rename: ({ id, title }) => {
			this.#require(id);
			return this.#publish(this.#ctx.catalog.update(id, { title: title.replace(/[\p{Cc}\p{Cf}]/gu, " ").trim() }));
		},
		pin: ({ id, pinned }) => {
			this.#require(id);
			return this.#publish(this.#ctx.catalog.update(id, { pinned }));
		},
		archive: ({ id }) => {
			const row = this.#setArchived(id, true);
			// An archived session is shared with no one: its guests' connections end now, not at reconnect.
			this.#ctx.host.reprincipal(
				(p) => !isOwner(p) && p.session === id,
				() => null,
			);
			return row;
		},
		restore: ({ id }) => this.#setArchived(id, false),
	};

	/** The canonical directory `cwd` names on `env`, or the machine's reason why not, as the person reads it. */
	async #directory(env: string, cwd: string): Promise<string> {
		const target = this.#ctx.environments.get(env);
		try {
			return await target.directory(cwd);
		} catch (error) {
			throw pathProblem(error, env, cwd);
		}
	}

	#setArchived(id: string, archived: boolean): SessionRow {
		this.#require(id);
		return this.#publish(this.#ctx.catalog.update(id, { archived }));
	}
}

export const sessionsPlugin: ServerPlugin = {
	name: "sessions",
	register(ctx) {
		const sessions = new SessionsObject(ctx);
		ctx.host.serve(sessionsContract, { open: (_input, { principal }) => sessions.open(principal) });
	},
};
