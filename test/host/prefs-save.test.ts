import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPrefsPatch, planPrefsSave, prefsDiff, validatePrefsPatch } from "../../src/host/prefs-save.ts";

let dir = "";
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("savePrefs", () => {
	test("refused before any screen: launcher ids, the editor command, unknown keys, invalid values", () => {
		expect(validatePrefsPatch({ keybindings: { "app.clipboard.pasteImage": ["enter"] } })).toBe(
			"app.clipboard.pasteImage is the launcher's; its keys are changed only in your own files",
		);
		expect(validatePrefsPatch({ keybindings: { "app.editor.external": null } })).toContain("launcher's");
		expect(validatePrefsPatch({ externalEditor: "sh -c evil" })).toBe('"externalEditor" cannot be changed from the UI');
		expect(validatePrefsPatch({ mouse: "off" })).toBe('"mouse" cannot be changed from the UI');
		expect(validatePrefsPatch({ settings: { shellPath: "/bin/sh" } })).toBe("shellPath is not a display setting");
		expect(validatePrefsPatch({ settings: { terminal: { nope: 1 } } })).toBe("terminal.nope is not a display setting");
		expect(validatePrefsPatch({ settings: { editorPaddingX: "2" } })).toBe("invalid value for editorPaddingX");
		expect(validatePrefsPatch({ keybindings: { "app.tools.expand": ["notakey"] } })).toBe(
			"invalid keys for app.tools.expand",
		);
		expect(validatePrefsPatch({ theme: "a/b/c" })).toBe("invalid theme setting");
		expect(validatePrefsPatch({ theme: "light/dark", settings: { markdown: { mermaid: "off" } } })).toBeUndefined();
		expect(validatePrefsPatch({ keybindings: { "app.tools.expand": null } })).toBeUndefined();
	});

	test("the patch: null removes, settings merge one level, everything else is kept; the diff names each leaf", () => {
		const before = {
			theme: "dark",
			mouse: "off",
			keybindings: { "app.tools.expand": ["alt+o"], "app.interrupt": ["ctrl+q"] },
			settings: { terminal: { showImages: false, clearOnShrink: true } },
		};
		const after = applyPrefsPatch(before, {
			theme: "light",
			keybindings: { "app.tools.expand": null },
			settings: { terminal: { showImages: true }, hideThinkingBlock: true },
		});
		expect(after).toEqual({
			theme: "light",
			mouse: "off",
			keybindings: { "app.interrupt": ["ctrl+q"] },
			settings: { terminal: { showImages: true, clearOnShrink: true }, hideThinkingBlock: true },
		});
		expect(before.theme).toBe("dark");
		expect(prefsDiff(before, after)).toEqual([
			'- keybindings.app.tools.expand: ["alt+o"]',
			"+ settings.hideThinkingBlock: true",
			"- settings.terminal.showImages: false",
			"+ settings.terminal.showImages: true",
			'- theme: "dark"',
			'+ theme: "light"',
		]);
	});

	test("the write is atomic and 0600, keeps unknown keys, and never replaces a file it cannot read", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-save-"));
		const p2Dir = join(dir, "p2-tui");
		const first = planPrefsSave(p2Dir, { theme: "light" });
		if (first.kind === "refused") throw new Error(first.error);
		expect(first.diff).toEqual(['+ theme: "light"']);
		first.write();
		const path = join(p2Dir, "prefs.json");
		expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ theme: "light" });
		expect(statSync(path).mode & 0o777).toBe(0o600);
		writeFileSync(path, JSON.stringify({ theme: "light", downloads: "~/dl" }));
		const second = planPrefsSave(p2Dir, { settings: { quietStartup: true } });
		if (second.kind === "refused") throw new Error(second.error);
		second.write();
		expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
			theme: "light",
			downloads: "~/dl",
			settings: { quietStartup: true },
		});
		expect(planPrefsSave(p2Dir, { theme: "light" })).toEqual({ kind: "refused", error: "nothing would change" });
		writeFileSync(path, "{ broken");
		expect(planPrefsSave(p2Dir, { theme: "dark" })).toEqual({
			kind: "refused",
			error: "prefs.json is not valid JSON; fix it by hand first",
		});
		expect(readFileSync(path, "utf8")).toBe("{ broken");
	});
});
