import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBounded } from "../../src/host/bounded-read.ts";
import { preferencePaths, readPreferences, watchPreferences } from "../../src/host/local-preferences.ts";
import type { Preferences } from "../../src/protocol/preferences.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { waitUntil } from "../support/wait.ts";

let home = "";
afterEach(() => {
	if (home) rmSync(home, { recursive: true, force: true });
});

function fakeHome() {
	home = mkdtempSync(join(tmpdir(), "p2-prefs-"));
	const paths = preferencePaths({ HOME: home });
	mkdirSync(join(paths.agentDir, "themes"), { recursive: true });
	const write = (path: string, value: unknown) =>
		writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
	return { paths, write };
}

describe("the person's preferences", () => {
	test("pi's files: legacy key names, a theme with invalid display values, a custom theme; reported by name", () => {
		const { paths, write } = fakeHome();
		write(join(paths.agentDir, "keybindings.json"), { expandTools: "ctrl+k", "app.exit": 7 });
		write(join(paths.agentDir, "settings.json"), {
			theme: "mine",
			editorPaddingX: 2,
			autocompleteMaxVisible: "many",
			defaultModel: "secret/model",
			shellPath: "/bin/zsh",
		});
		write(join(paths.agentDir, "themes", "mine.json"), { ...BUILTIN_THEMES.dark, name: "mine" });
		write(join(paths.agentDir, "themes", "notes.txt"), "not a theme");
		write(join(paths.agentDir, "themes", "bad.json"), "{ nope");
		write(join(paths.agentDir, "themes", "partial.json"), { name: "partial", colors: { accent: "#fff" } });
		const prefs = readPreferences(paths);
		expect(prefs.keybindings).toEqual({ "app.tools.expand": ["ctrl+k"] });
		expect(prefs.theme).toBe("mine");
		expect(prefs.settings).toEqual({ editorPaddingX: 2 });
		expect(prefs.themes.map((t) => t.name)).toEqual(["mine"]);
		expect(prefs.problems).toEqual([
			"keybindings.json: invalid keys for app.exit",
			"settings.json: invalid autocompleteMaxVisible",
			"themes/bad.json is not valid JSON",
			expect.stringMatching(/^theme themes\/partial.json: /),
		]);
		// Nothing but the whitelist travels: no model, no shell, no path.
		expect(JSON.stringify(prefs)).not.toContain("secret");
		expect(JSON.stringify(prefs)).not.toContain("zsh");
		expect(JSON.stringify(prefs)).not.toContain(home);
		expect(readPreferences(paths, { noThemes: true }).themes).toEqual([]);
	});

	test("prefs.json overrides pi's files, key by key and one level into terminal and markdown", () => {
		const { paths, write } = fakeHome();
		write(join(paths.agentDir, "keybindings.json"), { "app.tools.expand": "ctrl+k", "app.interrupt": "ctrl+q" });
		write(join(paths.agentDir, "settings.json"), {
			theme: "dark",
			terminal: { showImages: false, clearOnShrink: true },
		});
		mkdirSync(paths.p2Dir, { recursive: true });
		write(join(paths.p2Dir, "prefs.json"), {
			keybindings: { "app.tools.expand": "alt+o" },
			theme: "light/dark",
			settings: { terminal: { showImages: true } },
			mouse: "off",
		});
		const prefs = readPreferences(paths);
		expect(prefs.keybindings).toEqual({ "app.tools.expand": ["alt+o"], "app.interrupt": ["ctrl+q"] });
		expect(prefs.theme).toBe("light/dark");
		expect(prefs.settings).toEqual({ terminal: { showImages: true, clearOnShrink: true } });
		expect(prefs.saved.keybindings).toEqual({ "app.tools.expand": ["alt+o"] });
		expect(JSON.stringify(prefs)).not.toContain("mouse");
	});

	test("bounded reads: not a regular file, too large, a FIFO that would block", async () => {
		const { paths, write } = fakeHome();
		mkdirSync(join(paths.agentDir, "settings.json"));
		write(join(paths.agentDir, "keybindings.json"), `{"a":"${"x".repeat(300 * 1024)}"}`);
		const fifo = join(paths.agentDir, "themes", "fifo.json");
		Bun.spawnSync(["mkfifo", fifo]);
		const prefs = readPreferences(paths);
		expect(prefs.problems).toEqual([
			"keybindings.json is larger than 256 KiB",
			"settings.json is not a regular file",
			"themes/fifo.json is not a regular file",
		]);
		expect(readBounded(join(home, "missing"))).toEqual({ kind: "missing" });
	});

	test("bounded reads: a file at the limit is read whole, one byte more is refused; a file that says it is empty is read", () => {
		fakeHome();
		const file = join(home, "sized.txt");
		writeFileSync(file, "\uFEFFé".padEnd(1000, "x"));
		const limit = Buffer.byteLength(readFileSync(file, "utf8"));
		expect(readBounded(file, limit)).toEqual({ kind: "text", text: "é".padEnd(999, "x") });
		expect(readBounded(file, limit - 1)).toEqual({
			kind: "problem",
			problem: `is larger than ${(limit - 1) / 1024} KiB`,
		});
		// Files under /proc report a size of 0 and still have content.
		const status = readBounded("/proc/self/status");
		expect(status.kind === "text" && status.text.includes("Name:")).toBe(true);
		expect(readBounded("/proc/self/status", 10).kind).toBe("problem");
	});

	test("a change on disk is posted once, and directories created later are seen", async () => {
		const { paths, write } = fakeHome();
		rmSync(join(home, ".pi"), { recursive: true, force: true });
		const initial = readPreferences(paths);
		const seen: Preferences[] = [];
		const watcher = watchPreferences(paths, {}, initial, (p) => seen.push(p));
		try {
			// Nothing of pi's exists yet: HOME is watched, then each directory as it appears (by the next read).
			const readAfter = async (change: () => void, what: string) => {
				const before = watcher.checks();
				change();
				await waitUntil(() => watcher.checks() > before, `the read after ${what}`);
			};
			await readAfter(() => mkdirSync(join(home, ".pi")), "~/.pi appeared");
			await readAfter(() => mkdirSync(paths.agentDir), "~/.pi/agent appeared");
			write(join(paths.agentDir, "keybindings.json"), { "app.tools.expand": "alt+o" });
			await waitUntil(() => seen.length > 0, "the new keybindings posted");
			expect(seen).toHaveLength(1);
			expect(seen.at(-1)?.keybindings).toEqual({ "app.tools.expand": ["alt+o"] });
			mkdirSync(paths.p2Dir, { recursive: true });
			write(join(paths.p2Dir, "prefs.json"), { theme: "light" });
			await waitUntil(() => seen.length > 1, "the new theme posted");
			expect(seen).toHaveLength(2);
			expect(seen.at(-1)?.theme).toBe("light");
			// The same content written again is read again and posts nothing.
			await readAfter(() => write(join(paths.p2Dir, "prefs.json"), { theme: "light" }), "the same content");
			expect(seen).toHaveLength(2);
		} finally {
			watcher.stop();
		}
	});
});
