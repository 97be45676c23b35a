/** The transcript's components: one per display item, each updated in place with its own kind of data. */
import type { Component } from "@earendil-works/pi-tui";
import type { EntryRenderers, MarkdownTransformers, ToolRenderers } from "../../../guest/registries.ts";
import type { InlineImageParts } from "../../../ui/inline-image.ts";
import type { createMermaidTransformer } from "../../../ui/mermaid.ts";
import type { ThemeRef } from "../../../ui/theme/theme-ref.ts";
import { ToolCard } from "../../../ui/tools/tool-card.ts";
import { AssistantMessage } from "../../../ui/transcript/assistant-message.ts";
import { CompactionSummary } from "../../../ui/transcript/compaction-summary.ts";
import { HelpBlock } from "../../../ui/transcript/help-block.ts";
import { ResetMarker } from "../../../ui/transcript/reset-marker.ts";
import { ShellBlock } from "../../../ui/transcript/shell-block.ts";
import { StatusLine } from "../../../ui/transcript/status-line.ts";
import type { ThemedItem } from "../../../ui/transcript/themed.ts";
import { UserMessage } from "../../../ui/transcript/user-message.ts";
import type { ChatEntry } from "../contract.ts";
import { clickableThinking, clickableToolCard } from "./click-toggle.ts";
import { CustomEntry, entryKind } from "./custom-entry.ts";
import type { DisplayItem } from "./display-items.ts";

type Kind = DisplayItem["kind"];
type ItemOf<K extends Kind> = Extract<DisplayItem, { kind: K }>;

/** An item's component and how it takes new data of its kind (rebuilt on its next render). */
export interface ItemView {
	readonly component: Component;
	readonly kind: Kind;
	update(item: DisplayItem): void;
}

function view<K extends Kind>(kind: K, component: ThemedItem<ItemOf<K>["data"]>): ItemView {
	return {
		component,
		kind,
		update(item) {
			// The same kind carries the same kind of data; TypeScript cannot follow a generic kind to it.
			if (item.kind === kind) component.update(item.data as ItemOf<K>["data"], () => false);
		},
	};
}

export interface ItemFactoryOptions {
	readonly theme: ThemeRef;
	readonly toolRenderers: ToolRenderers;
	readonly entryRenderers: EntryRenderers;
	readonly markdownTransformers: MarkdownTransformers;
	readonly drawMermaid: ReturnType<typeof createMermaidTransformer>;
	/** pi's markdown.mermaid: off, only once the answer is complete, or while it streams. */
	mermaid(): "off" | "final" | "streaming";
	/** How images are drawn by the launcher (absent: always text placeholders). */
	readonly images?: InlineImageParts;
}

export function createItem(item: DisplayItem, options: ItemFactoryOptions): ItemView {
	const { theme } = options;
	switch (item.kind) {
		case "user": {
			// pi draws Mermaid in what people write too (a sent message is complete: "final" draws it as well).
			const message = new UserMessage(theme, item.data);
			message.images = options.images;
			message.transform = (md, width) =>
				options.mermaid() === "off" ? md : options.drawMermaid(md, width, { streaming: false });
			return view("user", message);
		}
		case "assistant": {
			const message = new AssistantMessage(theme, item.data);
			// Mermaid first, as pi runs it before extensions' transformers; then the plugins'.
			message.transform = (md, width) => {
				const mermaid = options.mermaid();
				const draw = mermaid === "streaming" || (mermaid === "final" && !message.streaming);
				const drawn = draw ? options.drawMermaid(md, width, { streaming: message.streaming }) : md;
				return options.markdownTransformers.apply(drawn, width);
			};
			const clicks = clickableThinking(message, item.data);
			return {
				component: message,
				kind: "assistant",
				update: (next) => next.kind === "assistant" && clicks.update(next.data),
			};
		}
		case "tool": {
			const card = clickableToolCard(
				new ToolCard(theme, item.data, (d) => options.toolRenderers.resolve(d), options.images),
				item.data,
			);
			return {
				component: card.component,
				kind: "tool",
				update: (next) => next.kind === "tool" && card.update(next.data),
			};
		}
		case "status":
			return view("status", new StatusLine(theme, item.data));
		case "block":
			return view("block", new HelpBlock(theme, item.data));
		case "compaction":
			return view("compaction", new CompactionSummary(theme, item.data));
		case "marker":
			return view("marker", new ResetMarker(theme, item.data));
		case "shell":
			return view("shell", new ShellBlock(theme, item.data));
		case "custom":
			return view(
				"custom",
				new CustomEntry(
					theme,
					item.data,
					(entry: ChatEntry) => options.entryRenderers.resolve(entry, theme, entryKind(entry)),
					(fallback) => createItem(fallback, options).component,
				),
			);
	}
}
