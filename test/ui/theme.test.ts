import { describe, expect, test } from "bun:test";
import { parseThemeJson } from "../../src/protocol/theme-schema.ts";
import { appearanceOf, BUILTIN_THEMES, systemTheme } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";

const rgb = (hex: string) => {
	const n = Number.parseInt(hex.slice(1), 16);
	return `${(n >> 16) & 255};${(n >> 8) & 255};${n & 255}`;
};

// pi 1.6.0's colors as resolved on screen: hex and the 256-color index.
const DARK = {
	accent: ["#a798d7", 140],
	border: ["#5fa8cc", 74],
	dim: ["#7e888e", 102],
	muted: ["#9da5a9", 145],
	warning: ["#cd9a22", 172],
	thinkingMedium: ["#6185cc", 68],
	bashMode: ["#5eb286", 72],
	syntaxString: ["#de8d5a", 173],
	thinkingMax: ["#fe5462", 203],
} as const;
const DARK_BG = {
	userMessageBg: ["#213b49", 23],
	toolSuccessBg: ["#254131", 23],
	toolErrorBg: ["#5b282a", 52],
} as const;
const LIGHT = { accent: ["#7459b4", 97], text: ["#3b3f41", 237], error: ["#c8253d", 161] } as const;

describe("built-in themes", () => {
	test("pass pi's theme schema (they are not validated at start)", () => {
		for (const [name, json] of Object.entries(BUILTIN_THEMES)) expect(parseThemeJson(name, json).name).toBe(name);
	});

	test("dark in truecolor and 256 colors emits pi's colors", () => {
		const truecolor = Theme.fromJson(BUILTIN_THEMES.dark, "truecolor");
		const indexed = Theme.fromJson(BUILTIN_THEMES.dark, "256color");
		for (const [token, [hex, index]] of Object.entries(DARK)) {
			expect(truecolor.fg(token as keyof typeof DARK, "x")).toBe(`\x1b[38;2;${rgb(hex)}mx\x1b[39m`);
			expect(indexed.fg(token as keyof typeof DARK, "x")).toBe(`\x1b[38;5;${index}mx\x1b[39m`);
		}
		for (const [token, [hex, index]] of Object.entries(DARK_BG)) {
			expect(truecolor.bg(token as keyof typeof DARK_BG, "x")).toBe(`\x1b[48;2;${rgb(hex)}mx\x1b[49m`);
			expect(indexed.bg(token as keyof typeof DARK_BG, "x")).toBe(`\x1b[48;5;${index}mx\x1b[49m`);
		}
	});

	test("light is its own palette", () => {
		const light = Theme.fromJson(BUILTIN_THEMES.light, "truecolor");
		for (const [token, [hex]] of Object.entries(LIGHT)) {
			expect(light.fg(token as keyof typeof LIGHT, "x")).toBe(`\x1b[38;2;${rgb(hex)}mx\x1b[39m`);
		}
		expect(light.appearance).toBe("light");
	});
});

describe("the system theme", () => {
	test("with no reported colors: ANSI indexes, the terminal's foreground, faint neutrals, no panels", () => {
		const theme = systemTheme({ trueColor: true });
		expect(theme.fg("thinkingMedium", "─")).toBe("\x1b[38;5;6m─\x1b[39m");
		expect(theme.fg("warning", "w")).toBe("\x1b[38;5;3mw\x1b[39m");
		expect(theme.fg("accent", "a")).toBe("\x1b[38;5;5ma\x1b[39m");
		expect(theme.fg("thinkingXhigh", "x")).toBe("\x1b[38;5;13mx\x1b[39m");
		expect(theme.fg("toolOutput", "o")).toBe("\x1b[2mo\x1b[22m");
		expect(theme.fg("dim", "d")).toBe("\x1b[2md\x1b[22m");
		expect(theme.fg("text", "t")).toBe("t");
		expect(theme.fg("toolTitle", "t")).toBe("t");
		for (const token of ["userMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "selectedBg"] as const) {
			expect(theme.hasBg(token)).toBe(false);
			expect(theme.bg(token, "p")).toBe("p");
		}
	});

	test("with a reported background, panels, accents and muted text follow it as pi's generated colors do; body text is the terminal's", async () => {
		const { adaptedTheme } = await import("../../src/ui/theme/builtin.ts");
		const { colorToOklch, parseColor } = await import("@earendil-works/pi-tui");
		const lab = (hex: string) => {
			const c = colorToOklch(parseColor(hex));
			return [c.l, c.c * Math.cos((c.h * Math.PI) / 180), c.c * Math.sin((c.h * Math.PI) / 180)];
		};
		const distance = (a: string, b: string) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]!));
		// pi 1.6.0's generated panels for three backgrounds.
		const pi = [
			[
				{ r: 0, g: 0, b: 0 },
				{
					userMessageBg: "#1d2e37",
					toolSuccessBg: "#1e3026",
					toolPendingBg: "#292c2e",
					toolErrorBg: "#402222",
					muted: "#969fa4",
					accent: "#a291d5",
					border: "#529fc5",
					thinkingHigh: "#8f6ae1",
				},
			],
			[
				{ r: 30, g: 30, b: 46 },
				{
					userMessageBg: "#203540",
					toolSuccessBg: "#21382b",
					toolPendingBg: "#2f3234",
					toolErrorBg: "#4c2525",
					muted: "#99a2a6",
					accent: "#a494d6",
					border: "#58a3c8",
					thinkingHigh: "#9270e3",
				},
			],
			[
				{ r: 255, g: 255, b: 255 },
				{
					userMessageBg: "#edf1f3",
					toolSuccessBg: "#edf1ee",
					toolPendingBg: "#eff0f0",
					toolErrorBg: "#f4efee",
					muted: "#737d83",
					accent: "#8268c4",
					border: "#4a9ac0",
					thinkingHigh: "#bfb3e9",
				},
			],
		] as const;
		for (const [background, panels] of pi) {
			const theme = adaptedTheme(background);
			for (const [token, hex] of Object.entries(panels)) {
				expect(distance(String(theme.colors[token as keyof typeof theme.colors]), hex)).toBeLessThan(0.025);
			}
			expect(theme.colors.text).toBe("");
			expect(theme.colors.userMessageText).toBe("");
		}
		// A background between two of pi's samples gets colors between theirs.
		const between = adaptedTheme({ r: 15, g: 15, b: 23 });
		const l = (hex: unknown) => colorToOklch(parseColor(String(hex))).l;
		expect(l(between.colors.userMessageBg)).toBeGreaterThan(l("#1d2e37"));
		expect(l(between.colors.userMessageBg)).toBeLessThan(l("#203540"));
	});

	test("with a reported background: the built-in theme of that appearance at the terminal's depth", () => {
		expect(appearanceOf({ r: 255, g: 255, b: 255 })).toBe("light");
		expect(appearanceOf({ r: 30, g: 30, b: 46 })).toBe("dark");
		const light = systemTheme({ trueColor: false, colors: { background: { r: 250, g: 250, b: 250 } } });
		expect(light.appearance).toBe("light");
		expect(light.fg("accent", "x")).toBe("\x1b[38;5;97mx\x1b[39m");
		expect(light.hasBg("userMessageBg")).toBe(true);
	});
});

describe("--theme", () => {
	test("names system, dark or light for one run; other names are unknown", async () => {
		const { namedTheme } = await import("../../src/ui/theme/builtin.ts");
		expect(namedTheme("light", { trueColor: true })?.appearance).toBe("light");
		expect(namedTheme("dark", { trueColor: false })?.fg("accent", "x")).toBe("\x1b[38;5;140mx\x1b[39m");
		expect(namedTheme("system", { trueColor: true })?.name).toBe("system");
		expect(namedTheme("solarized", { trueColor: true })).toBeUndefined();
	});
});

describe("theme files", () => {
	const minimal = () =>
		structuredClone(BUILTIN_THEMES.dark) as unknown as Record<string, unknown> & { colors: Record<string, unknown> };

	test("the tokens pi lets a theme omit fall back like pi's", () => {
		const json = minimal();
		json.name = "mine";
		delete json.colors.thinkingMax;
		delete json.colors.searchMatchBg;
		const theme = Theme.fromJson(parseThemeJson("mine", json), "truecolor");
		expect(theme.fg("thinkingMax", "x")).toBe(theme.fg("thinkingXhigh", "x"));
		expect(theme.bg("searchMatchBg", "x")).toBe(theme.bg("selectedBg", "x"));
	});

	test("hex, 256 indexes, variables and the terminal default all resolve", () => {
		const json = minimal();
		json.vars = { ...(json.vars as object), brand: "#ff0000", alias: "brand" };
		Object.assign(json.colors, { accent: "alias", border: 33, text: "", success: "#0f0" });
		const theme = Theme.fromJson(parseThemeJson("mine", json), "truecolor");
		expect(theme.fg("accent", "x")).toBe("\x1b[38;2;255;0;0mx\x1b[39m");
		expect(theme.fg("border", "x")).toBe("\x1b[38;5;33mx\x1b[39m");
		expect(theme.fg("text", "x")).toBe("x");
		expect(theme.fg("success", "x")).toBe("\x1b[38;2;0;255;0mx\x1b[39m");
	});

	test("bad theme files are refused with the problem named", () => {
		const missing = minimal();
		delete missing.colors.accent;
		expect(() => parseThemeJson("missing", missing)).toThrow(/theme missing: .*accent/);
		const extra = minimal();
		extra.colors.sparkle = "#fff";
		expect(() => parseThemeJson("extra", extra)).toThrow(/sparkle/);
		const slash = minimal();
		slash.name = "dark/light";
		expect(() => parseThemeJson("slash", slash)).toThrow(/name/);
		const circular = minimal();
		circular.vars = { ...(circular.vars as object), a: "b", b: "a" };
		circular.colors.accent = "a";
		expect(() => Theme.fromJson(parseThemeJson("circular", circular), "truecolor")).toThrow(/refers to itself/);
		const unknown = minimal();
		unknown.colors.accent = "nosuchvar";
		expect(() => Theme.fromJson(parseThemeJson("unknown", unknown), "truecolor")).toThrow(
			/unknown variable "nosuchvar"/,
		);
		const garbage = minimal();
		garbage.colors.accent = "#zzzzzz";
		expect(() => Theme.fromJson(parseThemeJson("garbage", garbage), "truecolor")).toThrow(/not a color/);
	});
});

describe("ThemeRef", () => {
	test("derived pi-tui themes follow the current theme; the version tells caches to rebuild", () => {
		const ref = new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
		const editor = ref.editorTheme(() => ({ level: "medium", bash: false }));
		const markdown = ref.markdownTheme();
		const before = [editor.borderColor("─"), markdown.heading("H"), editor.selectList.selectedText("s")];
		expect(before[0]).toBe(`\x1b[38;2;${rgb("#6185cc")}m─\x1b[39m`);
		const seen: number[] = [];
		ref.onChange(() => seen.push(ref.version));
		ref.set(Theme.fromJson(BUILTIN_THEMES.light, "truecolor"));
		const after = [editor.borderColor("─"), markdown.heading("H"), editor.selectList.selectedText("s")];
		for (let i = 0; i < before.length; i++) expect(after[i]).not.toBe(before[i]);
		expect(seen).toEqual([1]);
	});

	test("two runtimes hold two themes: one changing leaves the other alone", () => {
		const a = new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
		const b = new ThemeRef(Theme.ansi());
		expect(a.current.fg("accent", "x")).not.toBe(b.current.fg("accent", "x"));
		const bBefore = b.current.fg("accent", "x");
		a.set(Theme.fromJson(BUILTIN_THEMES.light, "truecolor"));
		expect(b.current.fg("accent", "x")).toBe(bBefore);
	});

	test("the editor border: thinking level, bash mode, or muted without reasoning", () => {
		let state: { level: "high" | undefined; bash: boolean } = { level: "high", bash: false };
		const ref = new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "256color"));
		const editor = ref.editorTheme(() => state);
		expect(editor.borderColor("─")).toBe("\x1b[38;5;104m─\x1b[39m");
		state = { level: "high", bash: true };
		expect(editor.borderColor("─")).toBe("\x1b[38;5;72m─\x1b[39m");
		state = { level: undefined, bash: false };
		expect(editor.borderColor("─")).toBe("\x1b[38;5;102m─\x1b[39m");
	});
});
