/**
 * Which session opens when the server says who this is (pi's `--session`, `--continue`, `--fork`, a guest's
 * own session, or the one a reload left open), then what the command line asked of it: pi's `--resume`
 * picker and the `--name`, `--model` and `--thinking` flags.
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { sessionsContract } from "../contract.ts";
import { chooseSession, newSessionWhateverTheCatalog, type SessionChoiceInput } from "./session-choice.ts";
import { applyStartFlags } from "./start-flags.ts";

export class SessionStart {
	readonly #ctx: GuestContext;
	readonly #catalogChanged: () => void;
	#choosing = false;
	#catalog: ObjectRef<typeof sessionsContract> | undefined;
	/** The new session a plain start on this device asked for with the catalog, before the server said who this is. */
	#early: Promise<{ readonly id: string }> | undefined;

	/** `catalogChanged`: the catalog's rows changed (the open session's facts follow them). */
	constructor(ctx: GuestContext, catalogChanged: () => void) {
		this.#ctx = ctx;
		this.#catalogChanged = catalogChanged;
		// Asked for at once, beside who this person is (every role may open it): the choice then waits for no
		// second round trip.
		this.#catalog = ctx.objects.open(sessionsContract, {});
		// A plain start on this device's server (its owner; no session asked for, none to reopen) opens a new
		// session whatever the catalog holds: it is asked for now, not a round trip later.
		const cwd = ctx.snapshot.restored?.session
			? undefined
			: newSessionWhateverTheCatalog(choiceArgs(ctx), ctx.start.local);
		if (cwd === undefined) return;
		const catalog = this.#catalog;
		const ask = () => {
			if (ctx.session.id || this.#choosing) return;
			this.#early = catalog.call("create", { cwd });
			this.#early.catch(() => {});
		};
		if (ctx.objects.connection === "open") {
			ask();
			return;
		}
		const stop = ctx.objects.onConnection((state) => {
			if (state !== "open") return;
			stop();
			ask();
		});
	}

	/** The server's catalog of sessions, once this person's role is known. */
	get catalog(): ObjectRef<typeof sessionsContract> | undefined {
		return this.#catalog;
	}

	async choose(): Promise<void> {
		const ctx = this.#ctx;
		const role = ctx.session.role;
		if (ctx.session.id || this.#choosing || !role) return;
		this.#choosing = true;
		try {
			let sessions = this.#catalog;
			if (!sessions || sessions.status.kind === "refused") {
				sessions?.close();
				sessions = ctx.objects.open(sessionsContract, {});
				this.#catalog = sessions;
			}
			await sessions.ready;
			const { start } = ctx;
			// A reload or a restart reopens the session that was open, whatever the command line said.
			const reopened = ctx.snapshot.restored?.session;
			const choice = reopened
				? { kind: "open" as const, id: reopened }
				: chooseSession({
						role,
						guestSession: ctx.session.identity?.session ?? null,
						sessions: sessions.state?.sessions ?? [],
						args: choiceArgs(ctx),
						...(start.local ? { local: { cwd: start.local.cwd } } : {}),
					});
			let id: string;
			if (choice.kind === "none") return ctx.ui.notice(choice.reason, "warning");
			if (choice.kind === "create") id = (await this.#created(sessions, choice.cwd)).id;
			else if (choice.kind === "fork") id = await this.#forkAtStart(choice.id);
			else id = choice.id;
			sessions.onChange(() => this.#catalogChanged());
			const anchor = ctx.snapshot.restored?.anchor;
			ctx.session.open(id, anchor ? { anchor } : {});
			if (start.reason !== "start") return;
			// pi's --resume: the session picker, over the session that opened (Esc stays there).
			const resume = start.args.resume ? ctx.commands.get("app.session.resume") : undefined;
			if (resume) ctx.commands.invoke(resume).catch((error: unknown) => ctx.ui.fail(error));
			// The command line's choices apply once, to the session this start opened (not after a reload).
			const chat = ctx.services.get("conversation")?.ref;
			const models = ctx.services.get("models");
			if (ctx.session.role && chat) {
				await applyStartFlags(start.args, {
					role: ctx.session.role,
					session: id,
					sessions,
					chat,
					findModel: async (spec, provider) => models?.findModel(spec, provider),
					created: choice.kind === "create",
					scopeForRun: () => models?.scopeForRun(),
					notice: (text, tone) => ctx.ui.notice(text, tone),
				});
			}
		} catch (error) {
			ctx.ui.fail(error);
		} finally {
			this.#choosing = false;
		}
	}

	/** The session asked for early if that worked and was for this directory, else one asked for now. */
	async #created(sessions: ObjectRef<typeof sessionsContract>, cwd: string): Promise<{ readonly id: string }> {
		const early = this.#early;
		this.#early = undefined;
		if (early && cwd === this.#ctx.start.local?.cwd) {
			const made = await early.catch(() => undefined);
			if (made) return made;
		}
		return sessions.call("create", { cwd });
	}

	/** pi's `--fork <id>`: a new fork of that session, in the directory p2 started in when the server is this device's. */
	async #forkAtStart(source: string): Promise<string> {
		const conversation = this.#ctx.services.get("conversation");
		if (!conversation) throw new Error("This UI cannot fork sessions.");
		const cwd = this.#ctx.start.local?.cwd;
		const session = await conversation.forkSession(source, cwd ? { cwd } : {});
		this.#ctx.ui.notice("Forked to new session");
		return session;
	}
}

/** What the command line asks of the session choice. */
function choiceArgs(ctx: GuestContext): SessionChoiceInput["args"] {
	const { args } = ctx.start;
	return {
		continue: args.continue || args.resume,
		...(args.session ? { session: args.session } : {}),
		...(args.fork ? { fork: args.fork } : {}),
		...(args.lastSession ? { lastSession: args.lastSession } : {}),
	};
}
