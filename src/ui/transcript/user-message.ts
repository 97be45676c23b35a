import { Box, Markdown, Spacer, Text, truncateToWidth } from "@earendil-works/pi-tui";
import { type ImageItem, InlineImage, type InlineImageParts, imagePlaceholder } from "../inline-image.ts";
import { visibleText } from "../text.ts";
import { parseSkillBlock, skillBox } from "./skill-block.ts";
import { ThemedItem } from "./themed.ts";

export interface UserMessageData {
	readonly text: string;
	/** Shown when the author is not the viewer (shared sessions). */
	readonly author?: string;
	/** A message that invoked a skill: its block is shown expanded (Ctrl+O), with the key that does it. */
	readonly skill?: { readonly expanded: boolean; readonly expandKey: string };
	/** One dim line a plugin put above the message (chat mode's "↪ Replying to …"). */
	readonly lead?: string;
	/** The images sent with it, and the cells wide they are drawn (none: a text placeholder each). */
	readonly images?: readonly ImageItem[];
	readonly imageCells?: number;
}

/**
 * Shell-integration prompt marks (OSC 133) around the block, as pi sets them: pi-tui uses them to jump between
 * messages (Ctrl+Shift+Up/Down) and strips them before anything is written to the terminal.
 */
const ZONE_START = "\x1b]133;A\x07";
const ZONE_END = "\x1b]133;B\x07\x1b]133;C\x07";

/** pi's user message: a blank line, then a full-width block on `userMessageBg` with one padding row each side. */
export class UserMessage extends ThemedItem<UserMessageData> {
	/** Rewrites the message's Markdown before it is parsed (pi draws Mermaid in user messages too). */
	transform: ((markdown: string, width: number) => string) | undefined;
	/** How its images are drawn, when the launcher draws them. */
	images: InlineImageParts | undefined;

	override render(width: number): string[] {
		const lines = super.render(width);
		if (lines.length < 2) return lines;
		const zoned = [...lines];
		zoned[1] = ZONE_START + zoned[1];
		zoned[zoned.length - 1] = ZONE_END + zoned[zoned.length - 1];
		return zoned;
	}

	protected build(): void {
		const t = () => this.theme.current;
		this.addChild(new Spacer(1));
		if (this.data.lead) {
			const lead = visibleText(this.data.lead, false);
			this.addChild({ invalidate() {}, render: (width) => [truncateToWidth(` ${t().fg("dim", lead)}`, width)] });
		}
		// pi: a skill's block collapsed to one line, then what was asked with it as a message of its own.
		const skill = this.data.skill ? parseSkillBlock(this.data.text) : null;
		if (skill) {
			this.addChild(skillBox(this.theme, skill, this.data.skill?.expanded === true, this.data.skill?.expandKey ?? ""));
			if (skill.request === undefined) return;
			this.addChild(new Spacer(1));
		}
		const box = new Box(1, 1, (text) => t().bg("userMessageBg", text));
		const text = visibleText(skill?.request ?? this.data.text);
		box.addChild(
			new Markdown(
				this.data.author ? `${this.data.author}: ${text}` : text,
				0,
				0,
				this.theme.markdownTheme(),
				{ color: (s) => t().fg("userMessageText", s) },
				{
					preserveOrderedListMarkers: true,
					preserveBackslashEscapes: true,
					...(this.transform ? { transform: this.transform } : {}),
				},
			),
		);
		this.#addImages(box);
		this.addChild(box);
	}

	/** The message's images in its block, under the text: drawn by the launcher, or a muted placeholder each. */
	#addImages(box: Box): void {
		const t = () => this.theme.current;
		const images = this.data.images ?? [];
		if (!images.length) return;
		box.addChild(new Spacer(1));
		const parts = this.data.imageCells === undefined ? undefined : this.images;
		if (!parts) {
			box.addChild(new Text(images.map((image) => t().fg("muted", imagePlaceholder(image))).join("\n"), 0, 0));
			return;
		}
		images.forEach((image, i) => {
			if (i > 0) box.addChild(new Spacer(1));
			box.addChild(
				new InlineImage(parts.display, parts.source(image), this.data.imageCells, (s) => t().fg("muted", s)),
			);
		});
	}
}
