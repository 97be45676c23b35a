import { describe, expect, test } from "bun:test";
import { KeybindingsSelector } from "../../src/guest/keybindings-selector.ts";
import { SettingsSelector } from "../../src/guest/settings-selector.ts";
import { themeFor } from "../../src/guest/theme-setting.ts";
import type { PrefsPatch } from "../../src/protocol/preferences.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";

const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "");
const UP = "\x1b[A";
const DOWN = "\x1b[B";
const ESC = "\x1b";
const facts = { trueColor: true, colors: { background: { r: 20, g: 20, b: 20 } } };
const none = { themes: new Map(), problems: [] };

function settings(current: { settings?: object; theme?: string; images?: boolean } = {}) {
	const live = new ThemeRef(Theme.ansi());
	const previews: string[] = [];
	let closed: PrefsPatch | undefined | "open" = "open";
	const selector = new SettingsSelector({
		theme: live,
		settings: current.settings ?? {},
		themeSetting: current.theme ?? "system",
		themeNames: ["system", "dark", "light"],
		light: false,
		...(current.images ? { images: true } : {}),
		previewTheme: (setting) => {
			previews.push(setting);
			return themeFor(setting, facts, none).theme;
		},
		onClose: (patch) => {
			closed = patch;
		},
	});
	const screen = () => plain(selector.render(100).join("\n"));
	return { selector, live, previews, closed: () => closed, screen };
}

describe("/settings", () => {
	test("pi's image rows show only where the launcher draws images; the width is one of pi's", () => {
		expect(settings().screen()).not.toContain("Show images");
		const s = settings({ images: true });
		expect(s.screen()).toMatch(/Show images\s+true/);
		expect(s.screen()).toMatch(/Image width\s+60/);
		s.selector.handleInput(DOWN);
		s.selector.handleInput("\r"); // 60 → 80
		s.selector.handleInput(ESC);
		expect(s.closed()).toEqual({ settings: { terminal: { imageWidthCells: 80 } } });
	});

	test("pi's rows and values; changes become one patch when it closes, only what differs", () => {
		const s = settings({ settings: { editorPaddingX: 2 } });
		expect(s.screen()).toContain("Editor padding");
		expect(s.screen()).toMatch(/Editor padding\s+2/);
		expect(s.screen()).toMatch(/Skill commands\s+true/);
		s.selector.handleInput(DOWN);
		s.selector.handleInput(DOWN);
		s.selector.handleInput("\r"); // 2 → 3
		s.selector.handleInput(DOWN);
		s.selector.handleInput(DOWN);
		s.selector.handleInput(DOWN);
		s.selector.handleInput(DOWN); // Hide thinking
		s.selector.handleInput("\r"); // false → true
		s.selector.handleInput("\r"); // true → false: back to what is in effect
		s.selector.handleInput(UP);
		s.selector.handleInput(UP);
		s.selector.handleInput("\r"); // Clear on shrink: false → true
		expect(s.closed()).toBe("open");
		s.selector.handleInput(ESC);
		expect(s.closed()).toEqual({ settings: { editorPaddingX: 3, terminal: { clearOnShrink: true } } });
	});

	test("nothing changed: no patch at all", () => {
		const s = settings();
		s.selector.handleInput(ESC);
		expect(s.closed()).toBeUndefined();
	});

	test("the theme submenu previews on its own ThemeRef; the live theme stays until the save", () => {
		const s = settings({ theme: "light" });
		const live = s.live.current;
		s.selector.handleInput(UP); // Theme (the list wraps)
		s.selector.handleInput("\r");
		expect(s.screen()).toContain("Select a theme, or choose automatic to follow terminal appearance.");
		expect(s.screen()).toContain("✓ light");
		expect(s.screen()).toContain("Preview");
		s.selector.handleInput(UP); // dark
		expect(s.previews.at(-1)).toBe("dark");
		expect(s.live.current).toBe(live);
		s.selector.handleInput("\r");
		expect(s.screen()).toMatch(/Theme\s+dark/);
		s.selector.handleInput(ESC);
		expect(s.closed()).toEqual({ theme: "dark" });
	});

	test("automatic: a light/dark pair, saved as pi writes it", () => {
		const s = settings({ theme: "dark" });
		s.selector.handleInput(UP);
		s.selector.handleInput("\r");
		s.selector.handleInput(UP); // automatic (from dark, one up)
		s.selector.handleInput("\r");
		expect(s.screen()).toContain("Automatic Theme");
		s.selector.handleInput("\r"); // Light theme: dark → light
		s.selector.handleInput(DOWN);
		s.selector.handleInput(DOWN); // Apply
		s.selector.handleInput("\r");
		s.selector.handleInput(ESC);
		expect(s.closed()).toEqual({ theme: "light/dark" });
	});
});

describe("/keybindings", () => {
	function keys() {
		const saved: PrefsPatch[] = [];
		const selector = new KeybindingsSelector({
			theme: new ThemeRef(Theme.ansi()),
			rows: [
				{ id: "app.tools.expand", title: "Toggle tool output expansion", keys: "Ctrl+O" },
				{ id: "app.editor.external", title: "Open external editor", keys: "Ctrl+G" },
			],
			save: (patch) => saved.push(patch),
			close() {},
		});
		return { selector, saved, screen: () => plain(selector.render(100).join("\n")) };
	}

	test("Enter captures the next key, Backspace unbinds, Delete restores the default", () => {
		const k = keys();
		k.selector.handleInput("\r");
		expect(k.screen()).toContain("Press the new key for Toggle tool output expansion");
		k.selector.handleInput("\x1b[15~");
		k.selector.handleInput("\x7f");
		k.selector.handleInput("\x1b[3~");
		expect(k.saved).toEqual([
			{ keybindings: { "app.tools.expand": ["f5"] } },
			{ keybindings: { "app.tools.expand": [] } },
			{ keybindings: { "app.tools.expand": null } },
		]);
		k.selector.handleInput("\r");
		k.selector.handleInput(ESC);
		expect(k.saved.length).toBe(3);
	});

	test("the launcher's ids are listed and not editable", () => {
		const k = keys();
		k.selector.handleInput(DOWN);
		k.selector.handleInput("\r");
		k.selector.handleInput("\x7f");
		expect(k.saved).toEqual([]);
		expect(k.screen()).toContain("the launcher's key");
		expect(k.screen()).toContain("Ctrl+G · launcher");
	});
});
