import { Box, Markdown, Spacer, Text } from "@earendil-works/pi-tui";
import { groupDigits, visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

export interface CompactionSummaryData {
	readonly summary: string;
	readonly tokensBefore: number;
	/** With the tool cards (Ctrl+O): the whole summary; otherwise one line. */
	readonly expanded: boolean;
	/** The key that expands it, as pi names it ("ctrl+o"); empty when unbound. */
	readonly expandKey: string;
}

/** pi's compaction block: the `[compaction]` label on the custom-message background, collapsed to one line. */
export class CompactionSummary extends ThemedItem<CompactionSummaryData> {
	protected build(): void {
		const t = () => this.theme.current;
		const tokens = groupDigits(this.data.tokensBefore);
		this.addChild(new Spacer(1));
		const box = new Box(1, 1, (text) => t().bg("customMessageBg", text));
		box.addChild(new Text(t().fg("customMessageLabel", t().bold("[compaction]")), 0, 0));
		box.addChild(new Spacer(1));
		if (this.data.expanded) {
			box.addChild(
				new Markdown(
					`**Compacted from ${tokens} tokens**\n\n${visibleText(this.data.summary)}`,
					0,
					0,
					this.theme.markdownTheme(),
					{ color: (s) => t().fg("customMessageText", s) },
				),
			);
		} else {
			const key = this.data.expandKey
				? `${t().fg("dim", this.data.expandKey)}${t().fg("customMessageText", " to expand")}`
				: "";
			box.addChild(
				new Text(
					t().fg("customMessageText", `Compacted from ${tokens} tokens${key ? " (" : ""}`) +
						key +
						(key ? t().fg("customMessageText", ")") : ""),
					0,
					0,
				),
			);
		}
		this.addChild(box);
	}
}
