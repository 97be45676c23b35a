/**
 * pi's clicks in the fullscreen transcript: a left click on a finished tool card expands or collapses that card,
 * and on a thinking block shows or hides that block. A click's choice lasts until the global key (Ctrl+O,
 * Ctrl+T) changes every card or block.
 */
import { MouseRegion, type TuiMouseEvent } from "@earendil-works/pi-tui";
import type { ToolCard, ToolCardData } from "../../../ui/tools/tool-card.ts";
import type { AssistantMessage, AssistantMessageData } from "../../../ui/transcript/assistant-message.ts";

const isLeftClick = (event: TuiMouseEvent) => event.type === "click" && event.button === "left";

/** A tool card a click toggles; `update` takes the card's data as the transcript gives it. */
export function clickableToolCard(card: ToolCard, data: ToolCardData) {
	let given = data;
	let flipped = false;
	const apply = () => card.update(flipped ? { ...given, expanded: !given.expanded } : given, () => false);
	return {
		component: new MouseRegion(card, (event) => {
			if (!isLeftClick(event) || given.state === "pending") return undefined;
			flipped = !flipped;
			apply();
			return { handled: true };
		}),
		update(next: ToolCardData): void {
			if (next.expanded !== given.expanded) flipped = false;
			given = next;
			apply();
		},
	};
}

/** An assistant message whose thinking blocks a click shows or hides, each on its own. */
export function clickableThinking(message: AssistantMessage, data: AssistantMessageData) {
	let given = data;
	const flipped = new Set<number>();
	const apply = () => message.update({ ...given, thinkingFlipped: [...flipped] }, () => false);
	message.thinkingClick = (run) => {
		if (!flipped.delete(run)) flipped.add(run);
		apply();
	};
	return {
		update(next: AssistantMessageData): void {
			if (next.hideThinking !== given.hideThinking) flipped.clear();
			given = next;
			apply();
		},
	};
}
