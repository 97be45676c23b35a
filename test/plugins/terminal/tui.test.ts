/**
 * The terminal panel in the guest: who may open it, and what the panel does with keys and its size (the keys
 * are the shell's, Esc and Ctrl+C included; Ctrl+] leaves; an ended shell waits for Enter).
 */
import { expect, test } from "bun:test";
import { setKittyProtocolActive, visibleWidth } from "@earendil-works/pi-tui";
import type { TerminalSize, TerminalState } from "../../../src/plugins/terminal/contract.ts";
import { terminalPlugin } from "../../../src/plugins/terminal/tui.ts";
import { Emulator, emulatorClass } from "../../../src/plugins/terminal/tui-emulator.ts";
import { TerminalPanel } from "../../../src/plugins/terminal/tui-panel.ts";
import { ObjectClient } from "../../../src/protocol/object-client.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import { testGuest } from "../../support/guest-context.ts";
import { CONTROL, NOT_SGR, withoutSgr } from "./hostile-output.ts";

const SESSION = "0a0a0a0a-0000-4000-8000-000000000000";

test("a view-only guest is told who may use the terminal, and opens nothing", async () => {
	const { ctx, opened, notices } = testGuest({ identity: { role: "view", id: "g1", name: "Guest", session: SESSION } });
	ctx.session.open(SESSION);
	const dispose = terminalPlugin.register(ctx);
	const command = ctx.commands.get("p2.terminal")!;
	expect(command.requires).toEqual({ role: "participant", to: "use the session's terminal" });
	await ctx.commands.invoke(command, "").catch((error) => ctx.ui.fail(error));
	expect(opened).toEqual([]);
	expect(notices.map((n) => n.text)).toEqual([
		"Only the owner and guests with full access can use the session's terminal.",
	]);
	dispose();
});

test("the terminal object is opened at the first /terminal, not before", async () => {
	const { ctx, opened, layout } = testGuest({ identity: { role: "owner", id: "o1", name: "Owner", session: null } });
	ctx.session.open(SESSION);
	const dispose = terminalPlugin.register(ctx);
	expect(opened).toEqual([]);
	await ctx.commands.invoke(ctx.commands.get("p2.terminal")!, "");
	expect(opened).toEqual(["terminal"]);
	expect(layout.selector?.id).toBe("terminal");
	dispose();
});

test("a refusal from the server is said in the panel", async () => {
	const client = new ObjectClient();
	const sent: string[] = [];
	client.attach((text) => sent.push(text));
	const { ctx, layout } = testGuest({
		identity: { role: "full", id: "g1", name: "Guest", session: SESSION },
		open: (contract, input) => client.open(contract, input),
	});
	ctx.session.open(SESSION);
	const dispose = terminalPlugin.register(ctx);
	await ctx.commands.invoke(ctx.commands.get("p2.terminal")!, "");
	const h = (JSON.parse(sent[0]!) as { h: number }).h;
	client.receive(JSON.stringify({ t: "refused", h, code: "forbidden", message: "not for you now" }));
	expect(layout.selector?.component.render(80).join("\n")).toContain("not for you now");
	dispose();
});

function state(patch: Partial<TerminalState>): TerminalState {
	return {
		status: "running",
		shell: 1,
		cols: 80,
		rows: 20,
		output: "",
		dropped: 0,
		exitCode: null,
		error: null,
		...patch,
	};
}

function panelWith(initial: TerminalState) {
	let current = initial;
	const typed: string[] = [];
	const calls: { start: TerminalSize[]; resize: TerminalSize[]; left: number } = { start: [], resize: [], left: 0 };
	const emulator = new Emulator(emulatorClass(), () => {});
	emulator.follow(current);
	const panel = new TerminalPanel(new ThemeRef(Theme.ansi()), emulator, {
		state: () => current,
		unavailable: () => undefined,
		height: () => 24,
		type: (data) => typed.push(data),
		start: (size) => calls.start.push(size),
		resize: (size) => calls.resize.push(size),
		leave: () => calls.left++,
		requestRender: () => {},
	});
	return {
		panel,
		typed,
		calls,
		set(next: TerminalState) {
			current = next;
			emulator.follow(next);
		},
	};
}

test("every key is the shell's, Esc and Ctrl+C included; Ctrl+] leaves and is never sent", () => {
	const { panel, typed, calls } = panelWith(state({}));
	for (const key of ["e", "c", "h", "o", "\r", "\x1b", "\x03", "\x1b[A"]) panel.handleInput(key);
	setKittyProtocolActive(true);
	try {
		panel.handleInput("\x1b[99;5u");
		panel.handleInput("\x1b[93;5u");
	} finally {
		setKittyProtocolActive(false);
	}
	panel.handleInput("\x1d");
	expect(typed).toEqual(["e", "c", "h", "o", "\r", "\x1b", "\x03", "\x1b[A", "\x03"]);
	expect(calls.left).toBe(2);
});

test("the panel's size is the shell's: a new width asks for a resize, lines never pass the width", () => {
	const { panel, calls } = panelWith(state({ cols: 80, rows: 20 }));
	const lines = panel.render(70);
	expect(calls.resize).toEqual([{ cols: 70, rows: 20 }]);
	expect(lines).toHaveLength(24);
	for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(70);
	panel.render(70);
	expect(calls.resize).toHaveLength(1);
});

test("an ended shell says how it ended; Enter starts a new one, Esc leaves", () => {
	const { panel, typed, calls, set } = panelWith(state({}));
	set(state({ status: "exited", exitCode: 3 }));
	expect(panel.render(80).join("\n")).toContain("the shell exited with code 3");
	panel.handleInput("x");
	panel.handleInput("\r");
	panel.handleInput("\x1b");
	expect(typed).toEqual([]);
	expect(calls.start).toEqual([{ cols: 80, rows: 20 }]);
	expect(calls.left).toBe(1);
});

test("what the server says of the shell (its error) is drawn as text, whatever it holds", () => {
	const { panel, set } = panelWith(state({}));
	set(state({ status: "failed", error: "\x1b]52;c;c3RvbGVu\x07bad\x1b[2J\x9b31m\x1bP+q\x1b\\" }));
	const lines = panel.render(80);
	expect(lines.join("\n")).toContain("the shell could not start");
	for (const line of lines) {
		expect(line).not.toMatch(NOT_SGR);
		expect(withoutSgr(line)).not.toMatch(CONTROL);
	}
});
