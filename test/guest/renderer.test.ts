import { describe, expect, test } from "bun:test";
import { type Component, Text } from "@earendil-works/pi-tui";
import { Renderer } from "../../src/guest/renderer.ts";
import { parseSnapshot, type ReloadSnapshot, serializeSnapshot } from "../../src/guest/snapshot.ts";
import type { TuiMode } from "../../src/protocol/preferences.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";

/** A screen of `count` numbered lines (the regular renderer shows them at their natural height). */
function linesScreen(count: number, last = "the end"): Component {
	const text = new Text([...Array.from({ length: count }, (_, i) => `line ${i + 1}`), last].join("\n"), 0, 0);
	return text;
}

function renderer(terminal: FakeTerminal, mode: TuiMode, root: () => Component): Renderer {
	return new Renderer({ terminal, mode, fullscreen: () => ({ mouse: false }), root: () => root() });
}

/** The lines a frame wrote (pi-tui clears each line it writes with `CSI 2K`), without the controls around them. */
function written(output: string): string[] {
	return output
		.split("\x1b[2K")
		.slice(1)
		.map((part) => part.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\]8;;\x07|\r|\n/g, "").trimEnd());
}

describe("the renderer (pi's tuiMode)", () => {
	test("a successor resumed from the scrollback writes nothing until it is released, then only what differs", () => {
		const first = new FakeTerminal(40, 10);
		let content = linesScreen(30);
		const old = renderer(first, "regular", () => content);
		old.mount();
		old.start();
		old.tui.renderNow();
		expect(first.output).toContain("line 1");
		old.freeze();
		const scrollback = old.scrollback();
		expect(scrollback?.lines.length).toBe(31);

		// The successor's own screen has nothing yet (its session has not arrived): it is not drawn while held.
		const next = new FakeTerminal(40, 10);
		content = linesScreen(0, "");
		const successor = renderer(next, "regular", () => content);
		successor.mount();
		successor.resume(scrollback!);
		successor.start();
		successor.tui.renderNow();
		expect(written(next.output)).toEqual([]);
		expect(next.output).not.toContain("\x1b[3J");

		// Released with the same lines but the last: only that line is written again, nothing cleared.
		content = linesScreen(30, "the end, again");
		successor.release();
		successor.tui.renderNow();
		expect(written(next.output)).toEqual(["the end, again"]);
		expect(next.output).not.toContain("\x1b[3J");
		expect(next.output).not.toContain("\x1b[2J");
	});

	test("without the scrollback a successor would write every line again below it", () => {
		const next = new FakeTerminal(40, 10);
		const successor = renderer(next, "regular", () => linesScreen(30));
		successor.mount();
		successor.start();
		successor.tui.renderNow();
		expect(next.output).toContain("line 1 ");
		expect(next.output).toContain("the end ");
	});

	test("a switch keeps the focus and the input listeners, and `tui` is always the renderer on", () => {
		const terminal = new FakeTerminal(40, 10);
		const editor = Object.assign(linesScreen(2), {
			handleInput(data: string) {
				typed.push(data);
			},
		});
		const typed: string[] = [];
		const heard: string[] = [];
		const r = renderer(terminal, "fullscreen", () => editor);
		r.mount();
		r.addInputListener((data) => {
			heard.push(data);
			return undefined;
		});
		r.tui.setFocus(editor);
		r.start();
		expect(r.tui.mode).toBe("fullscreen");
		expect(terminal.output).toContain("\x1b[?1049h");
		expect(r.fullscreen).toBeDefined();

		expect(r.switchTo("regular")).toBe(true);
		expect(r.tui.mode).toBe("regular");
		expect(r.fullscreen).toBeUndefined();
		expect(terminal.output).toContain("\x1b[?1049l");
		terminal.onInput?.("a");
		expect(heard).toEqual(["a"]);
		expect(typed).toEqual(["a"]);
		r.tui.renderNow();
		expect(terminal.output.slice(terminal.output.lastIndexOf("\x1b[?1049l"))).toContain("the end");

		// Back to fullscreen; not while pi-tui's own overlay (its search) is open, as pi refuses then.
		expect(r.switchTo("fullscreen")).toBe(true);
		// Regular again: it draws on from the lines it left on the normal screen, not all of them below.
		expect(r.switchTo("regular")).toBe(true);
		const back = terminal.mark();
		r.tui.renderNow();
		expect(terminal.output.slice(back)).not.toContain("line 1");
		expect(r.switchTo("fullscreen")).toBe(true);
		r.tui.showOverlay(new Text("search", 0, 0));
		expect(r.switchTo("regular")).toBe(false);
		expect(r.tui.mode).toBe("fullscreen");
	});
});

describe("the reload snapshot's screen", () => {
	const snapshot = (lines: string[]): ReloadSnapshot => ({
		version: 2,
		draft: "",
		screen: {
			mode: "regular",
			scrollback: {
				lines,
				width: 80,
				height: 24,
				cursorRow: lines.length - 1,
				hardwareCursorRow: lines.length - 1,
				maxLinesRendered: lines.length,
				viewportTop: Math.max(0, lines.length - 24),
			},
		},
	});

	test("the mode and the scrollback travel to the successor", () => {
		const text = serializeSnapshot(snapshot(["a", "b"]));
		expect(parseSnapshot(text)?.screen).toEqual(snapshot(["a", "b"]).screen!);
	});

	test("over the launcher's limit, the scrollback's lines are left behind, the mode kept", () => {
		const big = Array.from({ length: 20_000 }, (_, i) => `${"x".repeat(60)} ${i}`);
		const text = serializeSnapshot(snapshot(big));
		expect(text.length).toBeLessThan(1024 * 1024);
		expect(parseSnapshot(text)?.screen).toEqual({ mode: "regular" });
	});
});
