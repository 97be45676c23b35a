import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectivePreferences } from "../../src/guest/preferences.ts";
import { readTuiDefaults } from "../../src/plugins/tui-defaults/server.ts";
import type { Preferences } from "../../src/protocol/preferences.ts";

let dir = "";
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

const local = (over: Partial<Preferences>): Preferences => ({
	keybindings: {},
	settings: {},
	themes: [],
	problems: [],
	saved: { keybindings: {}, settings: {} },
	...over,
});

describe("the server's UI defaults", () => {
	test("tui.json in pi's shapes; the launcher's ids never come from the server", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-tui-defaults-"));
		expect(readTuiDefaults(dir)).toEqual({ keybindings: {}, settings: {}, problems: [] });
		writeFileSync(
			join(dir, "tui.json"),
			JSON.stringify({
				keybindings: { "app.tools.expand": "f6", "app.clipboard.pasteImage": "enter", "app.editor.external": "ctrl+o" },
				theme: "dark",
				settings: { editorPaddingX: 1, terminal: { clearOnShrink: true }, externalEditor: "evil" },
			}),
		);
		expect(readTuiDefaults(dir)).toEqual({
			keybindings: { "app.tools.expand": ["f6"] },
			theme: "dark",
			settings: { editorPaddingX: 1, terminal: { clearOnShrink: true } },
			problems: [
				"tui.json: app.clipboard.pasteImage is the launcher's; ignored",
				"tui.json: app.editor.external is the launcher's; ignored",
			],
		});
		writeFileSync(join(dir, "tui.json"), "{ nope");
		expect(readTuiDefaults(dir).problems).toEqual(['tui.json: not valid JSON at line 1, column 3 (unexpected "n")']);
	});

	test("what is wrong with tui.json names the file by the label it is given (its path, for owners) and where", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-tui-defaults-"));
		const path = join(dir, "tui.json");
		const owners = `tui.json (${path})`;
		writeFileSync(path, '{\n  "theme": "dark",\n  "settings": {"editorPaddingX": 1\n');
		expect(readTuiDefaults(dir, owners).problems).toEqual([
			`${owners}: not valid JSON at line 4, column 1 (unexpected end of file)`,
		]);
		writeFileSync(path, "\n");
		expect(readTuiDefaults(dir, "the server's tui.json").problems).toEqual(["the server's tui.json: is empty"]);
		writeFileSync(path, "[1]");
		expect(readTuiDefaults(dir, owners).problems).toEqual([`${owners}: the file must be an object`]);
		writeFileSync(path, JSON.stringify({ theme: 7, keybindings: { "app.tools.expand": 5 } }));
		expect(readTuiDefaults(dir, owners).problems).toEqual([
			`${owners}: invalid keys for app.tools.expand`,
			`${owners}: invalid theme`,
		]);
		// A long path never makes the state break its contract (300 characters a problem).
		const long = `tui.json (${"/very-long-directory".repeat(20)}/tui.json)`;
		const [clipped] = readTuiDefaults(dir, long).problems;
		expect(clipped?.length).toBe(300);
		expect(clipped?.endsWith("…")).toBe(true);
	});

	test("precedence: built-in < server defaults < the person's files; a server's launcher ids are dropped again", () => {
		const effective = effectivePreferences(
			local({
				keybindings: { "app.interrupt": ["ctrl+q"] },
				settings: { terminal: { showImages: false } },
				problems: ["settings.json: invalid outputPad"],
			}),
			{
				keybindings: { "app.interrupt": ["f2"], "app.tools.expand": ["f6"], "app.message.copy": ["enter"] },
				theme: "dark",
				settings: { editorPaddingX: 1, terminal: { clearOnShrink: true, showImages: true } },
				problems: ["tui.json: invalid theme"],
			},
		);
		expect(effective).toEqual({
			keybindings: { "app.interrupt": ["ctrl+q"], "app.tools.expand": ["f6"] },
			theme: "dark",
			settings: { editorPaddingX: 1, terminal: { clearOnShrink: true, showImages: false } },
			problems: ["settings.json: invalid outputPad", "server: tui.json: invalid theme"],
		});
		expect(
			effectivePreferences(local({ theme: "light" }), { keybindings: {}, theme: "dark", settings: {}, problems: [] })
				.theme,
		).toBe("light");
	});
});
