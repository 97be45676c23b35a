import { Spacer, Text, truncateToWidth } from "@earendil-works/pi-tui";
import { visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

/** pi shows this many of the last output lines of a collapsed command. */
const COLLAPSED_LINES = 20;

export interface ShellBlockData {
	readonly command: string;
	readonly output: string;
	/** Still running: the status line says so. */
	readonly running: boolean;
	readonly exitCode: number | null;
	readonly cancelled: boolean;
	/** `!!`: left out of the model's context, drawn in dim. */
	readonly includeInContext: boolean;
	readonly expanded: boolean;
	/** Who ran it, when it was not the viewer. */
	readonly author?: string;
	readonly expandKey: string;
	readonly interruptKey: string;
}

/** pi's block for a person's `!cmd`: bash-mode rules, `$ cmd`, the output's tail, and how it ended. */
export class ShellBlock extends ThemedItem<ShellBlockData> {
	protected build(): void {
		const t = () => this.theme.current;
		const d = this.data;
		const tone = d.includeInContext ? "bashMode" : "dim";
		const rule = { invalidate() {}, render: (width: number) => [t().rule(width, tone)] };
		this.addChild(new Spacer(1));
		this.addChild(rule);
		const by = d.author ? t().fg("dim", ` · ${visibleText(d.author, false)}`) : "";
		this.addChild(new Text(`${t().fg(tone, t().bold(`$ ${visibleText(d.command, false)}`))}${by}`, 1, 0));
		// pi shows the output's lines as they are: a final newline is a blank line before the closing rule.
		const text = visibleText(d.output);
		const lines = text ? text.split("\n") : [];
		if (lines.length) {
			this.addChild(new Spacer(1));
			const shown = d.expanded ? lines : lines.slice(-COLLAPSED_LINES);
			this.addChild({
				invalidate() {},
				render: (width: number) => shown.map((l) => truncateToWidth(` ${t().fg("muted", l)}`, width, "")),
			});
			const hidden = lines.length - shown.length;
			if (hidden > 0) {
				const key = d.expandKey ? ` (${d.expandKey} to expand)` : "";
				this.addChild(new Text(t().fg("dim", `... ${hidden} more lines${key}`), 1, 0));
			}
		}
		const status = d.running
			? t().fg("muted", `Running...${d.interruptKey ? ` (${d.interruptKey} to cancel)` : ""}`)
			: d.cancelled
				? t().fg("warning", "(cancelled)")
				: d.exitCode !== 0
					? t().fg("error", `(exit ${d.exitCode ?? "?"})`)
					: "";
		if (status) {
			this.addChild(new Spacer(1));
			this.addChild(new Text(status, 1, 0));
		}
		this.addChild(rule);
	}
}
