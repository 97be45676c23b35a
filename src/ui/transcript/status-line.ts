import { Spacer, Text } from "@earendil-works/pi-tui";
import { visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

export interface StatusLineData {
	readonly text: string;
	/**
	 * pi's showStatus (`status`, replaced by the next status line), showError, showWarning, a success notice,
	 * and a `note`: a dim line that stays (pi's "Session name: …", added as text rather than as a status).
	 */
	readonly tone: "status" | "note" | "error" | "warning" | "success";
}

/** A status or notice line: a blank line, then the text with one column of padding. */
export class StatusLine extends ThemedItem<StatusLineData> {
	protected build(): void {
		const t = this.theme.current;
		const text = visibleText(this.data.text);
		const tone = this.data.tone;
		const colored =
			tone === "error"
				? t.fg("error", text)
				: tone === "warning"
					? t.fg("warning", text)
					: tone === "success"
						? t.fg("accent", text)
						: t.fg("dim", text);
		this.addChild(new Spacer(1));
		this.addChild(new Text(colored, 1, 0));
	}
}
