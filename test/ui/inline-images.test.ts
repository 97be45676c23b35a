import { describe, expect, test } from "bun:test";
import { InlineImages, placementsOn } from "../../src/guest/inline-images.ts";
import type { ChatEntry } from "../../src/plugins/chat/contract.ts";
import { committedItems, type ViewOptions } from "../../src/plugins/chat/tui/display-items.ts";
import type { ImageItem, InlineImageParts } from "../../src/ui/inline-image.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";
import { ToolCard, type ToolCardData } from "../../src/ui/tools/tool-card.ts";
import { UserMessage } from "../../src/ui/transcript/user-message.ts";

const dark = () => new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
const plain = (lines: readonly string[]) =>
	lines.map((l) => l.replace(/\x1b\[[0-9;]*m|\x1b\]133;[ABC]\x07|\x1b_p2i:[0-9:e]*\x07/g, "").trimEnd());

const view: ViewOptions = { viewerId: "me", toolsExpanded: true, hideThinking: false, home: undefined, now: 1 };
const readEntry: ChatEntry = {
	seq: 7,
	at: 7,
	kind: "tool",
	callId: "c1",
	name: "read",
	args: { path: "shot.png" },
	result: {
		text: "Read image file [image/png]",
		isError: false,
		details: null,
		images: [{ mimeType: "image/png", width: 360, height: 180 }],
	},
	durationMs: 5,
};

function partsFor(images: InlineImages): InlineImageParts {
	return {
		display: images,
		source: (image: ImageItem) => ({ id: `s:main:${image.seq}:${image.index}`, ...image, load: async () => "png" }),
	};
}

function toolData(options: ViewOptions): ToolCardData {
	const item = committedItems([readEntry], options).items[0]!;
	if (item.kind !== "tool") throw new Error("not a tool item");
	return item.data;
}

describe("a tool's images", () => {
	test("nothing draws images: pi's placeholder follows the tool's text output (read, expanded)", () => {
		const images = new InlineImages({ post: () => {} }, undefined);
		const card = new ToolCard(dark(), toolData(view), undefined, partsFor(images));
		expect(plain(card.render(80))).toContain(" [Image: [image/png] 360x180]");
	});

	test("the launcher draws them: a blank row, then the image's marked rows under the card, whole on screen", () => {
		const images = new InlineImages({ post: () => {} }, "kitty");
		const data = toolData({ ...view, imageCells: 40 });
		expect(data.imageCells).toBe(40);
		const lines = new ToolCard(dark(), data, undefined, partsFor(images)).render(80);
		expect(plain(lines).join("\n")).not.toContain("[Image:");
		// 360×180 px at 40 cells: 40 columns, 10 rows.
		expect(placementsOn(lines, ["s:main:7:0"])).toEqual([
			{ id: "s:main:7:0", row: lines.length - 10, col: 0, columns: 40, rows: 10 },
		]);
		expect(lines[lines.length - 11]).toBe("");
	});
});

describe("a user's images", () => {
	test("the message names its images (placeholders), or holds them drawn in its block", () => {
		const entry: ChatEntry = {
			seq: 3,
			at: 3,
			kind: "user",
			text: "what is this?",
			author: { id: "me", name: "Me", role: "deviceOwner" },
			images: 2,
			imageFacts: [{ mimeType: "image/png", width: 90, height: 90 }, { mimeType: "image/jpeg" }],
		};
		const item = committedItems([entry], view).items[0]!;
		if (item.kind !== "user") throw new Error("not a user item");
		const text = new UserMessage(dark(), item.data);
		expect(plain(text.render(60))).toEqual(
			expect.arrayContaining([" [Image: [image/png] 90x90]", " [Image: [image/jpeg]]"]),
		);
		const drawnItem = committedItems([entry], { ...view, imageCells: 20 }).items[0]!;
		if (drawnItem.kind !== "user") throw new Error("not a user item");
		const drawn = new UserMessage(dark(), drawnItem.data);
		drawn.images = partsFor(new InlineImages({ post: () => {} }, "iterm2"));
		const lines = drawn.render(60);
		expect(placementsOn(lines, ["s:main:3:0", "s:main:3:1"]).map((p) => [p.id, p.col, p.columns])).toEqual([
			["s:main:3:0", 1, 20],
			["s:main:3:1", 1, 20],
		]);
	});
});
