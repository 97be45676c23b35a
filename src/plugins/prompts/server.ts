/**
 * Prompt templates and skills on the session's machine: found for each session's working directory, kept
 * current while anyone has them open (the directories are watched), expanded here for every client, and the
 * skills listed in each conversation's system prompt.
 */
import { join, resolve } from "node:path";
import { ProtocolError } from "../../protocol/codes.ts";
import { LiveState } from "../../server/objects/live-state.ts";
import { maySeeSession } from "../../server/objects/principal.ts";
import type { ServerContext, ServerPlugin } from "../../server/plugin.ts";
import { ExpansionTooLong } from "./args.ts";
import { MAX_EXPANDED, type PromptsState, promptsContract } from "./contract.ts";
import { type Locations, loadResources, type Resources, resourceDirs } from "./discovery.ts";
import { expandInput } from "./expand.ts";
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
	readonly #loc: Locations;

	constructor(loc: Locations) {
		this.#loc = loc;
		// Watched first, then read: nothing changed in between is missed.
		this.#watch();
		this.resources = loadResources(loc);
		this.live = new LiveState(stateOf(this.resources));
	}

	#watch(): void {
		this.#stop();
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
		const next = loadResources(this.#loc);
		const state = stateOf(next);
		this.resources = next;
		if (JSON.stringify(state) !== JSON.stringify(this.live.state)) {
			this.live.update([{ op: "set", path: [], value: state }]);
		}
	}

	close(): void {
		this.#stop();
	}
}

/** The key of a session on another machine (SSH): no project directory of this machine is read for it. */
const REMOTE = "\0remote";

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
		// A session on another machine reads no project directory here (its key is REMOTE).
		if (cwd === REMOTE)
			return { cwd: "/", project: false, agentDir: this.#agentDir, home: this.#home, dataDir: this.#ctx.dataDir };
		return { cwd: resolve(cwd), agentDir: this.#agentDir, home: this.#home, dataDir: this.#ctx.dataDir };
	}

	/** The resources for a working directory now: the watched copy, else read from disk. */
	current(cwd: string): Resources {
		const key = cwd === REMOTE ? REMOTE : resolve(cwd);
		return this.#watched.get(key)?.resources ?? loadResources(this.#locations(cwd));
	}

	hold(cwd: string): { watched: WatchedResources; release: () => void } {
		const key = cwd === REMOTE ? REMOTE : resolve(cwd);
		let watched = this.#watched.get(key);
		if (!watched) {
			watched = new WatchedResources(this.#locations(key));
			this.#watched.set(key, watched);
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
			/** Where a session's resources are read: its directory here, or REMOTE for one on another machine. */
			const placeOf = (session: string, cwd: string) =>
				(ctx.catalog.get(session)?.env ?? "local") === "local" ? cwd : REMOTE;
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
									expanded = expandInput(text, watched.resources, MAX_EXPANDED);
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
