/**
 * The workspace object: the session's directory for its participants (owners and full guests). The server
 * watches the directory while anyone holds the object, and the state's counter advances after each burst of
 * changes, so /changes and the footer's branch follow the agent's edits. A session on another machine (SSH) is
 * served there (remote.ts); nothing watches it, so its counter advances when a run or `!` command ends.
 */
import { type FSWatcher, readFileSync, statSync, watch } from "node:fs";
import { obj, str } from "@earendil-works/pi-schema";
import { ProtocolError } from "../../protocol/codes.ts";
import { LiveState, maySeeSession, type ServerPlugin } from "../../server/plugin.ts";
import { gitDiff, gitStatus, grep, listDir, readPage } from "./backend.ts";
import { confine } from "./confine.ts";
import { type WorkspaceState, workspaceContract } from "./contract.ts";
import { confineRemote, RemoteWorkspace } from "./remote.ts";

/** What the launcher downloads at most: a larger file is not offered. */
export const MAX_SENT_BYTES = 25 * 1024 * 1024;

/** A burst of writes (a save, a checkout) is one change once this long passed without another. */
const SETTLE_MS = 150;

interface Watched {
	live: LiveState<WorkspaceState>;
	holders: number;
	/** The directory watched. */
	cwd: string;
	/** `env:cwd`: a move to another machine is a change too. */
	place: string;
	bump: () => void;
	stop: () => void;
}

/** Watches a directory and everything under it; a directory that cannot be watched just never advances. */
function watchTree(dir: string, onChange: () => void): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let watcher: FSWatcher | undefined;
	try {
		watcher = watch(dir, { recursive: true }, () => {
			clearTimeout(timer);
			timer = setTimeout(onChange, SETTLE_MS);
		});
		watcher.on("error", () => watcher?.close());
	} catch {
		watcher = undefined;
	}
	return () => {
		clearTimeout(timer);
		watcher?.close();
	};
}

export const workspacePlugin: ServerPlugin = {
	name: "workspace",
	register(ctx) {
		const watched = new Map<string, Watched>();
		// Nothing watches another machine's files: what the agent or a `!` command did shows when it ends.
		ctx.bus.on("session.busy", ({ session, busy }) => {
			if (busy) return;
			if (ctx.catalog.get(session)?.env !== "local") watched.get(session)?.bump();
		});
		ctx.agent.add({
			name: "workspace",
			tools: (scope) => {
				const files = ctx.services.get("sessionFiles");
				if (!files) return [];
				return [
					{
						line: "offer a file of the working directory to the people in the session (they save it with /download)",
						tool: {
							name: "send_file",
							label: "send_file",
							description:
								"Offer a file from the working directory to the people in this session; they can preview it and save it on their computer.",
							parameters: obj({ path: str({ description: "The file, relative to the working directory" }) }),
							execute: async (_id: string, args: { path: string }) => {
								const where = ctx.catalog.get(scope.session)?.env ?? "local";
								if (where !== "local") {
									// On the session's machine: confined there, then read over the connection.
									const env = ctx.environments.get(where);
									const file = await confineRemote(env, scope.cwd, args.path);
									if (!file) throw new Error(`${args.path} is not a file in the working directory`);
									const info = await env.stat(file.real);
									if (info?.kind !== "file") throw new Error(`${file.rel} is not a file`);
									if (info.size > MAX_SENT_BYTES) throw new Error(`${file.rel} is larger than 25 MiB`);
									const sent = files.offer(
										scope.session,
										file.rel.split("/").at(-1) ?? file.rel,
										await env.readFile(file.real),
									);
									return {
										content: [
											{ type: "text", text: `Sent ${sent.name} (${sent.size} bytes) to the people in the session.` },
										],
										details: { id: sent.id, name: sent.name, size: sent.size, path: file.rel },
									};
								}
								const file = confine(scope.cwd, args.path);
								if (!file) throw new Error(`${args.path} is not a file in the working directory`);
								const stat = statSync(file.real);
								if (!stat.isFile()) throw new Error(`${file.rel} is not a file`);
								if (stat.size > MAX_SENT_BYTES) throw new Error(`${file.rel} is larger than 25 MiB`);
								const sent = files.offer(
									scope.session,
									file.rel.split("/").at(-1) ?? file.rel,
									readFileSync(file.real),
								);
								return {
									content: [
										{ type: "text", text: `Sent ${sent.name} (${sent.size} bytes) to the people in the session.` },
									],
									details: { id: sent.id, name: sent.name, size: sent.size, path: file.rel },
								};
							},
						},
					},
				];
			},
		});
		ctx.host.serve(workspaceContract, {
			open({ session }, { principal }) {
				// The contract has no view variant: the host refuses view guests before this runs.
				if (!maySeeSession(principal, session) || principal.role === "view")
					throw new ProtocolError("forbidden", "this session is not shared with you");
				const record = ctx.catalog.get(session);
				if (!record) throw new ProtocolError("not_found", `no session ${session}`);
				/** The session's machine when it is not this device: the panels are served there. */
				const away = (): RemoteWorkspace | null => {
					const env = ctx.catalog.get(session)?.env ?? record.env;
					return env === "local" ? null : new RemoteWorkspace(ctx.environments.get(env));
				};
				let held = watched.get(session);
				if (!held) {
					const live = new LiveState<WorkspaceState>({ changes: 0 });
					const bump = () => live.update([{ op: "set", path: ["changes"], value: live.state.changes + 1 }]);
					const stop = record.env === "local" ? watchTree(record.cwd, bump) : () => {};
					held = { live, holders: 0, cwd: record.cwd, place: `${record.env}:${record.cwd}`, bump, stop };
					watched.set(session, held);
				}
				held.holders++;
				const mine = held;
				/** The session's directory now; after a move (/cd) the watch follows it and the counter advances. */
				const cwd = () => {
					const now = ctx.catalog.get(session) ?? record;
					const place = `${now.env}:${now.cwd}`;
					if (place !== mine.place) {
						mine.stop();
						mine.cwd = now.cwd;
						mine.place = place;
						mine.stop = now.env === "local" ? watchTree(now.cwd, mine.bump) : () => {};
						mine.bump();
					}
					return now.cwd;
				};
				return {
					state: mine.live,
					methods: {
						list: ({ path, hidden }) => {
							const root = cwd();
							return away()?.list(root, path, hidden === true) ?? listDir(root, path, hidden === true);
						},
						read: ({ path, line, limit, find }) => {
							const root = cwd();
							return away()?.read(root, path, line, limit, find) ?? readPage(root, path, line, limit, find);
						},
						status: () => {
							const root = cwd();
							return away()?.status(root) ?? gitStatus(root);
						},
						diff: ({ path, kind }) => {
							const root = cwd();
							return away()?.diff(root, path, kind) ?? gitDiff(root, path, kind);
						},
						grep: ({ text }) => {
							const root = cwd();
							return away()?.grep(root, text) ?? grep(root, text);
						},
					},
					release: () => {
						if (--mine.holders > 0) return;
						mine.stop();
						if (watched.get(session) === mine) watched.delete(session);
					},
				};
			},
		});
	},
};
