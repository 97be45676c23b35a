import { MouseRegion, Spacer, Text } from "@earendil-works/pi-tui";
import { StreamingMarkdown } from "../streaming-markdown.ts";
import { visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

export type AssistantPart = { type: "text"; text: string } | { type: "thinking"; text: string; redacted: boolean };

export interface AssistantMessageData {
	readonly parts: readonly AssistantPart[];
	readonly stopReason?: "stop" | "length" | "toolUse" | "error" | "aborted";
	readonly error?: string;
	readonly hideThinking: boolean;
	/** Thinking blocks (by their order among the shown parts) a click showed or hid against `hideThinking`. */
	readonly thinkingFlipped?: readonly number[];
}

/**
 * pi's assistant message: no background, the terminal's own foreground, Markdown with one column of padding;
 * thinking in italic `thinkingText` (or one `Thinking...` label when hidden); error, abort and truncation
 * notices after the content.
 */
export class AssistantMessage extends ThemedItem<AssistantMessageData> {
	/** Rewrites each block's Markdown before it is parsed (plugins' transformers; blocks, not the whole text). */
	transform: ((markdown: string, width: number) => string) | undefined;
	/** A left click on a thinking block (its order among the thinking blocks shown): pi toggles that block. */
	thinkingClick: ((run: number) => void) | undefined;
	/**
	 * The Markdown of each shown part and the text it shows, so a growing answer re-lexes only the part that grew
	 * and makes visible only the text that was appended.
	 */
	#shown: { part: AssistantPart; visible: string; markdown: StreamingMarkdown }[] = [];

	/** Still streaming: no stop reason yet. */
	get streaming(): boolean {
		return this.data.stopReason === undefined;
	}

	override update(
		data: AssistantMessageData,
		same?: (a: AssistantMessageData, b: AssistantMessageData) => boolean,
	): void {
		if (this.#patch(data)) return;
		super.update(data, same);
	}

	/** Streaming only appends text to the parts it has: update those in place when that is all that changed. */
	#patch(data: AssistantMessageData): boolean {
		const old = this.data;
		if (
			old.stopReason !== data.stopReason ||
			old.error !== data.error ||
			old.hideThinking !== data.hideThinking ||
			String(old.thinkingFlipped ?? []) !== String(data.thinkingFlipped ?? [])
		)
			return false;
		const parts = visibleParts(data.parts);
		if (parts.length !== this.#shown.length || this.#shown.length === 0) return false;
		let run = 0;
		for (let i = 0; i < parts.length; i++) {
			const was = this.#shown[i]!.part;
			const now = parts[i]!;
			if (was.type !== now.type || (now.type === "thinking" && (hidden(data, run++) || now.redacted))) {
				if (was.text !== now.text) return false;
			}
		}
		for (let i = 0; i < parts.length; i++) {
			const shown = this.#shown[i]!;
			const now = parts[i]!;
			const was = shown.part.text;
			if (was !== now.text) {
				// visibleText maps each character on its own, so an appended text needs only its new end made visible.
				shown.visible = now.text.startsWith(was)
					? shown.visible + visibleText(now.text.slice(was.length))
					: visibleText(now.text);
				shown.markdown.setText(shown.visible);
			}
			shown.part = now;
		}
		this.data = data;
		this.invalidateLines();
		return true;
	}

	protected build(): void {
		this.#shown = [];
		const t = () => this.theme.current;
		const markdown = this.theme.markdownTheme();
		const parts = visibleParts(this.data.parts);
		let first = true;
		let runs = 0;
		for (const part of parts) {
			if (first || part.type === "text") this.addChild(new Spacer(1));
			first = false;
			if (part.type === "thinking") {
				const run = runs++;
				const text = hidden(this.data, run) || part.redacted ? "Thinking..." : visibleText(part.text);
				const md = new StreamingMarkdown(text, 1, 0, markdown, {
					color: (s: string) => t().fg("thinkingText", s),
					italic: true,
				});
				this.#shown.push({ part, visible: text, markdown: md });
				const click = this.thinkingClick;
				this.addChild(
					click
						? new MouseRegion(md, (event) => {
								if (event.type !== "click" || event.button !== "left") return undefined;
								click(run);
								return { handled: true };
							})
						: md,
				);
			} else {
				const transform = this.transform;
				const visible = visibleText(part.text);
				const md = new StreamingMarkdown(visible, 1, 0, markdown, undefined, transform ? { transform } : undefined);
				this.#shown.push({ part, visible, markdown: md });
				this.addChild(md);
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

/** Whether a thinking block is hidden: the setting, unless a click flipped this one. */
function hidden(data: AssistantMessageData, run: number): boolean {
	return data.hideThinking !== (data.thinkingFlipped?.includes(run) ?? false);
}

function visibleParts(parts: readonly AssistantPart[]): AssistantPart[] {
	// A search for the first visible character, not a trimmed copy of a long text on every frame.
	return parts.filter((p) => /\S/.test(p.text) || (p.type === "thinking" && p.redacted));
}
