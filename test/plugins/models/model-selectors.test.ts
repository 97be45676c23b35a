import { describe, expect, test } from "bun:test";
import { setKeybindings } from "@earendil-works/pi-tui";
import { buildKeymap } from "../../../src/guest/keymap.ts";
import type { ModelInfo } from "../../../src/plugins/models/contract.ts";
import { ModelSelector } from "../../../src/plugins/models/tui/model-selector.ts";
import { ScopedModelsSelector } from "../../../src/plugins/models/tui/scoped-models-selector.ts";
import { ThinkingSelector } from "../../../src/plugins/models/tui/thinking-selector.ts";
import { modelsPlugin } from "../../../src/plugins/models/tui.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import { testGuest } from "../../support/guest-context.ts";
import { TEST_START } from "../../support/start-data.ts";

const plain = (lines: string[]) => lines.join("\n").replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "");
const keymap = buildKeymap({ platform: "linux", windowsKeys: false }, [], {});
setKeybindings(keymap.manager);
const keys = (id: string) => keymap.keys(id);
const theme = new ThemeRef(Theme.ansi());
const UP = "\x1b[A";
const DOWN = "\x1b[B";

const info = (provider: string, id: string, name = id, reasoning = true): ModelInfo => ({
	provider,
	id,
	name,
	contextWindow: 1000,
	maxTokens: 100,
	reasoning,
	thinkingLevels: reasoning ? ["off", "low", "high"] : ["off"],
	input: ["text"],
});
const MODELS = [info("zeta", "z-model"), info("alpha", "a-model", "Alpha Model"), info("alpha", "b-model")];

describe("the model selector", () => {
	test("pi's order and badges: current first with ✓, then the default, then by provider", () => {
		const picked: string[] = [];
		const selector = new ModelSelector({
			theme,
			models: MODELS,
			current: { provider: "alpha", id: "b-model" },
			default: { provider: "zeta", id: "z-model" },
			scoped: [],
			keys,
			onSelect: (m) => picked.push(`use ${m.id}`),
			onSetDefault: (m) => picked.push(`default ${m.id}`),
			onCancel: () => picked.push("cancel"),
		});
		const screen = plain(selector.render(100));
		expect(screen).toContain("Only showing models from configured providers. Use /login to add providers.");
		const rows = screen.split("\n").filter((l) => l.includes("["));
		expect(rows).toEqual(["→ ✓ b-model [alpha]", "    z-model [zeta] · default", "    a-model (Alpha Model) [alpha]"]);
		expect(screen).toContain("Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel");
		selector.handleInput(DOWN);
		selector.handleInput("\x13");
		for (const c of "a-mod") selector.handleInput(c);
		expect(plain(selector.render(100))).toContain("Model Name: Alpha Model");
		selector.handleInput("\r");
		selector.handleInput("\x1b");
		expect(picked).toEqual(["default z-model", "use a-model", "cancel"]);
	});

	test("typing default finds the default; with scoped models Tab switches all/scoped", () => {
		const picked: string[] = [];
		const selector = new ModelSelector({
			theme,
			models: MODELS,
			current: null,
			default: { provider: "alpha", id: "b-model" },
			scoped: [
				{ provider: "zeta", id: "z-model" },
				{ provider: "alpha", id: "a-model" },
			],
			keys,
			onSelect: (m) => picked.push(m.id),
			onSetDefault() {},
			onCancel() {},
		});
		let screen = plain(selector.render(100));
		expect(screen).toContain("Scope: all | scoped");
		expect(screen).toContain("tab scope (all/scoped)");
		expect(screen.split("\n").filter((l) => l.includes("[")).length).toBe(2);
		selector.handleInput("\t");
		screen = plain(selector.render(100));
		expect(screen.split("\n").filter((l) => l.includes("[")).length).toBe(3);
		for (const c of "def") selector.handleInput(c);
		selector.handleInput("\r");
		expect(picked).toEqual(["b-model"]);
	});
});

describe("the thinking selector", () => {
	test("the model's levels with pi's descriptions, ✓ current, default badged; Ctrl+S saves", () => {
		const picked: string[] = [];
		const selector = new ThinkingSelector({
			theme,
			levels: ["off", "low", "high"],
			current: "low",
			default: "high",
			keys,
			onSelect: (l) => picked.push(`use ${l}`),
			onSetDefault: (l) => picked.push(`default ${l}`),
			onCancel: () => picked.push("cancel"),
		});
		const screen = plain(selector.render(100));
		expect(screen).toContain("Thinking Level");
		expect(screen).toContain("Shift+Tab cycles thinking levels in-session");
		expect(screen).toMatch(/→ ✓ low\s+Light reasoning \(~2k tokens\)/);
		expect(screen).toMatch(/ {4}high\s+Deep reasoning \(~16k tokens\) · default/);
		expect(screen).not.toContain("medium");
		selector.handleInput(DOWN);
		selector.handleInput("\x13");
		selector.handleInput(UP);
		selector.handleInput("\r");
		expect(picked).toEqual(["default high", "use low"]);
	});
});

describe("/scoped-models", () => {
	test("Enter toggles, Ctrl+X clears, Ctrl+A enables all, Alt+Down reorders, Ctrl+S saves in order", () => {
		const saved: string[][] = [];
		const selector = new ScopedModelsSelector({
			theme,
			models: MODELS,
			enabled: [{ provider: "alpha", id: "a-model" }],
			keys,
			onSave: (models) => saved.push(models.map((m) => m.id)),
			onCancel() {},
		});
		expect(plain(selector.render(140))).toContain("1/3 enabled");
		selector.handleInput(DOWN);
		selector.handleInput("\r"); // enable the second row
		selector.handleInput("\x1b\x1b[B"); // alt+down: move it below the third
		selector.handleInput("\x13");
		selector.handleInput("\x18"); // clear
		selector.handleInput("\x01"); // all
		expect(plain(selector.render(140))).toContain("all enabled");
		expect(saved[0]?.[0]).toBe("a-model");
		expect(saved[0]?.length).toBe(2);
	});

	test("pi's search line and model name line; Ctrl+P toggles the selected model's provider", () => {
		const saved: string[][] = [];
		const selector = new ScopedModelsSelector({
			theme,
			models: MODELS,
			enabled: [],
			keys,
			onSave: (models) => saved.push(models.map((m) => m.id)),
			onCancel() {},
		});
		const lines = () =>
			plain(selector.render(140))
				.split("\n")
				.map((l) => l.trimEnd());
		let screen = lines();
		expect(screen.slice(0, 8)).toEqual([
			"─".repeat(140),
			"",
			"Model Configuration",
			"Saved on the server. Ctrl+S to save.",
			"",
			">",
			"",
			"→ ✓ z-model [zeta]",
		]);
		expect(screen).toContain("  ✓ a-model (Alpha Model) [alpha]");
		expect(screen).toContain("  Model Name: z-model");
		expect(screen.join("\n")).toContain("Ctrl+P provider · Alt+Up/Alt+Down reorder · Ctrl+S save · all enabled");
		for (const c of "alpha") selector.handleInput(c);
		selector.handleInput("\x10"); // ctrl+p: alpha's models off
		screen = lines();
		expect(screen).toContain("> alpha");
		expect(screen.join("\n")).toContain("1/3 enabled (unsaved)");
		selector.handleInput("\x13");
		expect(saved).toEqual([["z-model"]]);
	});
});

describe("model names", () => {
	test("a name that only restates the id is left out, as pi does", async () => {
		const { distinctName } = await import("../../../src/plugins/models/tui/model-selector.ts");
		expect(distinctName({ id: "fake-model", name: "Fake Model" })).toBeUndefined();
		expect(distinctName({ id: "claude-sonnet-4-5-20250929", name: "Claude Sonnet 4.5" })).toBeUndefined();
		expect(distinctName({ id: "a-model", name: "Alpha Model" })).toBe("Alpha Model");
		expect(distinctName({ id: "mistral-small-2603", name: "Mistral Small 4" })).toBe("Mistral Small 4");
	});
});

describe("model commands for a guest", () => {
	test("/model, Ctrl+P and /thinking say what the session uses and never open the catalog", async () => {
		let catalogOpened = false;
		const { ctx, notices, layout } = testGuest({
			identity: { role: "full", id: "g1", name: "Ann", session: "s1" },
			open: () => {
				catalogOpened = true;
				throw new Error("a guest has no catalog");
			},
			start: { args: { ...TEST_START.args, models: ["fake/*"] } },
		});
		// The chat's open conversation, as the guest's services offer it.
		ctx.services.provide("conversation", {
			ref: {
				state: {
					model: { provider: "fake", id: "fake-model", reasoning: true, thinkingLevels: ["off", "high"] },
					thinkingLevel: "high",
				},
			} as never,
			entries: () => [],
			goneDirectory: () => null,
			addSendExtra: () => () => {},
			scrolledAway: () => false,
			onScroll: () => () => {},
			current: "main",
			navigate: () => {},
			onNavigate: () => () => {},
			forkSession: () => Promise.reject(new Error("no fork here")),
		});
		modelsPlugin.register(ctx);
		const registry = ctx.commands;
		await registry.slash("model")!.run("");
		await registry.get("app.model.cycleForward")!.run("");
		await registry.slash("thinking")!.run("high");
		expect(catalogOpened).toBe(false);
		expect(layout.selector).toBeUndefined();
		expect(notices.map((n) => n.text)).toEqual(
			Array(3).fill("Model: fake/fake-model (thinking: high). The session's owner chooses the model."),
		);
	});
});
