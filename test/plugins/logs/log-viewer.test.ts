import { describe, expect, test } from "bun:test";
import type { LogLine } from "../../../src/plugins/logs/contract.ts";
import { LogViewer } from "../../../src/plugins/logs/tui-viewer.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";

const line = (seq: number, source: string, text: string, level: LogLine["level"] = "info"): LogLine => ({
	seq,
	time: 0,
	level,
	source,
	text,
});

function viewer(lines: LogLine[], source?: string) {
	let closed = false;
	const v = new LogViewer(new ThemeRef(Theme.ansi()), {
		lines: () => lines,
		...(source ? { source } : {}),
		close: () => {
			closed = true;
		},
	});
	const plain = () =>
		v
			.render(120)
			.join("\n")
			.replace(/\x1b\[[0-9;]*m/g, "");
	return { v, plain, closed: () => closed };
}

describe("the log viewer", () => {
	test("control characters in log text are made visible, never written", () => {
		const { v, plain } = viewer([line(1, "server", "title \x1b]0;pwned\x07 and \x9b31m bell\x07")]);
		const raw = v
			.render(120)
			.join("\n")
			.replace(/\x1b\[[0-9;]*m/g, "");
		expect(raw).not.toContain("\x1b]");
		expect(raw).not.toContain("\x07");
		expect(raw).not.toContain("\x9b");
		expect(plain()).toContain("title ␛]0;pwned␇ and \ufffd31m bell␇");
	});

	test("Tab cycles the sources, / searches, Esc clears the search and then closes", () => {
		const lines = [line(1, "server", "listening"), line(2, "session:a", "run ended: done"), line(3, "session:b", "x")];
		const { v, plain, closed } = viewer(lines);
		expect(plain()).toContain("Logs · all");
		expect(plain()).toContain("listening");
		v.handleInput("\t");
		expect(plain()).toContain("Logs · server");
		expect(plain()).not.toContain("run ended");
		v.handleInput("\t");
		expect(plain()).toContain("Logs · session:a");
		v.handleInput("\t");
		v.handleInput("\t");
		expect(plain()).toContain("Logs · all");
		v.handleInput("/");
		for (const c of "ENDED") v.handleInput(c);
		v.handleInput("\r");
		expect(plain()).toContain('"ENDED"');
		expect(plain()).toContain("run ended: done");
		expect(plain()).not.toContain("listening");
		v.handleInput("\x1b");
		expect(plain()).toContain("listening");
		expect(closed()).toBe(false);
		v.handleInput("\x1b");
		expect(closed()).toBe(true);
	});

	test("follows the tail; page keys scroll back and f follows again", () => {
		const lines = Array.from({ length: 100 }, (_, i) => line(i, "server", `line ${i}.`));
		const { v, plain } = viewer(lines, "server");
		expect(plain()).toContain("line 99.");
		expect(plain()).toContain("following");
		v.handleInput("\x1b[5~");
		expect(plain()).not.toContain("line 99.");
		expect(plain()).toContain("13 lines below");
		const before = plain();
		// A new line while scrolled up leaves the view where it is.
		lines.push(line(100, "server", "line 100."));
		expect(plain()).toContain("14 lines below");
		expect(plain().split("\n").slice(2, -2)).toEqual(before.split("\n").slice(2, -2));
		v.handleInput("\x1b[6~");
		expect(plain()).toContain("1 line below");
		v.handleInput("\x1b[6~");
		expect(plain()).toContain("following");
		v.handleInput("\x1b[H");
		expect(plain()).toContain("line 0.");
		v.handleInput("f");
		expect(plain()).toContain("line 100.");
	});
});
