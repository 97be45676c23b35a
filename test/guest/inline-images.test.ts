import { describe, expect, test } from "bun:test";
import { Container, Text, TuiAltScreen } from "@earendil-works/pi-tui";
import { composedScreen, InlineImages, placementsOn } from "../../src/guest/inline-images.ts";
import type { WorkerMessage } from "../../src/protocol/channel.ts";
import { type ImageSource, InlineImage } from "../../src/ui/inline-image.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";
import { waitUntil } from "../support/wait.ts";

const source = (id: string, loads: string[] = []): ImageSource => ({
	id,
	mimeType: "image/png",
	width: 180,
	height: 90,
	load: async () => {
		loads.push(id);
		return `png-of-${id}`;
	},
});

function screenWith(columns = 60, rows = 20, protocol: "kitty" | "iterm2" | "none" = "kitty") {
	const posted: WorkerMessage[] = [];
	const images = new InlineImages(
		{ post: (message) => posted.push(message) },
		protocol === "none" ? undefined : protocol,
	);
	const terminal = new FakeTerminal(columns, rows);
	const tui = new TuiAltScreen(terminal, false, undefined, { mouse: false });
	const root = new Container();
	tui.setLayoutRoot(root);
	tui.start();
	const frame = () => {
		const from = terminal.mark();
		tui.renderNow();
		images.afterFrame(terminal.output.slice(from), composedScreen(tui));
	};
	const placements = () => posted.filter((m) => m.kind === "imagePlacements").map((m) => m.placements);
	return { posted, images, terminal, tui, root, frame, placements };
}

describe("InlineImage", () => {
	test("drawn by the launcher: a region of blank rows between markers, as wide as the setting allows", () => {
		const images = new InlineImages({ post: () => {} }, "kitty");
		const lines = new InlineImage(images, source("a"), 20, (s) => s).render(80);
		// 180×90 px at 20 cells of 9 px: 20 columns, 90/180 of 20×9 px = 5 rows of 18 px.
		expect(lines).toHaveLength(5);
		expect(lines[0]).toBe(`\x1b_p2i:0:0:5\x07${" ".repeat(20)}\x1b_p2i:0:0:5:e\x07`);
		// Never wider than the width it is given (less pi's two columns).
		expect(new InlineImage(images, source("b"), 60, (s) => s).render(12)[0]).toContain(`\x07${" ".repeat(10)}\x1b`);
	});

	test("nothing drawn: pi's text placeholder", () => {
		const images = new InlineImages({ post: () => {} }, undefined);
		expect(new InlineImage(images, source("a"), undefined, (s) => `<${s}>`).render(80)).toEqual([
			"<[Image: [image/png] 180x90]>",
		]);
	});
});

describe("placements", () => {
	test("an image whole on the screen is placed at its first row and column; its PNG goes to the launcher once", async () => {
		const { root, frame, placements, posted, images } = screenWith();
		const loads: string[] = [];
		root.addChild(new Text("above", 0, 0));
		root.addChild(new InlineImage(images, source("img", loads), 20, (s) => s));
		frame();
		expect(placements()).toEqual([[{ id: "img", row: 1, col: 0, columns: 20, rows: 5 }]]);
		await waitUntil(() => posted.some((m) => m.kind === "image"), "the image posted");
		expect(posted.filter((m) => m.kind === "image")).toEqual([{ kind: "image", id: "img", png: "png-of-img" }]);
		// The same frame again: nothing moved, nothing new is said.
		frame();
		expect(placements()).toHaveLength(1);
		expect(loads).toEqual(["img"]);
	});

	test("when the image moves, the launcher hears where; when it leaves the screen, that it is gone", () => {
		const { root, frame, placements, images } = screenWith(60, 8);
		const image = new InlineImage(images, source("img"), 20, (s) => s);
		root.addChild(image);
		frame();
		root.children.unshift(new Text("one\ntwo", 0, 0));
		root.invalidate();
		frame();
		expect(placements().at(-1)).toEqual([{ id: "img", row: 2, col: 0, columns: 20, rows: 5 }]);
		// Pushed down so its last rows are below the screen: not whole, not drawn.
		root.children.unshift(new Text("a\nb\nc", 0, 0));
		root.invalidate();
		frame();
		expect(placements().at(-1)).toEqual([]);
	});

	test("a full redraw, or text written over its rows, has the launcher draw it again", () => {
		const { root, frame, placements, tui, images } = screenWith();
		root.addChild(new InlineImage(images, source("img"), 20, (s) => s));
		frame();
		tui.requestRender(true);
		frame();
		expect(placements()).toHaveLength(2);
	});

	test("rows drawn over (an overlay's text) or a marker cut off: the image is not placed", () => {
		const ids = ["img"];
		const row = (r: number, cells = " ".repeat(10)) => `\x1b_p2i:0:${r}:2\x07${cells}\x1b_p2i:0:${r}:2:e\x07`;
		expect(placementsOn(["x", `  ${row(0)}`, `  ${row(1)}`], ids)).toEqual([
			{ id: "img", row: 1, col: 2, columns: 10, rows: 2 },
		]);
		// Selection highlight (SGR only) keeps it.
		expect(placementsOn([row(0, `\x1b[7m${" ".repeat(10)}\x1b[27m`), row(1)], ids)).toHaveLength(1);
		expect(placementsOn([row(0, "   │box│  "), row(1)], ids)).toEqual([]);
		expect(placementsOn([row(0), `\x1b_p2i:0:1:2\x07${" ".repeat(10)}`], ids)).toEqual([]);
		expect(placementsOn([row(1)], ids)).toEqual([]);
		// Rows not one under the other, or an id the guest never gave out.
		expect(placementsOn([row(0), "gap", row(1)], ids)).toEqual([]);
		expect(placementsOn([row(0), row(1)], [])).toEqual([]);
	});

	test("no protocol: nothing is posted at all", async () => {
		const { root, frame, posted, images } = screenWith(60, 20, "none");
		root.addChild(new InlineImage(images, source("img"), undefined, (s) => s));
		frame();
		images.want(source("other"));
		await Bun.sleep(0);
		expect(posted).toEqual([]);
	});
});

describe("refusals", () => {
	test("an image the launcher refused shows pi's placeholder instead, and the screen hears of it", () => {
		const images = new InlineImages({ post: () => {} }, "kitty");
		const image = new InlineImage(images, source("a"), 20, (s) => s);
		expect(image.render(80)).toHaveLength(5);
		let told = 0;
		images.onChange(() => told++);
		images.refuse("a");
		expect(told).toBe(1);
		expect(image.render(80)).toEqual(["[Image: [image/png] 180x90]"]);
	});
});

describe("the transcript left at exit", () => {
	test("an image's rows become its placeholder once, at its column; other lines stay", () => {
		const images = new InlineImages({ post: () => {} }, "kitty");
		const lines = [
			"before",
			...new InlineImage(images, source("a"), 20, (s) => s).render(80).map((l) => `  ${l}`),
			"after",
		];
		expect(images.forExit(lines)).toEqual(["before", "  [Image: [image/png] 180x90]", "after"]);
	});
});
