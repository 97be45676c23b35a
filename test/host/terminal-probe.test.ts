import { describe, expect, test } from "bun:test";
import { createInputRouter } from "../../src/host/input-router.ts";
import { terminalAbilities, tmuxForwardsLinks } from "../../src/host/terminal-capabilities.ts";
import { schemeOfColorFgBg, TerminalProbe } from "../../src/host/terminal-probe.ts";
import type { TerminalColors } from "../../src/protocol/channel.ts";
import type { DisplaySettings } from "../../src/protocol/preferences.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";

/** A probe over a fake terminal, its writes, its colors as told, and its waits run by hand. */
function probeOf(env: Record<string, string> = {}, settings: DisplaySettings = {}) {
	const written: string[] = [];
	const told: TerminalColors[] = [];
	const waits: (() => void)[] = [];
	const probe = new TerminalProbe(new FakeTerminal() as never, env, () => settings);
	probe.start({ write: (data) => written.push(data), later: (run) => waits.push(run) }, (colors) => told.push(colors));
	const timeOut = () => {
		for (const run of waits.splice(0)) run();
	};
	return { probe, written, told, timeOut };
}

describe("terminal probe: light and dark", () => {
	test("it turns on the terminal's scheme reports and asks for the colors", () => {
		const { written } = probeOf();
		expect(written.join("")).toBe("\x1b[?2031h\x1b]10;?\x07\x1b]11;?\x07\x1b[c");
	});

	test("the answered background decides; a terminal that answers nothing is guessed from COLORFGBG", () => {
		const answered = probeOf({ COLORFGBG: "0;15" });
		expect(answered.probe.takeReply("\x1b]11;rgb:0000/0000/0000\x1b\\")).toBe(true);
		expect(answered.probe.takeReply("\x1b[?62;c")).toBe(true);
		expect(answered.told).toEqual([{ background: { r: 0, g: 0, b: 0 }, scheme: "light" }]);
		const silent = probeOf({ COLORFGBG: "15;default;0" });
		silent.timeOut();
		expect(silent.told).toEqual([{ scheme: "dark" }]);
		const none = probeOf({});
		none.timeOut();
		expect(none.told).toEqual([]);
	});

	test("COLORFGBG: the background's palette index, 7 and 9 to 15 light", () => {
		expect(schemeOfColorFgBg("15;0")).toBe("dark");
		expect(schemeOfColorFgBg("0;15")).toBe("light");
		expect(schemeOfColorFgBg("0;7")).toBe("light");
		expect(schemeOfColorFgBg("7;8")).toBe("dark");
		expect(schemeOfColorFgBg("12;default;11")).toBe("light");
		for (const bad of [undefined, "", "15;", "x;y", "0;16", "0;999"]) expect(schemeOfColorFgBg(bad)).toBeUndefined();
	});

	test("a scheme report is taken (never a key), asks the colors again, and the new answer is told", () => {
		const { probe, written, told, timeOut } = probeOf({ COLORFGBG: "15;0" });
		timeOut();
		expect(told).toEqual([{ scheme: "dark" }]);
		written.length = 0;
		expect(probe.takeReply("\x1b[?997;2n")).toBe(true);
		expect(written.join("")).toBe("\x1b]10;?\x07\x1b]11;?\x07\x1b[c");
		timeOut();
		expect(told.at(-1)).toEqual({ scheme: "light" });
		expect(probe.takeReply("\x1b[?997;1n")).toBe(true);
		expect(probe.takeReply("\x1b]11;rgb:1e1e/1e1e/2e2e\x07")).toBe(true);
		expect(probe.takeReply("\x1b[?62;c")).toBe(true);
		expect(told.at(-1)).toEqual({ background: { r: 30, g: 30, b: 46 }, scheme: "dark" });
		// The same report again changes nothing the UI is told.
		const before = told.length;
		probe.takeReply("\x1b[?997;1n");
		probe.takeReply("\x1b]11;rgb:1e1e/1e1e/2e2e\x07");
		timeOut();
		expect(told.length).toBe(before);
		// Other reports are not the probe's.
		expect(probe.takeReply("\x1b[?997;3n")).toBe(false);
		expect(probe.takeReply("a")).toBe(false);
	});

	test("the input router gives scheme reports to the probe, never to the UI", () => {
		const { probe } = probeOf();
		const forwarded: string[] = [];
		const route = createInputRouter({
			clock: { now: () => 0 } as never,
			takeReply: (data) => probe.takeReply(data),
			lending: () => false,
			screens: [],
			observe: () => {},
			privilegedKey: () => undefined,
			onKey: () => {},
			forward: (data) => forwarded.push(data),
			emergencyExit: () => {},
		});
		route("\x1b[?997;2n");
		route("x");
		expect(forwarded).toEqual(["x"]);
	});
});

describe("terminal capabilities: true color and hyperlinks", () => {
	test("detected by the terminal's name, as pi-tui does", () => {
		expect(terminalAbilities({ TERM: "xterm-256color" }, "linux", {})).toEqual({ trueColor: false, hyperlinks: false });
		expect(terminalAbilities({ COLORTERM: "truecolor" }, "linux", {})).toEqual({ trueColor: true, hyperlinks: false });
		expect(terminalAbilities({ KITTY_WINDOW_ID: "1" }, "linux", {})).toEqual({ trueColor: true, hyperlinks: true });
		expect(terminalAbilities({ TERM_PROGRAM: "vscode" }, "linux", {})).toEqual({ trueColor: true, hyperlinks: true });
		expect(terminalAbilities({ TMUX: "x", TERM_PROGRAM: "kitty" }, "linux", {})).toEqual({
			trueColor: false,
			hyperlinks: false,
		});
	});

	test("under tmux, links only when tmux said it forwards them (asked only inside tmux)", async () => {
		expect(terminalAbilities({ TMUX: "x" }, "linux", {}, true).hyperlinks).toBe(true);
		expect(terminalAbilities({ TERM: "screen-256color" }, "linux", {}, true).hyperlinks).toBe(false);
		expect(await tmuxForwardsLinks({})).toBe(false);
	});

	test("PI_TRUE_COLOR / PI_HYPERLINKS override it, and the settings override those ('auto' keeps it)", () => {
		const env = { TERM_PROGRAM: "kitty", PI_TRUE_COLOR: "0", PI_HYPERLINKS: "0" };
		expect(terminalAbilities(env, "linux", {})).toEqual({ trueColor: false, hyperlinks: false });
		const settings = { terminal: { trueColor: true, hyperlinks: true } } as DisplaySettings;
		expect(terminalAbilities(env, "linux", settings)).toEqual({ trueColor: true, hyperlinks: true });
		const auto = { terminal: { trueColor: "auto", hyperlinks: "auto" } } as DisplaySettings;
		expect(terminalAbilities({ COLORTERM: "24bit" }, "linux", auto)).toEqual({ trueColor: true, hyperlinks: false });
		const off = { terminal: { trueColor: false } } as DisplaySettings;
		expect(terminalAbilities({ COLORTERM: "truecolor" }, "linux", off).trueColor).toBe(false);
	});

	test("the probe tells the UI what the settings decide, and that they changed", () => {
		let settings: DisplaySettings = {};
		const probe = new TerminalProbe(new FakeTerminal() as never, { COLORTERM: "truecolor" }, () => settings);
		expect(probe.capabilities()).toMatchObject({ trueColor: true, hyperlinks: false });
		settings = { terminal: { trueColor: false, hyperlinks: true } } as DisplaySettings;
		expect(probe.changed()).toMatchObject({ trueColor: false, hyperlinks: true });
		expect(probe.changed()).toBeUndefined();
	});
});
