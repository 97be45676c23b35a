import { Markdown, Spacer, Text } from "@earendil-works/pi-tui";
import { visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

export type AssistantPart = { type: "text"; text: string } | { type: "thinking"; text: string; redacted: boolean };

export interface AssistantMessageData {
	readonly parts: readonly AssistantPart[];
	readonly stopReason?: "stop" | "length" | "toolUse" | "error" | "aborted";
	readonly error?: string;
	readonly hideThinking: boolean;
}

/**
 * pi's assistant message: no background, the terminal's own foreground, Markdown with one column of padding;
 * thinking in italic `thinkingText` (or one `Thinking...` label when hidden); error, abort and truncation
 * notices after the content.
 */
export class AssistantMessage extends ThemedItem<AssistantMessageData> {
	protected build(): void {
		const t = () => this.theme.current;
		const markdown = this.theme.markdownTheme();
		const parts = this.data.parts.filter((p) => p.text.trim() !== "" || (p.type === "thinking" && p.redacted));
		let first = true;
		for (const part of parts) {
			if (first || part.type === "text") this.addChild(new Spacer(1));
			first = false;
			if (part.type === "thinking") {
				const text = this.data.hideThinking || part.redacted ? "Thinking..." : visibleText(part.text);
				this.addChild(new Markdown(text, 1, 0, markdown, { color: (s) => t().fg("thinkingText", s), italic: true }));
			} else {
				this.addChild(new Markdown(visibleText(part.text), 1, 0, markdown));
			}
		}
		const notice = this.#notice();
		if (notice) {
			this.addChild(new Spacer(1));
			this.addChild(new Text(t().fg("error", visibleText(notice)), 1, 0));
		}
	}

	#notice(): string | undefined {
		switch (this.data.stopReason) {
			case "error":
				return `Error: ${this.data.error ?? "unknown error"}`;
			case "aborted":
				return "Operation aborted";
			case "length":
				return "Response was truncated before completion.";
			default:
				return undefined;
		}
	}
}
