/**
 * The workspace object: the session's directory for its participants (owners and full guests), read on the
 * session's machine through its Environment (directory.ts). The machine's files are watched while anyone holds
 * the object where the Environment can watch them, and the state's counter advances after each burst of
 * changes, so /changes and the footer's branch follow the agent's edits; where nothing can watch them (an SSH
 * machine), it advances when a run or `!` command ends.
 */
import { obj, str } from "@earendil-works/pi-schema";
import { ProtocolError } from "../../protocol/codes.ts";
import { type Environment, LiveState, maySeeSession, type ServerPlugin } from "../../server/plugin.ts";
import { confine } from "./confine.ts";
import { type WorkspaceState, workspaceContract } from "./contract.ts";
import { SessionDirectory } from "./directory.ts";

/** What the launcher downloads at most: a larger file is not offered. */
export const MAX_SENT_BYTES = 25 * 1024 * 1024;

interface Watched {
	live: LiveState<WorkspaceState>;
	holders: number;
	/** `env:cwd`: a move to another machine is a change too. */
	place: string;
	/** The machine's files are watched (else the counter advances when a run or command ends). */
	watching: boolean;
	bump: () => void;
	stop: () => void;
}

/** Watches `cwd` on `env` where it can (not on a machine gone from envs.json); says whether it does. */
function watchPlace(
	env: Environment | undefined,
	cwd: string,
	held: Pick<Watched, "bump" | "stop" | "watching">,
): void {
	const stop = env ? env.watch(cwd, held.bump) : null;
	held.stop = stop ?? (() => {});
	held.watching = stop !== null;
}

export const workspacePlugin: ServerPlugin = {
	name: "workspace",
	register(ctx) {
		const watched = new Map<string, Watched>();
		const machine = (name: string) => (ctx.environments.has(name) ? ctx.environments.get(name) : undefined);
		// Where nothing watches the machine's files, what the agent or a `!` command did shows when it ends.
		ctx.bus.on("session.busy", ({ session, busy }) => {
			if (busy) return;
			const held = watched.get(session);
			if (held && !held.watching) held.bump();
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
								// On the session's machine: confined there, then read (over the connection for an SSH machine).
								const env = ctx.environments.get(ctx.catalog.get(scope.session)?.env ?? "local");
								const file = await confine(env, scope.cwd, args.path);
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
				let held = watched.get(session);
				if (!held) {
					const live = new LiveState<WorkspaceState>({ changes: 0 });
					const bump = () => live.update([{ op: "set", path: ["changes"], value: live.state.changes + 1 }]);
					const made: Watched = {
						live,
						holders: 0,
						place: `${record.env}:${record.cwd}`,
						watching: false,
						bump,
						stop: () => {},
					};
					watchPlace(machine(record.env), record.cwd, made);
					held = made;
					watched.set(session, held);
				}
				held.holders++;
				const mine = held;
				/** The session's directory now, and its machine; after a move (/cd) the watch follows it and the counter advances. */
				const where = () => {
					const now = ctx.catalog.get(session) ?? record;
					const place = `${now.env}:${now.cwd}`;
					if (place !== mine.place) {
						mine.stop();
						mine.place = place;
						watchPlace(machine(now.env), now.cwd, mine);
						mine.bump();
					}
					// An unknown machine is refused here, in words the person can act on.
					return { root: now.cwd, directory: new SessionDirectory(ctx.environments.get(now.env)) };
				};
				return {
					state: mine.live,
					methods: {
						list: ({ path, hidden }) => {
							const { root, directory } = where();
							return directory.list(root, path, hidden === true);
						},
						read: ({ path, line, limit, find }) => {
							const { root, directory } = where();
							return directory.read(root, path, line, limit, find);
						},
						status: () => {
							const { root, directory } = where();
							return directory.status(root);
						},
						diff: ({ path, kind }) => {
							const { root, directory } = where();
							return directory.diff(root, path, kind);
						},
						grep: ({ text }) => {
							const { root, directory } = where();
							return directory.grep(root, text);
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
