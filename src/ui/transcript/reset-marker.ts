import { Spacer, Text, visibleWidth } from "@earendil-works/pi-tui";
import { visibleText } from "../text.ts";
import { ThemedItem } from "./themed.ts";

export interface ResetMarkerData {
	/** The note carried into the fresh context, or null. */
	readonly handoff: string | null;
}

/** Where /new-context started a fresh context: a labelled rule, and the handoff note under it. */
export class ResetMarker extends ThemedItem<ResetMarkerData> {
	protected build(): void {
		const t = () => this.theme.current;
		this.addChild(new Spacer(1));
		const label = " new context: the model does not see what is above ";
		this.addChild({
			invalidate() {},
			render: (width: number) => {
				const side = Math.max(2, Math.floor((width - visibleWidth(label)) / 2));
				const rule = `${"─".repeat(side)}${label}${"─".repeat(Math.max(2, width - side - visibleWidth(label)))}`;
				return [t().fg("border", rule.slice(0, Math.max(0, width)))];
			},
		});
		if (this.data.handoff) {
			this.addChild(new Text(t().fg("muted", `Handoff: ${visibleText(this.data.handoff)}`), 1, 0));
		}
	}
}
