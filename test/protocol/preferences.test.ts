import { describe, expect, test } from "bun:test";
import { readDisplaySettings } from "../../src/protocol/preferences.ts";

describe("display settings", () => {
	test("only pi's display keys pass, each checked alone; a bad value costs only that setting", () => {
		const { settings, problems } = readDisplaySettings(
			{
				theme: "light",
				defaultModel: "x",
				externalEditor: "vim",
				editorPaddingX: 2,
				hideThinkingBlock: "yes",
				quietStartup: "header",
				outputPad: 2,
				terminal: { showImages: false, imageWidthCells: "wide", clearOnShrink: true, unknownLeaf: 1 },
				markdown: { codeBlockIndent: "    ", mermaid: "always" },
			},
			"settings.json",
		);
		expect(settings).toEqual({
			editorPaddingX: 2,
			quietStartup: "header",
			terminal: { showImages: false, clearOnShrink: true },
			markdown: { codeBlockIndent: "    " },
		});
		expect(problems).toEqual([
			"settings.json: invalid outputPad",
			"settings.json: invalid hideThinkingBlock",
			"settings.json: invalid terminal.imageWidthCells",
			"settings.json: invalid markdown.mermaid",
		]);
		expect(readDisplaySettings("x", "settings.json").problems).toEqual(["settings.json: not a settings object"]);
	});
});

describe("the launcher's reader of the settings' types", () => {
	test("agrees with arktype on every display setting, for values of every kind", async () => {
		const { type } = await import("arktype");
		const { SETTING_PATHS, checkSetting } = await import("../../src/protocol/preferences.ts");
		const values: unknown[] = [
			true,
			false,
			0,
			1,
			2,
			-3,
			1.5,
			Number.NaN,
			Number.POSITIVE_INFINITY,
			"",
			"auto",
			"header",
			"tree",
			"fork",
			"none",
			"transcript",
			"resume-hint",
			"always",
			"hidden",
			"kitty",
			"iterm2",
			"off",
			"final",
			"streaming",
			"x".repeat(16),
			"x".repeat(17),
			"0",
			null,
			undefined,
			[],
			{},
		];
		let compared = 0;
		for (const [path, definition] of Object.entries(SETTING_PATHS)) {
			const schema = type(definition as "string");
			for (const value of values) {
				expect([path, value, checkSetting(path, value)]).toEqual([
					path,
					value,
					!(schema(value) instanceof type.errors),
				]);
				compared++;
			}
		}
		expect(compared).toBeGreaterThan(500);
		expect(checkSetting("toString", 1)).toBe(false);
	});
});
