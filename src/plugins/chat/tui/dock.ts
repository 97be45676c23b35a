/**
 * Above the editor, what is waiting (pi's pending area): queued messages, texts being sent, attached files,
 * a lost connection; and in the editor's top border, what the agent is doing, with pi's spinner.
 */
import { Text } from "@earendil-works/pi-tui";
import { authorLabel } from "../../../protocol/author-label.ts";
import type { ChatEditor } from "../../../ui/chat-editor.ts";
import { SPINNER_MS } from "../../../ui/chat-editor.ts";
import { visibleText } from "../../../ui/text.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import type { ChatState } from "../contract.ts";
import type { AttachedFile } from "./composer.ts";

export interface DockState {
	readonly chat: ChatState | undefined;
	/** Who is looking (their own queued messages carry no author), and whether they approve guests' messages. */
	readonly viewer: string | undefined;
	readonly viewerOwns: boolean;
	readonly sending: readonly string[];
	readonly attachments: readonly AttachedFile[];
	/** The connection is down after it was up: sends wait. */
	readonly reconnecting: boolean;
}

export interface DockOptions {
	readonly theme: ThemeRef;
	readonly editor: ChatEditor;
	keyText(id: string): string;
	requestRender(): void;
	/** The open conversation now (the spinner's tick reads it). */
	chat(): ChatState | undefined;
	/** Shows everything again (running tools' times, a retry's countdown). */
	refresh(): void;
}

export class Dock {
	readonly pending = new Text("", 1, 0);
	readonly #options: DockOptions;
	#spinner: ReturnType<typeof setInterval> | undefined;

	constructor(options: DockOptions) {
		this.#options = options;
	}

	update(state: DockState): void {
		const { theme, editor, keyText } = this.#options;
		const t = theme.current;
		const { chat, viewer } = state;
		const queue = chat?.queue ?? [];
		const lines = queue.map((q) => {
			const label = q.waiting ? "Waiting for approval" : q.mode === "steer" ? "Steering" : "Follow-up";
			const by = q.author.id === viewer ? "" : ` · ${authorLabel(q.author)}`;
			const line = t.fg(q.waiting ? "warning" : "dim", `${label}${by}: ${visibleText(q.text, false)}`);
			return q.waiting && state.viewerOwns ? `${line}${t.fg("dim", " (/share to accept or send back)")}` : line;
		});
		const dequeue = keyText("app.message.dequeue");
		// Alt+Up takes back one's own queued messages only.
		if (dequeue && queue.some((q) => !viewer || q.author.id === viewer)) {
			lines.push(t.fg("dim", `↳ ${capitalizeKeys(dequeue)} to edit all queued messages`));
		}
		for (const text of state.sending) lines.push(t.fg("dim", `Sending: ${visibleText(text, false)}`));
		if (state.attachments.length) {
			const chips = state.attachments.map((a) => t.fg("accent", `[${visibleText(a.name, false)} ${fileSize(a.size)}]`));
			lines.push(
				`${chips.join(" ")} ${t.fg("dim", "(sent with the next message; Backspace on an empty editor removes the last)")}`,
			);
		}
		if (state.reconnecting) lines.push(t.fg("warning", "Reconnecting to the server…"));
		this.pending.setText(lines.length ? `\n${lines.join("\n")}` : "");
		const live = chat?.live;
		const interrupt = keyText("app.interrupt");
		if (chat?.compacting) {
			const reason = chat.compacting.reason;
			const what =
				reason === "manual"
					? "Compacting context..."
					: `${reason === "overflow" ? "Context overflow detected, " : ""}Auto-compacting...`;
			editor.setIndicator({ text: `${what}${interrupt ? ` (${interrupt} to cancel)` : ""}`, tone: "border" });
		} else if (live?.retry) {
			const secs = Math.max(0, Math.ceil((live.retry.until - Date.now()) / 1000));
			editor.setIndicator({
				text: `Retrying (${live.retry.attempt}/${live.retry.maxAttempts}) in ${secs}s... (escape to cancel)`,
				tone: "warning",
			});
		} else if (live) editor.setIndicator({ text: "Working", tone: "border" });
		else editor.setIndicator(undefined);
		this.#spin(Boolean(live || chat?.compacting));
	}

	dispose(): void {
		if (this.#spinner) clearInterval(this.#spinner);
	}

	#spin(spinning: boolean): void {
		if (spinning && !this.#spinner) {
			this.#spinner = setInterval(() => {
				this.#options.editor.tick();
				// Running tools show their elapsed time; the countdown of a retry moves.
				const live = this.#options.chat()?.live;
				if (live?.tools.length || live?.retry) this.#options.refresh();
				else this.#options.requestRender();
			}, SPINNER_MS);
		} else if (!spinning && this.#spinner) {
			clearInterval(this.#spinner);
			this.#spinner = undefined;
		}
	}
}

/** `12 KB`, as pi's chips write sizes. */
function fileSize(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `alt+up` → `Alt+Up`, as pi writes keys in sentences. */
function capitalizeKeys(text: string): string {
	return text.replace(/(^|[+/])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase());
}
