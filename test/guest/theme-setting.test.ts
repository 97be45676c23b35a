import { describe, expect, test } from "bun:test";
import { customThemes, resolveThemeName, themeFor, themeNames } from "../../src/guest/theme-setting.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";

const dark = { trueColor: true, colors: { background: { r: 20, g: 20, b: 20 } } };
const light = { trueColor: true, colors: { background: { r: 250, g: 250, b: 245 } } };

describe("the theme setting", () => {
	test("a light/dark pair follows the terminal's background (dark when unknown)", () => {
		expect(resolveThemeName("light/dark", light)).toBe("light");
		expect(resolveThemeName("solar-light / solar-dark", dark)).toBe("solar-dark");
		expect(resolveThemeName("a/b", { trueColor: false })).toBe("b");
		expect(resolveThemeName("a/b/c", dark)).toBeUndefined();
		expect(resolveThemeName("dark", light)).toBe("dark");
	});

	test("custom themes are checked with pi's schema; built-in names are reserved; problems name the file", () => {
		const mine = { ...structuredClone(BUILTIN_THEMES.dark), name: "mine" } as Record<string, unknown>;
		(mine.colors as Record<string, unknown>).accent = "#ff0000";
		const custom = customThemes([
			{ name: "mine", json: mine },
			{ name: "system", json: { ...mine, name: "system" } },
			{ name: "broken", json: { name: "broken", colors: { accent: "#fff" } } },
		]);
		expect([...custom.themes.keys()]).toEqual(["mine"]);
		expect(custom.problems[0]).toBe("themes: system is a built-in theme's name; the file is ignored");
		expect(custom.problems[1]).toStartWith("themes: theme broken:");
		expect(themeNames(custom)).toEqual(["system", "dark", "light", "mine"]);
		const picked = themeFor("mine", dark, custom);
		expect(picked.problem).toBeUndefined();
		expect(picked.theme.fg("accent", "x")).toContain("38;2;255;0;0");
		const unknown = themeFor("nope", dark, custom);
		expect(unknown.problem).toBe('Unknown theme "nope": using the system theme');
	});
});

describe("the terminal's scheme without a background (mode 2031 reports, COLORFGBG)", () => {
	test("a pair and the system theme follow the reported scheme; the background, when known, wins", async () => {
		const { systemTheme } = await import("../../src/ui/theme/builtin.ts");
		const lightScheme = { trueColor: true, colors: { scheme: "light" as const } };
		const darkScheme = { trueColor: true, colors: { scheme: "dark" as const } };
		expect(resolveThemeName("a/b", lightScheme)).toBe("a");
		expect(resolveThemeName("a/b", darkScheme)).toBe("b");
		expect(resolveThemeName("a/b", { trueColor: true, colors: { ...dark.colors, scheme: "light" } })).toBe("b");
		const text = (facts: Parameters<typeof systemTheme>[0]) => systemTheme(facts).fg("accent", "x");
		expect(systemTheme(lightScheme).appearance).toBe("light");
		expect(systemTheme(darkScheme).appearance).toBe("dark");
		expect(text(lightScheme)).not.toBe(text(darkScheme));
		expect(text(lightScheme)).not.toBe(text({ trueColor: true }));
	});
});
