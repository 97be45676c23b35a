/**
 * The UI's side of the launcher's actions: it answers the launcher's questions (the text to copy, the
 * editor's text), takes the external editor's result, says how a launcher key went, tells the launcher when
 * its own text input needs every key, and offers pi's /copy (which the launcher asks the person about).
 */
import type { ChatState } from "../plugins/chat/contract.ts";
import type { GuestHost, LauncherMessage } from "../protocol/channel.ts";
import { MAX_COPY_CHARS } from "../protocol/channel-kinds.ts";
import type { StatusLineData } from "../ui/transcript/status-line.ts";
import type { CommandRegistry } from "./commands.ts";

/** The last answer's text, as pi's copy takes it. */
export function lastAnswerText(chat: ChatState | undefined): string | undefined {
	const entries = chat?.entries ?? [];
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i]!;
		if (entry.kind !== "assistant") continue;
		const text = entry.parts
			.filter((p) => p.type === "text")
			.map((p) => (p as { text: string }).text)
			.join("\n")
			.trim();
		if (text) return text.slice(0, MAX_COPY_CHARS);
	}
	return undefined;
}

export interface LauncherAnswersContext {
	readonly host: GuestHost;
	chat(): ChatState | undefined;
	editorText(): string | null;
	setEditorText(text: string): void;
	/** A file the launcher uploaded for the next message (a pasted image). */
	attach(file: { id: string; name: string; size: number }): void;
	notice(text: string, tone?: StatusLineData["tone"]): void;
	request(action: "copy", payload: { text: string; label?: string }): Promise<{ ok: boolean; error?: string }>;
}

export class LauncherAnswers {
	readonly #ctx: LauncherAnswersContext;
	#suspended = false;

	constructor(ctx: LauncherAnswersContext) {
		this.#ctx = ctx;
	}

	/** The launcher's messages this part handles; false for the others. */
	handle(message: LauncherMessage): boolean {
		const ctx = this.#ctx;
		switch (message.kind) {
			case "ask": {
				const text = message.question === "copyText" ? (lastAnswerText(ctx.chat()) ?? null) : ctx.editorText();
				ctx.host.post({ kind: "answer", id: message.id, text: text === null ? null : text.slice(0, MAX_COPY_CHARS) });
				return true;
			}
			case "editorResult":
				ctx.setEditorText(message.text);
				return true;
			case "attached":
				ctx.attach(message.file);
				return true;
			case "actionDone":
				if (message.detail) ctx.notice(message.detail, message.ok ? "status" : "warning");
				return true;
			default:
				return false;
		}
	}

	/** While a selector, a dialog or pi-tui's search has the keys, the launcher leaves its own keys to them. */
	setKeyContext(suspendPrivileged: boolean): void {
		if (suspendPrivileged === this.#suspended) return;
		this.#suspended = suspendPrivileged;
		this.#ctx.host.post({ kind: "keyContext", suspendPrivileged });
	}

	register(commands: CommandRegistry): void {
		commands.register({
			id: "p2.chat.copy",
			title: "Copy last agent message to clipboard",
			category: "Other",
			slash: { name: "copy" },
			run: async () => {
				const text = lastAnswerText(this.#ctx.chat());
				if (!text) return this.#ctx.notice("No agent message to copy yet.");
				const answer = await this.#ctx.request("copy", { text, label: "the last answer" });
				if (answer.ok) this.#ctx.notice(`Copied ${text.length} characters to the clipboard`);
				else if (answer.error === "declined") this.#ctx.notice("Not copied");
				else this.#ctx.notice(`Not copied: ${answer.error ?? "refused"}`, "warning");
			},
		});
	}
}
