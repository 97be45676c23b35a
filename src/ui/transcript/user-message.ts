import { Box, Markdown, Spacer } from "@earendil-works/pi-tui";
import { visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

export interface UserMessageData {
	readonly text: string;
	/** Shown when the author is not the viewer (shared sessions). */
	readonly author?: string;
}

/** pi's user message: a blank line, then a full-width block on `userMessageBg` with one padding row each side. */
export class UserMessage extends ThemedItem<UserMessageData> {
	protected build(): void {
		const t = () => this.theme.current;
		this.addChild(new Spacer(1));
		const box = new Box(1, 1, (text) => t().bg("userMessageBg", text));
		const text = visibleText(this.data.text);
		box.addChild(
			new Markdown(
				this.data.author ? `${this.data.author}: ${text}` : text,
				0,
				0,
				this.theme.markdownTheme(),
				{ color: (s) => t().fg("userMessageText", s) },
				{ preserveOrderedListMarkers: true, preserveBackslashEscapes: true },
			),
		);
		this.addChild(box);
	}
}
