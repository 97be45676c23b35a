import { Markdown, Spacer, Text } from "@earendil-works/pi-tui";
import { ThemedItem } from "./themed.ts";

export interface HelpBlockData {
	readonly title: string;
	readonly markdown: string;
}

/** A block the UI adds to the transcript (pi's /hotkeys): a border, the title in bold accent, Markdown, a border. */
export class HelpBlock extends ThemedItem<HelpBlockData> {
	protected build(): void {
		const t = this.theme.current;
		const border = { render: (width: number) => [t.rule(width)], invalidate() {} };
		this.addChild(new Spacer(1));
		this.addChild(border);
		this.addChild(new Text(t.bold(t.fg("accent", this.data.title)), 1, 0));
		this.addChild(new Spacer(1));
		this.addChild(new Markdown(this.data.markdown, 1, 1, this.theme.markdownTheme()));
		this.addChild(border);
	}
}
