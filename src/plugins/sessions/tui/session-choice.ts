import type { Role } from "../../../protocol/roles.ts";
import type { SessionRow } from "../contract.ts";

export type SessionChoice =
	| { readonly kind: "open"; readonly id: string }
	/** `--fork`: a new fork of this session opens. */
	| { readonly kind: "fork"; readonly id: string }
	| { readonly kind: "create"; readonly cwd: string }
	| { readonly kind: "none"; readonly reason: string };

export interface SessionChoiceInput {
	readonly role: Role;
	/** The session a guest was admitted to. */
	readonly guestSession: string | null;
	readonly sessions: readonly SessionRow[];
	readonly args: {
		readonly session?: string;
		readonly fork?: string;
		readonly continue: boolean;
		readonly lastSession?: string;
	};
	/** This device's server: the directory p2 started in. */
	readonly local?: { readonly cwd: string };
}

/**
 * The owner's new session that `chooseSession` will choose whatever the catalog holds (no session named, none to
 * continue, this device's directory): its directory, known before the catalog or the role arrive.
 */
export function newSessionWhateverTheCatalog(
	args: SessionChoiceInput["args"],
	local: SessionChoiceInput["local"],
): string | undefined {
	return local && !args.session && !args.fork && !args.continue ? local.cwd : undefined;
}

/**
 * Which session the chat opens, as pi decides it: `--session <id>` (a unique prefix will do), `--continue`
 * (the latest session in this directory), else a new session here. Guests always get the session they joined;
 * a remote owner without a local directory continues the session they had open last (the launcher remembers
 * it per server), else the latest.
 */
export function chooseSession(input: SessionChoiceInput): SessionChoice {
	if (input.role === "full" || input.role === "view") {
		return input.guestSession
			? { kind: "open", id: input.guestSession }
			: { kind: "none", reason: "This share has no session." };
	}
	const live = input.sessions.filter((s) => !s.archived);
	const wanted = input.args.session ?? input.args.fork;
	if (wanted) {
		const kind = input.args.session ? "open" : "fork";
		const exact = input.sessions.find((s) => s.id === wanted);
		if (exact) return { kind, id: exact.id };
		const matches = input.sessions.filter((s) => s.id.startsWith(wanted));
		if (matches.length === 1) return { kind, id: matches[0]!.id };
		return {
			kind: "none",
			reason: matches.length ? `Session id ${wanted} is ambiguous.` : `No session ${wanted} on this server.`,
		};
	}
	const here = input.local ? live.filter((s) => s.cwd === input.local!.cwd) : live;
	const latest = here.reduce<SessionRow | undefined>((a, s) => (!a || s.updatedAt > a.updatedAt ? s : a), undefined);
	const last = !input.local && input.args.lastSession ? live.find((s) => s.id === input.args.lastSession) : undefined;
	if (last) return { kind: "open", id: last.id };
	if (input.args.continue || !input.local) {
		if (latest) return { kind: "open", id: latest.id };
		if (!input.local) return { kind: "none", reason: "No sessions on this server yet." };
	}
	return { kind: "create", cwd: input.local!.cwd };
}
