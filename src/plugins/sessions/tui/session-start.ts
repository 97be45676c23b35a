/**
 * Which session opens when the server says who this is (pi's `--session`, `--continue`, `--fork`, a guest's
 * own session, or the one a reload left open), then what the command line asked of it: pi's `--resume`
 * picker and the `--name`, `--model` and `--thinking` flags.
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import type { ObjectRef } from "../../../protocol/object-client.ts";
import { sessionsContract } from "../contract.ts";
import { chooseSession } from "./session-choice.ts";
import { applyStartFlags } from "./start-flags.ts";

export class SessionStart {
	readonly #ctx: GuestContext;
	readonly #catalogChanged: () => void;
	#choosing = false;
	#catalog: ObjectRef<typeof sessionsContract> | undefined;

	/** `catalogChanged`: the catalog's rows changed (the open session's facts follow them). */
	constructor(ctx: GuestContext, catalogChanged: () => void) {
		this.#ctx = ctx;
		this.#catalogChanged = catalogChanged;
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
			this.#catalog?.close();
			const sessions = ctx.objects.open(sessionsContract, {});
			this.#catalog = sessions;
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
						args: {
							continue: start.args.continue || start.args.resume,
							...(start.args.session ? { session: start.args.session } : {}),
							...(start.args.fork ? { fork: start.args.fork } : {}),
							...(start.args.lastSession ? { lastSession: start.args.lastSession } : {}),
						},
						...(start.local ? { local: { cwd: start.local.cwd } } : {}),
					});
			let id: string;
			if (choice.kind === "none") return ctx.ui.notice(choice.reason, "warning");
			if (choice.kind === "create") id = (await sessions.call("create", { cwd: choice.cwd })).id;
			else if (choice.kind === "fork") id = await this.#forkAtStart(choice.id);
			else id = choice.id;
			sessions.onChange(() => this.#catalogChanged());
			const anchor = ctx.snapshot.restored?.anchor;
			ctx.session.open(id, anchor ? { anchor } : {});
			if (start.reason !== "start") return;
			// pi's --resume: the session picker, over the session that opened (Esc stays there).
			if (start.args.resume) ctx.commands.get("app.session.resume")?.run("");
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
					notice: (text, tone) => ctx.ui.notice(text, tone),
				});
			}
		} catch (error) {
			ctx.ui.notice(`Error: ${error instanceof Error ? error.message : String(error)}`, "error");
		} finally {
			this.#choosing = false;
		}
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
