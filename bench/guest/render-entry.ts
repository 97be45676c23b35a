/**
 * A guest bundle for bench/chat.ts: streams a long answer through the chat surface's AssistantMessage inside
 * the real sandbox (ses lockdown, Compartment), and logs the cost per token.
 */
import "../../src/guest/platform-prelude.ts";
import "../../src/guest/arktype-config.ts";
import type { GuestEntry } from "../../src/protocol/channel.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";
import { AssistantMessage } from "../../src/ui/transcript/assistant-message.ts";
import { longAnswer } from "./long-answer.ts";

const entry: GuestEntry = {
	start(host) {
		const tokens = 4000;
		const theme = new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
		const message = new AssistantMessage(theme, { parts: [{ type: "text", text: "" }], hideThinking: false });
		let text = "";
		let last = 0;
		const start = performance.now();
		for (const token of longAnswer(tokens)) {
			text += token;
			const t = performance.now();
			message.update({ parts: [{ type: "text", text }], hideThinking: false });
			message.render(120);
			last = performance.now() - t;
		}
		const msPerToken = (performance.now() - start) / tokens;
		host.post({ kind: "log", level: "info", text: JSON.stringify({ msPerToken, lastRenderMs: last }) });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;
