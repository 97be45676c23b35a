/**
 * The terminal panel's server part: one shared shell per session in the session's environment (this device, or
 * its SSH machine), for those who may run commands there. The shell's output reaches every holder as the
 * object's state; what it writes is never interpreted here (each panel's emulator reads it).
 */
import { ProtocolError } from "../../protocol/codes.ts";
import { isParticipantRole } from "../../protocol/roles.ts";
import { maySeeSession, type Principal, type ServerContext, type ServerPlugin } from "../../server/plugin.ts";
import { type TerminalSize, terminalContract } from "./contract.ts";
import { SessionTerminal } from "./session-terminal.ts";

/** How long a shell outlives its last holder: a reconnect or a reload finds it still there. */
const GRACE_MS = 60_000;
const FIRST_SIZE: TerminalSize = { cols: 80, rows: 24 };

export interface TerminalOptions {
	/** Tests: a shorter grace period. */
	readonly graceMs?: number;
}

function mayType(principal: Principal): void {
	if (!isParticipantRole(principal.role))
		throw new ProtocolError("forbidden", "only those who may run commands in this session may use its terminal");
}

class Terminals {
	readonly #ctx: ServerContext;
	readonly #graceMs: number;
	readonly #open = new Map<string, SessionTerminal>();

	constructor(ctx: ServerContext, graceMs: number) {
		this.#ctx = ctx;
		this.#graceMs = graceMs;
	}

	#of(session: string): SessionTerminal {
		const found = this.#open.get(session);
		if (found) return found;
		const ctx = this.#ctx;
		const terminal: SessionTerminal = new SessionTerminal(
			{
				where: () => {
					const record = ctx.catalog.get(session);
					if (!record) throw new ProtocolError("not_found", "the session is gone");
					return { env: ctx.environments.get(record.env), cwd: record.cwd };
				},
				warn: (text) => ctx.log.warn(`session:${session}`, text),
			},
			{
				graceMs: this.#graceMs,
				size: FIRST_SIZE,
				gone: () => {
					if (this.#open.get(session) === terminal) this.#open.delete(session);
				},
			},
		);
		this.#open.set(session, terminal);
		return terminal;
	}

	open(session: string, principal: Principal) {
		mayType(principal);
		if (!maySeeSession(principal, session)) throw new ProtocolError("forbidden", "this session is not shared with you");
		if (!this.#ctx.catalog.get(session)) throw new ProtocolError("not_found", `no session ${session}`);
		const terminal = this.#of(session);
		terminal.hold();
		let released = false;
		return {
			state: terminal.live,
			methods: {
				start: (size: TerminalSize, { principal: by }: { principal: Principal }) => {
					mayType(by);
					terminal.start(size);
					return null;
				},
				write: ({ data }: { data: string }, { principal: by }: { principal: Principal }) => {
					mayType(by);
					if (!terminal.write(data)) throw new ProtocolError("conflict", "no shell runs in this terminal: start one");
					return null;
				},
				resize: (size: TerminalSize, { principal: by }: { principal: Principal }) => {
					mayType(by);
					terminal.resize(size);
					return null;
				},
			},
			release: () => {
				if (released) return;
				released = true;
				terminal.release();
			},
		};
	}

	close(): void {
		for (const terminal of [...this.#open.values()]) terminal.close();
	}
}

export function terminalPlugin(options: TerminalOptions = {}): ServerPlugin {
	let terminals: Terminals | undefined;
	return {
		name: "terminal",
		register(ctx) {
			terminals = new Terminals(ctx, options.graceMs ?? GRACE_MS);
			const open = terminals;
			ctx.host.serve(terminalContract, {
				open: ({ session }, { principal }) => open.open(session, principal),
			});
		},
		close() {
			terminals?.close();
		},
	};
}
