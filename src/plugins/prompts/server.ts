/**
 * Prompt templates and skills on the session's machine: found for each session's working directory, kept
 * current while anyone has them open (the directories are watched), expanded here for every client, and the
 * skills listed in each conversation's system prompt.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { LiveState, maySeeSession, type ServerContext, type ServerPlugin } from "../../server/plugin.ts";
import { ExpansionTooLong } from "./args.ts";
import { MAX_EXPANDED, type PromptsState, promptsContract } from "./contract.ts";
import { type Locations, loadResources, type Resources, resourceDirs } from "./discovery.ts";
import { expandInput } from "./expand.ts";
import { dropMirror, fetchRemoteResources, machinePaths, makeMirror } from "./remote.ts";
import { skillsPrompt } from "./skills-prompt.ts";
import { watchDirs } from "./watch.ts";

export function stateOf(resources: Resources): PromptsState {
	return {
		templates: resources.templates.map((t) => ({
			name: t.name,
			description: t.description,
			...(t.argumentHint !== undefined ? { argumentHint: t.argumentHint } : {}),
			scope: t.scope,
			path: t.path,
		})),
		skills: resources.skills.map((s) => ({
			name: s.name,
			description: s.description,
			scope: s.scope,
			path: s.path,
			hidden: s.hidden,
		})),
		warnings: resources.warnings.map((w) => ({
			kind: w.kind,
			message: w.message,
			path: w.path,
			...(w.name !== undefined ? { name: w.name } : {}),
			...(w.winner !== undefined ? { winner: w.winner } : {}),
		})),
	};
}

/** One working directory's resources while someone has them open: read again whenever its directories change. */
class WatchedResources {
	resources: Resources;
	readonly live: LiveState<PromptsState>;
	holders = 0;
	#stop: () => void = () => {};
	#loc: Locations;
	/** A remote session's: the folder here mirroring the machine's files (paths are shown as the machine's). */
	readonly mirror: string | undefined;

	#closed = false;

	constructor(loc: Locations, mirror?: string) {
		this.#loc = loc;
		this.mirror = mirror;
		this.resources = this.#load();
		this.live = new LiveState(stateOf(this.resources));
		// Watching costs more than reading (several ms, on the way to a session's first frame): it starts just
		// after, and reads once more, so a change made in between is not missed.
		setImmediate(() => {
			if (!this.#closed) this.reload();
		});
	}

	#load(): Resources {
		const found = loadResources(this.#loc);
		return this.mirror ? machinePaths(found, this.mirror) : found;
	}

	/** Reads them from other directories (a remote session's, once its machine said where they are). */
	relocate(loc: Locations): void {
		this.#loc = loc;
		this.reload();
	}

	/** A skill's file as the machine names it, read here (from the mirror for a remote session). */
	read(path: string): string {
		return readFileSync(this.mirror ? `${this.mirror}${path}` : path, "utf8");
	}

	#watch(): void {
		this.#stop();
		// A mirror changes only when it is fetched again, and the fetch reloads: watching it would reload twice.
		if (this.mirror) return;
		const dirs = resourceDirs(this.#loc);
		this.#stop = watchDirs(
			[...dirs.prompts, ...dirs.skills].map((d) => d.dir),
			() => this.reload(),
		);
	}

	/**
	 * Reads them again; a directory that appeared since is now watched itself. Watched before it is read, so a
	 * change made in between is not lost (it reloads once more).
	 */
	reload(): void {
		this.#watch();
		const next = this.#load();
		const state = stateOf(next);
		this.resources = next;
		if (JSON.stringify(state) !== JSON.stringify(this.live.state)) {
			this.live.update([{ op: "set", path: [], value: state }]);
		}
	}

	close(): void {
		this.#closed = true;
		this.#stop();
		if (this.mirror) dropMirror(this.mirror);
	}
}

/** Where a session's resources are: its directory here, or a directory on another machine (SSH). */
export type Place = { readonly cwd: string } | { readonly cwd: string; readonly env: string };

const keyOf = (place: Place) => ("env" in place ? `\0${place.env}\0${place.cwd}` : resolve(place.cwd));
const EMPTY: Resources = { templates: [], skills: [], warnings: [] };

export class PromptResources {
	readonly #ctx: ServerContext;
	readonly #agentDir: string | undefined;
	readonly #home: string | undefined;
	readonly #watched = new Map<string, WatchedResources>();

	/** The person's directories come from the server's environment (none without HOME, as in tests). */
	constructor(ctx: ServerContext) {
		this.#ctx = ctx;
		this.#home = ctx.env.HOME || undefined;
		const agentDir = ctx.env.PI_CODING_AGENT_DIR || undefined;
		this.#agentDir = agentDir ?? (this.#home ? join(this.#home, ".pi", "agent") : undefined);
	}

	#locations(cwd: string): Locations {
		return { cwd: resolve(cwd), agentDir: this.#agentDir, home: this.#home, dataDir: this.#ctx.dataDir };
	}

	/**
	 * A remote session's directories as mirrored here: its project's, and its machine user's (`~/.pi/agent`,
	 * `~/.agents/skills`, `~/.pi/p2/prompts`); this server's own and its user's are not the machine's.
	 */
	#remoteLocations(mirror: string, cwd: string, home: string): Locations {
		return {
			cwd: `${mirror}${cwd}`,
			agentDir: home ? `${mirror}${home}/.pi/agent` : undefined,
			home: home ? `${mirror}${home}` : undefined,
			dataDir: this.#ctx.dataDir,
			serverPrompts: `${mirror}${home || "/nonexistent"}/.pi/p2/prompts`,
		};
	}

	/** The resources for a place now: the watched copy, else read from disk (a remote place's: none unheld). */
	current(place: Place): Resources {
		const watched = this.#watched.get(keyOf(place));
		if (watched) return watched.resources;
		return "env" in place ? EMPTY : loadResources(this.#locations(place.cwd));
	}

	/** Reads a remote place's files from its machine again (after a run or command there ended). */
	refresh(place: Place): void {
		if (!("env" in place)) return;
		const watched = this.#watched.get(keyOf(place));
		if (watched?.mirror) void this.#fetch(place, watched);
	}

	async #fetch(place: { cwd: string; env: string }, watched: WatchedResources): Promise<void> {
		const mirror = watched.mirror!;
		try {
			const env = this.#ctx.environments.get(place.env);
			const found = await fetchRemoteResources(env, place.cwd, mirror);
			if (this.#watched.get(keyOf(place)) !== watched) return;
			watched.relocate(this.#remoteLocations(mirror, found.cwd, found.home));
		} catch (error) {
			this.#ctx.log.warn("server", `prompt templates and skills of ${place.env} could not be read: ${String(error)}`);
		}
	}

	hold(place: Place): { watched: WatchedResources; release: () => void } {
		const key = keyOf(place);
		let watched = this.#watched.get(key);
		if (!watched) {
			if ("env" in place) {
				const mirror = makeMirror();
				watched = new WatchedResources(this.#remoteLocations(mirror, place.cwd, ""), mirror);
				this.#watched.set(key, watched);
				void this.#fetch(place, watched);
			} else {
				watched = new WatchedResources(this.#locations(place.cwd));
				this.#watched.set(key, watched);
			}
		}
		watched.holders++;
		const held = watched;
		let released = false;
		return {
			watched: held,
			release: () => {
				if (released) return;
				released = true;
				if (--held.holders > 0) return;
				held.close();
				if (this.#watched.get(key) === held) this.#watched.delete(key);
			},
		};
	}

	close(): void {
		for (const watched of this.#watched.values()) watched.close();
		this.#watched.clear();
	}
}

export function promptsPlugin(): ServerPlugin {
	let resources: PromptResources | undefined;
	return {
		name: "prompts",
		register(ctx) {
			const all = new PromptResources(ctx);
			resources = all;
			/** Where a session's resources are read: its directory here, or on its machine. */
			const placeOf = (session: string, cwd: string): Place => {
				const env = ctx.catalog.get(session)?.env ?? "local";
				return env === "local" ? { cwd } : { cwd, env };
			};
			// Nothing watches another machine's files: they are read again when a run or command there ends.
			ctx.bus.on("session.busy", ({ session, busy }) => {
				const record = busy ? undefined : ctx.catalog.get(session);
				if (record && record.env !== "local") all.refresh(placeOf(session, record.cwd));
			});
			ctx.agent.add({
				name: "prompts",
				prompt: (scope) => skillsPrompt(all.current(placeOf(scope.session, scope.cwd)).skills),
			});
			ctx.host.serve(promptsContract, {
				open({ session }, { principal }) {
					if (!maySeeSession(principal, session))
						throw new ProtocolError("forbidden", "this session is not shared with you");
					const record = ctx.catalog.get(session);
					if (!record) throw new ProtocolError("not_found", `no session ${session}`);
					const { watched, release } = all.hold(placeOf(session, record.cwd));
					return {
						state: watched.live,
						methods: {
							expand({ text }) {
								const tooLong = () =>
									new ProtocolError("too_large", `the expanded text is longer than ${MAX_EXPANDED} characters`);
								let expanded: ReturnType<typeof expandInput>;
								try {
									expanded = expandInput(text, watched.resources, MAX_EXPANDED, (path) => watched.read(path));
								} catch (error) {
									if (error instanceof ExpansionTooLong) throw tooLong();
									throw error;
								}
								if (expanded.text.length > MAX_EXPANDED) throw tooLong();
								return expanded;
							},
						},
						release,
					};
				},
			});
		},
		close() {
			resources?.close();
		},
	};
}
