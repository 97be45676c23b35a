import { describe, expect, test } from "bun:test";
import { setKeybindings } from "@earendil-works/pi-tui";
import { buildKeymap } from "../../../src/guest/keymap.ts";
import type { LoginProvider } from "../../../src/plugins/login/contract.ts";
import { ProviderSelector } from "../../../src/plugins/login/tui-provider-selector.ts";
import { MenuSelector } from "../../../src/ui/menu-selector.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";

setKeybindings(buildKeymap({ platform: "linux", windowsKeys: false }, [], {}).manager);
const theme = new ThemeRef(Theme.ansi());
const lines = (component: { render(width: number): string[] }) =>
	component.render(60).map((l) => l.replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "").trimEnd());

const provider = (id: string, name: string, over: Partial<LoginProvider> = {}): LoginProvider => ({
	id,
	name,
	apiKey: { name },
	oauth: null,
	signedIn: null,
	source: null,
	...over,
});

describe("pi's /login selectors", () => {
	test("the method menu: pi's frame, → on the selected choice, j/k move, the hint between blank lines", () => {
		const chosen: string[] = [];
		const menu = new MenuSelector(theme, {
			title: "Select authentication method:",
			choices: [
				{ value: "oauth", label: "Sign in with an account" },
				{ value: "api_key", label: "Sign in with an API key" },
			],
			hint: [
				["↑↓", "navigate"],
				["enter", "select"],
			],
			onSelect: (value) => chosen.push(value),
			onCancel: () => chosen.push("cancel"),
		});
		expect(lines(menu)).toEqual([
			"─".repeat(60),
			"",
			" Select authentication method:",
			"",
			" → Sign in with an account",
			"   Sign in with an API key",
			"",
			" ↑↓ navigate  enter select",
			"",
			"─".repeat(60),
		]);
		menu.handleInput("j");
		menu.handleInput("\r");
		menu.handleInput("\x1b");
		expect(chosen).toEqual(["api_key", "cancel"]);
	});

	test("the provider list: pi's search line, how each is configured, no kind column unless kinds mix", () => {
		const chosen: string[] = [];
		const list = new ProviderSelector({
			theme,
			title: "Select provider to configure:",
			choices: [
				provider("anthropic", "Anthropic", { signedIn: "api_key", source: "ANTHROPIC_API_KEY" }),
				provider("groq", "Groq", { signedIn: "api_key", source: "stored credential" }),
				provider("openai", "OpenAI", { signedIn: "oauth", oauth: { name: "ChatGPT", subscription: true } }),
				provider("xai", "xAI"),
			].map((p) => ({ provider: p, method: "api_key" as const })),
			empty: "No providers available",
			onSelect: ({ provider }) => chosen.push(provider.id),
			onCancel: () => chosen.push("cancel"),
		});
		expect(lines(list)).toEqual([
			"─".repeat(60),
			"",
			" Select provider to configure:",
			"",
			">",
			"",
			" → Anthropic ✓ env: ANTHROPIC_API_KEY",
			"   Groq ✓ configured",
			"   OpenAI • subscription configured",
			"   xAI • not configured",
			"",
			"─".repeat(60),
		]);
		for (const c of "xai") list.handleInput(c);
		expect(lines(list)).toContain("> xai");
		expect(lines(list)).toContain(" → xAI • not configured");
		list.handleInput("\r");
		expect(chosen).toEqual(["xai"]);

		const mixed = new ProviderSelector({
			theme,
			title: "Select provider to logout:",
			choices: [
				{ provider: provider("groq", "Groq", { signedIn: "api_key" }), method: "api_key" },
				{
					provider: provider("openai", "OpenAI", {
						signedIn: "oauth",
						oauth: { name: "ChatGPT", subscription: false },
					}),
					method: "oauth",
				},
			],
			empty: "No providers logged in. Use /login first.",
			onSelect() {},
			onCancel() {},
		});
		expect(lines(mixed)).toContain(" → Groq [API key] ✓ configured");
		expect(lines(mixed)).toContain("   OpenAI [account] ✓ configured");
	});
});
