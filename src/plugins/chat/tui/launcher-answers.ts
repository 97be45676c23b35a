/**
 * The chat's side of the launcher's actions: it answers the launcher's questions (the text to copy, the
 * editor's text), takes the external editor's result and a pasted file, and offers pi's /copy (which the
 * launcher asks the person about).
 */
import type { GuestContext } from "../../../guest/plugin.ts";
import { MAX_COPY_CHARS } from "../../../protocol/channel-kinds.ts";
import type { ChatState } from "../contract.ts";
import type { ChatScreen } from "./screen.ts";

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

export function registerLauncherAnswers(
	ctx: GuestContext,
	screen: ChatScreen,
	chat: () => ChatState | undefined,
): () => void {
	const { launcher, ui } = ctx;
	const removals = [
		launcher.answer("copyText", () => lastAnswerText(chat()) ?? null),
		launcher.answer("editorText", () => (ui.selector ? null : screen.editorText())),
		launcher.on("editorResult", (message) => ui.setEditorText(message.text)),
		launcher.on("attached", (message) => screen.attach(message.file)),
		ctx.commands.register({
			id: "p2.chat.copy",
			title: "Copy last agent message to clipboard",
			category: "Other",
			slash: { name: "copy" },
			run: async () => {
				const text = lastAnswerText(chat());
				if (!text) return ui.notice("No agent message to copy yet.");
				const answer = await launcher.request("copy", { text, label: "the last answer" });
				if (answer.ok) ui.notice(`Copied ${text.length} characters to the clipboard`);
				else if (answer.error === "declined") ui.notice("Not copied");
				else ui.notice(`Not copied: ${answer.error ?? "refused"}`, "warning");
			},
		}),
	];
	return () => {
		for (const remove of removals) remove();
	};
}
