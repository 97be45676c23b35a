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
