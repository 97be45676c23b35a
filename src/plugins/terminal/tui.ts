/**
 * /terminal: the session's shared shell in a panel in the editor's place, for those who may run commands in the
 * session. The shell's output is read by a terminal emulator in this worker and drawn as text; nothing the
 * program writes reaches the person's terminal as it was written. Ctrl+] returns to the editor; the shell stays,
 * and /terminal shows it again.
 */
import type { Followed } from "../../guest/follow.ts";
import type { GuestContext, GuestPlugin } from "../../guest/plugin.ts";
import { isParticipantRole } from "../../protocol/roles.ts";
import { MAX_WRITE, type TerminalSize, type TerminalState, terminalContract } from "./contract.ts";
import { Emulator, emulatorClass } from "./tui-emulator.ts";
import { LEAVE_KEY, TerminalPanel } from "./tui-panel.ts";

const PANEL_ID = "terminal";

class TerminalUi {
	readonly #ctx: GuestContext;
	readonly #removals: (() => void)[];
	#followed: Followed<typeof terminalContract> | undefined;
	#emulator: Emulator | undefined;
	#panel: TerminalPanel | undefined;
	/** Keys typed while a write is on its way: they go next, together, so none overtakes another. */
	#outbox = "";
	#sending = false;
	#failedWrite = false;

	constructor(ctx: GuestContext) {
		this.#ctx = ctx;
		this.#removals = [
			ctx.commands.register({
				id: "p2.terminal",
				title: `A shell on the session's machine, shared with the session's participants (${LEAVE_KEY} returns)`,
				category: "Workspace",
				requires: { role: "participant", to: "use the session's terminal" },
				slash: { name: "terminal" },
				run: () => this.#open(),
			}),
		];
	}

	dispose(): void {
		for (const remove of this.#removals) remove();
		this.#followed?.close();
		this.#emulator?.dispose();
	}

	#shown(): boolean {
		return this.#panel !== undefined && this.#ctx.ui.selector?.component === this.#panel;
	}

	#open(): void {
		const { ui, session } = this.#ctx;
		if (!session.id) return ui.notice("No session is open yet.");
		this.#emulator ??= new Emulator(emulatorClass(), () => {
			if (this.#shown()) ui.requestRender();
		});
		const emulator = this.#emulator;
		if (!this.#followed) {
			const followed = this.#ctx.objects.follow(terminalContract, (s) =>
				s.id && isParticipantRole(s.role) ? { session: s.id } : undefined,
			);
			this.#followed = followed;
			const watch = (ref: typeof followed.ref) =>
				ref?.onStatus(() => {
					if (this.#shown()) ui.requestRender();
				});
			watch(followed.ref);
			followed.onChange((state, ref) => {
				// Another object took the last one's place: its refusal, if the server refuses it, is drawn too.
				if (!state) watch(ref);
				this.#changed(state);
			});
		}
		const followed = this.#followed;
		const panel = new TerminalPanel(ui.theme, emulator, {
			state: () => followed.state,
			unavailable: () => {
				const status = followed.ref?.status;
				if (!status) return "The terminal is for those who may run commands here.";
				return status.kind === "refused" ? status.message : undefined;
			},
			height: () => Math.max(8, ui.tui.terminal.rows - 6),
			type: (data) => this.#type(data),
			start: (size) => this.#start(size),
			resize: (size) => this.#call("resize", size),
			leave: () => ui.closeSelector(),
			requestRender: () => ui.requestRender(),
		});
		this.#panel = panel;
		ui.showSelector(PANEL_ID, panel);
		this.#changed(followed.state);
	}

	/** The object's state changed, or another session's object took its place (undefined). */
	#changed(state: TerminalState | undefined): void {
		const emulator = this.#emulator;
		if (!emulator) return;
		if (!state) {
			emulator.dispose();
		} else {
			emulator.follow(state);
			// The person opened the panel: a shell starts for them when none runs yet.
			if (state.status === "none" && this.#shown())
				this.#start(this.#panel?.sizeFor(this.#ctx.ui.tui.terminal.columns));
		}
		if (this.#shown()) this.#ctx.ui.requestRender();
	}

	#start(size: TerminalSize | undefined): void {
		this.#failedWrite = false;
		this.#call("start", size ?? { cols: 80, rows: 24 });
	}

	#type(data: string): void {
		this.#outbox += data;
		if (!this.#sending) this.#send();
	}

	#send(): void {
		const ref = this.#followed?.ref;
		if (!ref || !this.#outbox) {
			this.#outbox = "";
			return;
		}
		const data = this.#outbox.slice(0, MAX_WRITE);
		this.#outbox = this.#outbox.slice(data.length);
		this.#sending = true;
		ref
			.call("write", { data })
			.then(
				() => {
					this.#failedWrite = false;
				},
				(error: unknown) => {
					// Said once, not for every key of a burst.
					if (!this.#failedWrite) this.#ctx.ui.fail(error);
					this.#failedWrite = true;
				},
			)
			.finally(() => {
				this.#sending = false;
				this.#send();
			});
	}

	#call(method: "start" | "resize", size: TerminalSize): void {
		const ref = this.#followed?.ref;
		if (!ref) return;
		ref.call(method, size).catch((error: unknown) => this.#ctx.ui.fail(error));
	}
}

export const terminalPlugin: GuestPlugin = {
	name: "terminal",
	register(ctx) {
		const ui = new TerminalUi(ctx);
		return () => ui.dispose();
	},
};
