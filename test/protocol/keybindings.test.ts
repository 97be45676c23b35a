import { describe, expect, test } from "bun:test";
import { appKeybindings, isKeyId, readKeybindings, tuiKeybindings } from "../../src/protocol/keybindings.ts";

describe("pi's key table", () => {
	test("key ids: up to four distinct modifiers, then a letter, digit or named key", () => {
		for (const ok of ["a", "ctrl+c", "shift+ctrl+p", "ctrl+alt+]", "f1", "pageUp", "ctrl++", "alt+enter", "ctrl+-"]) {
			expect(isKeyId(ok)).toBe(true);
		}
		for (const bad of [
			"",
			"ctrl+",
			"Ctrl+C",
			"ctrl+ctrl+c",
			"hyper+a",
			"ctrl+ab",
			"meta+x",
			"ctrl+shift+alt+super+ctrl+a",
		]) {
			expect(isKeyId(bad)).toBe(false);
		}
	});

	test("platform defaults: Windows keys move follow-up, dequeue, undo and search as pi moves them", () => {
		const linux = { platform: "linux", windowsKeys: false } as const;
		const wsl = { platform: "linux", windowsKeys: true } as const;
		const windows = { platform: "win32", windowsKeys: true } as const;
		expect(appKeybindings(linux)["app.message.followUp"]?.defaultKeys).toBe("alt+enter");
		expect(appKeybindings(wsl)["app.message.followUp"]?.defaultKeys).toBe("ctrl+q");
		expect(appKeybindings(wsl)["app.message.dequeue"]?.defaultKeys).toBe("alt+q");
		expect(appKeybindings(windows)["app.suspend"]?.defaultKeys).toEqual([]);
		expect(appKeybindings(wsl)["app.suspend"]?.defaultKeys).toBe("ctrl+z");
		expect(tuiKeybindings(linux)["tui.editor.undo"]?.defaultKeys).toBe("ctrl+-");
		expect(tuiKeybindings(wsl)["tui.editor.undo"]?.defaultKeys).toBe("alt+z");
		expect(tuiKeybindings(windows)["tui.editor.undo"]?.defaultKeys).toBe("ctrl+z");
		expect(tuiKeybindings(windows)["tui.altScreen.search"]?.defaultKeys).toBe("ctrl+f");
	});

	test("keybindings.json: legacy names migrate (the new id wins), bad values are dropped and named", () => {
		const { bindings, problems } = readKeybindings(
			{
				$schema: "https://example/schema.json",
				expandTools: "ctrl+k",
				interrupt: "ctrl+q",
				"app.interrupt": ["escape", "ctrl+]"],
				"app.thinking.toggle": "notakey",
				"app.model.select": ["ctrl+l", 3],
				"p2.palette": ["f2", "f2"],
				"some.unknown": "ctrl+9",
				"not an id": "a",
			},
			"keybindings.json",
		);
		expect(bindings).toEqual({
			"app.tools.expand": ["ctrl+k"],
			"app.interrupt": ["escape", "ctrl+]"],
			"p2.palette": ["f2"],
			"some.unknown": ["ctrl+9"],
		});
		expect(problems).toEqual([
			"keybindings.json: invalid keys for app.thinking.toggle",
			"keybindings.json: invalid keys for app.model.select",
			"keybindings.json: ignored an entry whose name is not a keybinding id",
		]);
		expect(readKeybindings([], "prefs.json").problems).toEqual(["prefs.json: not an object of key bindings"]);
	});
});
