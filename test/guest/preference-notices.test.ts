import { describe, expect, test } from "bun:test";
import { describePreferenceProblem, PreferenceNotices } from "../../src/guest/preference-notices.ts";

describe("warnings about the person's files, as pi gives them at start", () => {
	test("each problem in pi's words, naming the file and its directory without a local path", () => {
		expect(describePreferenceProblem("settings.json is not valid JSON")).toBe(
			"Warning: Invalid settings file settings.json in pi's agent directory: not valid JSON",
		);
		expect(describePreferenceProblem("settings.json: invalid hideThinkingBlock")).toBe(
			"Warning: Invalid settings file settings.json in pi's agent directory: invalid hideThinkingBlock",
		);
		expect(describePreferenceProblem("keybindings.json: invalid keys for app.interrupt")).toBe(
			"Warning: Invalid keybindings file keybindings.json in pi's agent directory: invalid keys for app.interrupt",
		);
		expect(describePreferenceProblem("prefs.json: not an object")).toBe(
			"Warning: Invalid settings file prefs.json in p2's preferences directory: not an object",
		);
		expect(describePreferenceProblem("themes/bad.json is not valid JSON")).toBe(
			"[Theme conflicts] themes/bad.json in pi's agent directory: not valid JSON",
		);
		expect(describePreferenceProblem('theme themes/odd.json: colors.accent: must be a color (was "x")')).toBe(
			`[Theme conflicts] themes/odd.json in pi's agent directory: colors.accent: must be a color (was "x")`,
		);
		expect(describePreferenceProblem("themes: dark is a built-in theme's name; the file is ignored")).toBe(
			"[Theme conflicts] dark is a built-in theme's name; the file is ignored",
		);
		expect(describePreferenceProblem("server: tui.json (/srv/p2/tui.json): is empty")).toBe(
			"Warning: tui.json (/srv/p2/tui.json): is empty",
		);
	});

	test("said once while it lasts, again when it comes back; a reloaded UI does not repeat the start's", () => {
		const said: string[] = [];
		const notices = new PreferenceNotices((text, tone) => said.push(`${tone}: ${text}`));
		notices.update("local", ["settings.json is not valid JSON"]);
		notices.update("server", []);
		notices.update("local", ["settings.json is not valid JSON", "keybindings.json: invalid keys for app.interrupt"]);
		notices.update("server", ["tui.json (/d/tui.json): is empty"]);
		notices.update("local", []);
		notices.update("local", ["settings.json is not valid JSON"]);
		expect(said).toEqual([
			"warning: Warning: Invalid settings file settings.json in pi's agent directory: not valid JSON",
			"warning: Warning: Invalid keybindings file keybindings.json in pi's agent directory: invalid keys for app.interrupt",
			"warning: Warning: tui.json (/d/tui.json): is empty",
			"warning: Warning: Invalid settings file settings.json in pi's agent directory: not valid JSON",
		]);

		const reloaded: string[] = [];
		const quiet = new PreferenceNotices((text) => reloaded.push(text), { quiet: true });
		quiet.update("local", ["settings.json is not valid JSON"]);
		quiet.update("server", ["tui.json (/d/tui.json): is empty"]);
		expect(reloaded).toEqual([]);
		quiet.update("local", ["settings.json is not valid JSON", "prefs.json: not an object"]);
		expect(reloaded).toEqual([
			"Warning: Invalid settings file prefs.json in p2's preferences directory: not an object",
		]);
	});
});
