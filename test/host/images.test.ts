import { describe, expect, test } from "bun:test";
import {
	iterm2Inline,
	KITTY_DELETE_ALL,
	KITTY_DELETE_PLACEMENTS,
	kittyPlace,
	kittyTransmit,
} from "../../src/host/images/graphics-sequences.ts";
import { ImagePainter, type ImagePlacement } from "../../src/host/images/image-painter.ts";
import { imageProtocol } from "../../src/host/images/image-protocol.ts";
import { checkedPng, ImageRefused } from "../../src/host/images/png-check.ts";
import { MAX_IMAGE_BYTES } from "../../src/protocol/channel-kinds.ts";
import { bombPng, png } from "../support/png.ts";
import { waitUntil } from "../support/wait.ts";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("checkedPng", () => {
	test("a PNG comes back encoded by the launcher, with its size", async () => {
		const sent = png(20, 10);
		const checked = await checkedPng(b64(sent));
		expect({ width: checked.width, height: checked.height }).toEqual({ width: 20, height: 10 });
		const bytes = Buffer.from(checked.base64, "base64");
		expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
		// The launcher's own encoding, not the UI's bytes passed through.
		expect(checked.base64).not.toBe(b64(sent));
	});

	const refused = async (base64: string) => {
		const error = await checkedPng(base64).then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(ImageRefused);
		return (error as Error).message;
	};

	test("a bomb (a small file claiming a huge canvas) is refused before it is decoded", async () => {
		const bomb = bombPng(20000);
		expect(bomb.length).toBeLessThan(64 * 1024);
		expect(await refused(b64(bomb))).toContain("20000×20000 pixels, over 4096×4096");
	});

	test("a header that lies about the size is refused", async () => {
		expect(await refused(b64(png(20, 10, { width: 40, height: 10 })))).toContain("does not decode");
		expect(await refused(b64(bombPng(4096)))).toContain("does not decode");
	});

	test("what is not a PNG, not base64, or over the byte limit is refused", async () => {
		expect(await refused(b64(Buffer.from("GIF89a, or any other thing at all")))).toBe("the image is not a PNG");
		const jpeg = await new Bun.Image(png(8, 8)).jpeg().bytes();
		expect(await refused(b64(jpeg))).toBe("the image is not a PNG");
		expect(await refused("not base64 at all!")).toBe("the image is not base64");
		expect(await refused("A".repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4))).toBe("the image is over its size limit");
	});
});

describe("graphics sequences", () => {
	test("kitty: a small image is sent in one command, a large one in 4096-character chunks", () => {
		expect(kittyTransmit(7, "QUJD")).toBe("\x1b_Ga=t,f=100,q=2,i=7;QUJD\x1b\\");
		const long = "A".repeat(4096 * 2 + 10);
		const sent = kittyTransmit(7, long);
		expect(sent.split("\x1b\\").filter(Boolean)).toEqual([
			`\x1b_Ga=t,f=100,q=2,i=7,m=1;${"A".repeat(4096)}`,
			`\x1b_Gm=1;${"A".repeat(4096)}`,
			`\x1b_Gm=0;${"A".repeat(10)}`,
		]);
	});

	test("kitty places by id at a cell without moving the cursor; iTerm2 draws inside its box", () => {
		const box = { row: 4, col: 2, columns: 30, rows: 8 };
		expect(kittyPlace(3, box)).toBe("\x1b[5;3H\x1b_Ga=p,q=2,i=3,c=30,r=8,C=1\x1b\\");
		expect(iterm2Inline("QUJD", 3, box)).toBe(
			"\x1b[5;3H\x1b]1337;File=inline=1;size=3;width=30;height=8;preserveAspectRatio=1:QUJD\x07",
		);
	});
});

describe("imageProtocol", () => {
	test("pi's terminals, its override, and the person's terminal.images setting", () => {
		expect(imageProtocol({ TERM_PROGRAM: "kitty" }, undefined)).toBe("kitty");
		expect(imageProtocol({ TERM_PROGRAM: "ghostty" }, "auto")).toBe("kitty");
		expect(imageProtocol({ TERM_PROGRAM: "WezTerm" }, undefined)).toBe("kitty");
		expect(imageProtocol({ TERM_PROGRAM: "iTerm.app" }, undefined)).toBe("iterm2");
		expect(imageProtocol({ TERM: "xterm-256color" }, undefined)).toBeUndefined();
		// tmux and screen do not pass the sequences on.
		expect(imageProtocol({ TERM_PROGRAM: "kitty", TMUX: "/tmp/tmux" }, undefined)).toBeUndefined();
		expect(imageProtocol({ TERM_PROGRAM: "iTerm.app", TERM: "screen-256color" }, undefined)).toBeUndefined();
		expect(imageProtocol({ TERM_PROGRAM: "kitty" }, false)).toBeUndefined();
		expect(imageProtocol({ TERM: "xterm" }, "iterm2")).toBe("iterm2");
		expect(imageProtocol({ TERM: "xterm", PI_IMAGE_PROTOCOL: "kitty" }, undefined)).toBe("kitty");
		expect(imageProtocol({ TERM_PROGRAM: "kitty", PI_IMAGE_PROTOCOL: "none" }, undefined)).toBeUndefined();
	});
});

function painterFor(protocol: "kitty" | "iterm2" | undefined, size = { columns: 80, rows: 24 }) {
	const written: string[] = [];
	const problems: string[] = [];
	let onScreen = true;
	const painter = new ImagePainter({
		protocol: () => protocol,
		size: () => size,
		onScreen: () => onScreen,
		write: (data) => written.push(data),
		problem: (text) => problems.push(text),
		refused: () => {},
		check: async (base64) => ({ base64: `ok:${base64}`, width: 10, height: 10 }),
	});
	return {
		painter,
		written,
		problems,
		setOnScreen(value: boolean) {
			onScreen = value;
		},
	};
}

const at = (id: string, row: number, rows = 4): ImagePlacement => ({ id, row, col: 1, columns: 20, rows });

describe("ImagePainter", () => {
	test("kitty: an image is sent once, placed where the UI says, and re-placed when it moves", async () => {
		const { painter, written } = painterFor("kitty");
		painter.receive("a", "QUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 2)]);
		expect(written.at(-1)).toBe(`\x1b7${kittyTransmit(1, "ok:QUFB")}${kittyPlace(1, at("a", 2))}\x1b8`);
		painter.place([at("a", 5)]);
		expect(written.at(-1)).toBe(`\x1b7${KITTY_DELETE_PLACEMENTS}${kittyPlace(1, at("a", 5))}\x1b8`);
		// Scrolled out of sight: the placement goes.
		painter.place([]);
		expect(written.at(-1)).toBe(`\x1b7${KITTY_DELETE_PLACEMENTS}\x1b8`);
		painter.reset();
		expect(written.at(-1)).toBe(KITTY_DELETE_ALL);
	});

	test("an image placed before its bytes were checked is drawn once they are", async () => {
		const { painter, written } = painterFor("kitty");
		painter.place([at("late", 3)]);
		expect(written).toEqual([]);
		painter.receive("late", "QkJC");
		await waitUntil(() => written.length > 0, "the late image drawn");
		expect(written[0]).toContain(kittyPlace(1, at("late", 3)));
	});

	test("an image that does not fit on the screen, or an id never sent, is not drawn", async () => {
		const { painter, written } = painterFor("kitty", { columns: 40, rows: 10 });
		painter.receive("a", "QUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 8), { id: "a", row: 0, col: 30, columns: 20, rows: 2 }, at("never", 0)]);
		expect(written).toEqual([]);
	});

	test("iTerm2: the image is drawn again at each placement, never on the last row", async () => {
		const { painter, written } = painterFor("iterm2", { columns: 80, rows: 10 });
		painter.receive("a", "QUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 2)]);
		expect(written.at(-1)).toBe(
			`\x1b7${iterm2Inline("ok:QUFB", Buffer.byteLength("ok:QUFB", "base64"), at("a", 2))}\x1b8`,
		);
		const count = written.length;
		painter.place([at("a", 6)]);
		expect(written.length).toBe(count);
	});

	test("nothing is drawn while the launcher's own screen is up; hiding takes kitty's placements away", async () => {
		const { painter, written, setOnScreen } = painterFor("kitty");
		painter.receive("a", "QUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 2)]);
		painter.hide();
		expect(written.at(-1)).toBe(KITTY_DELETE_PLACEMENTS);
		setOnScreen(false);
		const count = written.length;
		painter.place([at("a", 2)]);
		expect(written.length).toBe(count);
	});

	test("no protocol: nothing is ever written", async () => {
		const { painter, written } = painterFor(undefined);
		painter.receive("a", "QUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 2)]);
		painter.hide();
		painter.reset();
		expect(written).toEqual([]);
	});

	test("a refused image is reported and never drawn; a check that ends after a reset is dropped", async () => {
		const problems: string[] = [];
		const refusals: string[] = [];
		const written: string[] = [];
		let release: (() => void) | undefined;
		const painter = new ImagePainter({
			protocol: () => "kitty",
			size: () => ({ columns: 80, rows: 24 }),
			onScreen: () => true,
			write: (data) => written.push(data),
			problem: (text) => problems.push(text),
			refused: (id, reason) => refusals.push(`${id}: ${reason}`),
			check: (base64) =>
				base64 === "slow"
					? new Promise((resolve) => {
							release = () => resolve({ base64: "x", width: 1, height: 1 });
						})
					: checkedPng(base64),
		});
		painter.receive("bomb", b64(bombPng(20000)));
		await waitUntil(() => problems.length > 0, "the refusal reported");
		expect(problems[0]).toContain("image bomb: the image is 20000×20000 pixels");
		// The UI hears it, and shows its placeholder instead.
		expect(refusals).toEqual(["bomb: the image is 20000×20000 pixels, over 4096×4096"]);
		painter.receive("slow", "slow");
		painter.place([at("slow", 1)]);
		painter.reset();
		release?.();
		await Bun.sleep(0);
		expect(painter.held).toEqual([]);
		expect(written.join("")).not.toContain("a=p");
	});
});

describe("ImagePainter after a screen clear", () => {
	test("kitty: an image is sent again with its next placement (the clear took the terminal's copy)", async () => {
		const { painter, written } = painterFor("kitty");
		painter.receive("a", "QUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 2)]);
		painter.place([at("a", 3)]);
		expect(written.at(-1)).not.toContain("a=t");
		painter.screenCleared();
		painter.place([at("a", 3)]);
		// Nothing to take away (the clear did), and the image goes again before its placement.
		expect(written.at(-1)).toBe(`\x1b7${kittyTransmit(1, "ok:QUFB")}${kittyPlace(1, at("a", 3))}\x1b8`);
	});
});

describe("ImagePainter's budget", () => {
	test("a UI that has images sent again and again gets no more than the budget a second; the rest waits", async () => {
		let now = 0;
		const written: string[] = [];
		const problems: string[] = [];
		const painter = new ImagePainter({
			protocol: () => "kitty",
			size: () => ({ columns: 80, rows: 24 }),
			onScreen: () => true,
			write: (data) => written.push(data),
			problem: (text) => problems.push(text),
			refused: () => {},
			check: async (base64) => ({ base64, width: 10, height: 10 }),
			charsPerSecond: 10,
			now: () => now,
		});
		painter.receive("a", "QUFBQUFB");
		await waitUntil(() => painter.held.includes("a"), "the image held");
		painter.place([at("a", 2)]);
		expect(written.join("")).toContain("a=t");
		painter.screenCleared();
		painter.place([at("a", 3)]);
		// Over the budget: not sent, not placed, said once.
		expect(written.join("").match(/a=t/g)).toHaveLength(1);
		expect(problems).toEqual(["image: more image data than the terminal takes in a second"]);
		now = 1000;
		painter.place([at("a", 3)]);
		expect(written.join("").match(/a=t/g)).toHaveLength(2);
		painter.reset();
	});
});
