import { describe, expect, test } from "bun:test";
import { Appearance } from "../../src/guest/appearance.ts";
import type { DisplaySettings, Preferences } from "../../src/protocol/preferences.ts";
import { TEST_START } from "../support/start-data.ts";

function preferences(settings: DisplaySettings): Preferences {
	return { keybindings: {}, settings, themes: [], problems: [], saved: { keybindings: {}, settings: {} } };
}

describe("settings a key changed in this run (pi's Ctrl+T)", () => {
	test("are in effect at once, and stay until a file changes that setting", () => {
		const appearance = new Appearance({ ...TEST_START, preferences: preferences({ editorPaddingX: 1 }) }, () => {});
		let changes = 0;
		appearance.onChange(() => changes++);
		appearance.setForRun({ hideThinkingBlock: true, markdown: { mermaid: "off" } });
		expect(changes).toBe(1);
		expect(appearance.effective().settings).toEqual({
			editorPaddingX: 1,
			hideThinkingBlock: true,
			markdown: { mermaid: "off" },
		});
		// Another file change keeps them.
		appearance.setPreferences(preferences({ editorPaddingX: 2 }));
		expect(appearance.effective().settings.hideThinkingBlock).toBe(true);
		expect(appearance.effective().settings.markdown?.mermaid).toBe("off");
		// A file that sets one of them has the last word on it.
		appearance.setPreferences(preferences({ editorPaddingX: 2, hideThinkingBlock: false }));
		expect(appearance.effective().settings.hideThinkingBlock).toBe(false);
		expect(appearance.effective().settings.markdown?.mermaid).toBe("off");
	});
});

describe("preferences arriving again unchanged", () => {
	test("rebuild nothing: the server's defaults at start, a file saved as it was; a real change still does", () => {
		const appearance = new Appearance({ ...TEST_START, preferences: preferences({ editorPaddingX: 1 }) }, () => {});
		let changes = 0;
		appearance.onChange(() => changes++);
		// A server without defaults of its own: the same effective preferences.
		appearance.setServerDefaults({ settings: {}, keybindings: {}, problems: [] });
		appearance.setPreferences(preferences({ editorPaddingX: 1 }));
		expect(changes).toBe(0);
		appearance.setServerDefaults({ settings: { hideThinkingBlock: true }, keybindings: {}, problems: [] });
		expect(changes).toBe(1);
		expect(appearance.effective().settings.hideThinkingBlock).toBe(true);
		appearance.setPreferences(preferences({ editorPaddingX: 2 }));
		expect(changes).toBe(2);
		appearance.setPreferences({ ...preferences({ editorPaddingX: 2 }), keybindings: { "app.exit": ["ctrl+q"] } });
		expect(changes).toBe(3);
	});
});
