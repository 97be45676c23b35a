import { describe, expect, test } from "bun:test";
import { type KeyId, matchesKey, setKittyProtocolActive } from "@earendil-works/pi-tui";
import { CommandRegistry } from "../../src/guest/commands.ts";
import { hotkeysMarkdown } from "../../src/guest/hotkeys.ts";
import { buildKeymap, keyMatches, keyText } from "../../src/guest/keymap.ts";

const linux = { platform: "linux", windowsKeys: false } as const;

function registry(...commands: { id: string; keys?: string[]; when?: string }[]) {
	const r = new CommandRegistry();
	for (const c of commands) r.register({ title: c.id, run() {}, ...c });
	return r;
}

describe("keymap", () => {
	test("pi's ids keep pi's defaults; a person's binding replaces them; p2 ids take their own defaults", () => {
		const r = registry({ id: "app.tools.expand", keys: ["f9"] }, { id: "p2.palette", keys: ["f1"] });
		const plain = buildKeymap(linux, r.all(), {});
		expect(plain.keys("app.tools.expand")).toEqual(["ctrl+o"]);
		expect(plain.keys("p2.palette")).toEqual(["f1"]);
		const mine = buildKeymap(linux, r.all(), { "app.tools.expand": ["alt+o"], "p2.palette": [] });
		expect(mine.keys("app.tools.expand")).toEqual(["alt+o"]);
		expect(mine.keys("p2.palette")).toEqual([]);
		expect(keyMatches(mine, "\x1bo", "app.tools.expand")).toBe(true);
		expect(keyMatches(mine, "\x0f", "app.tools.expand")).toBe(false);
		// The keymap is pi-tui's: the editor's ids read from the same manager.
		expect(mine.manager.getKeys("tui.input.submit")).toEqual(["enter"]);
	});

	test("a key pressed again is answered as pi-tui's matcher answers it, also after the Kitty protocol or the bindings change", () => {
		const r = registry({ id: "p2.one", keys: ["enter"] }, { id: "p2.two", keys: ["shift+enter"] });
		const map = buildKeymap(linux, r.all(), {});
		const inputs = ["\n", "\r", "\x1b\r", "a", "\x1b[13;2u", "\x0f"];
		const expected = (data: string, id: string) => map.keys(id).some((key) => matchesKey(data, key as KeyId));
		try {
			for (const kitty of [false, true, false]) {
				setKittyProtocolActive(kitty);
				for (let pass = 0; pass < 2; pass++) {
					for (const data of inputs) {
						for (const id of ["p2.one", "p2.two", "app.tools.expand", "tui.input.submit"]) {
							expect({ kitty, data, id, matches: keyMatches(map, data, id) }).toEqual({
								kitty,
								data,
								id,
								matches: expected(data, id),
							});
						}
					}
				}
			}
			// "\n" is Enter without the Kitty protocol and Shift+Enter with it: the kept answer follows.
			setKittyProtocolActive(false);
			expect([keyMatches(map, "\n", "p2.one"), keyMatches(map, "\n", "p2.two")]).toEqual([true, false]);
			setKittyProtocolActive(true);
			expect([keyMatches(map, "\n", "p2.one"), keyMatches(map, "\n", "p2.two")]).toEqual([false, true]);
			setKittyProtocolActive(false);
			// New bindings on the same keymap: what was kept for the old ones is gone.
			expect(keyMatches(map, "\x0f", "app.tools.expand")).toBe(true);
			map.manager.setUserBindings({ "app.tools.expand": ["f7"] });
			expect(keyMatches(map, "\x0f", "app.tools.expand")).toBe(false);
			expect(keyMatches(map, "\x1b[18~", "app.tools.expand")).toBe(true);
		} finally {
			setKittyProtocolActive(false);
		}
	});

	test("dispatch order: more specific first, then what the person bound, then registration order", () => {
		const r = registry(
			{ id: "a.general", keys: ["f5"], when: "chat" },
			{ id: "b.specific", keys: ["f5"], when: "chat && busy" },
			{ id: "c.bound", when: "chat" },
		);
		const map = buildKeymap(linux, r.all(), { "c.bound": ["f5"] });
		expect(map.ordered.map((e) => e.command.id)).toEqual(["b.specific", "c.bound", "a.general"]);
		expect(map.problems).toContain("f5: c.bound and a.general overlap; c.bound wins");
		expect(map.problems.some((p) => p.includes("b.specific and"))).toBe(false);
	});

	test("what will not work is reported: unknown ids, user conflicts, dropped plugin defaults, transcript keys", () => {
		const r = registry(
			{ id: "p2.grab", keys: ["ctrl+g", "f6"] },
			{ id: "p2.scroller", keys: ["pageUp"], when: "chat" },
			{ id: "p2.inPalette", keys: ["pageDown"], when: "overlay:palette" },
		);
		const map = buildKeymap(linux, r.all(), {
			"some.unknown": ["ctrl+9"],
			"app.tools.expand": ["ctrl+k"],
			"app.thinking.toggle": ["ctrl+k"],
		});
		expect(map.keys("p2.grab")).toEqual(["f6"]);
		expect(map.problems).toContain("p2.grab: its default ctrl+g is the launcher's; the key is not bound");
		expect(map.problems).toContain("keybindings: unknown id some.unknown (kept, as pi does)");
		expect(map.problems).toContain("keybindings: ctrl+k is bound to app.tools.expand and app.thinking.toggle");
		expect(map.problems).toContain(
			"p2.scroller: pageUp scrolls or searches the transcript first (tui.altScreen.pageUp)",
		);
		expect(map.problems.some((p) => p.startsWith("p2.inPalette"))).toBe(false);
	});

	test("a person's binding that gives a launcher key to another action is reported", () => {
		const r = registry({ id: "app.tools.expand" });
		const map = buildKeymap(linux, r.all(), { "app.tools.expand": ["ctrl+v"] });
		expect(map.problems).toContain("ctrl+v: the launcher's action and app.tools.expand share it; the launcher's loses");
	});

	test("key text as pi writes it: hints lower case, help capitalized, Alt is Option on a Mac", () => {
		expect(keyText(["ctrl+c", "ctrl+d"])).toBe("ctrl+c/ctrl+d");
		expect(keyText(["shift+enter", "ctrl+j"], { capitalize: true })).toBe("Shift+Enter/Ctrl+J");
		expect(keyText(["alt+up"], { capitalize: true, mac: true })).toBe("Option+Up");
	});

	test("/hotkeys: pi's tables from the keymap, commands by category with where they apply, launcher keys, problems", () => {
		const r = new CommandRegistry();
		r.register({
			id: "app.interrupt",
			title: "Cancel autocomplete / abort streaming",
			category: "Other",
			when: "chat && busy",
			run() {},
		});
		r.register({
			id: "p2.hotkeys",
			title: "Show all keyboard shortcuts",
			category: "p2",
			slash: { name: "hotkeys" },
			run() {},
		});
		r.register({
			id: "p2.new",
			title: "New",
			category: "Sessions",
			when: "chat && owner",
			slash: { name: "new" },
			run() {},
		});
		r.register({ id: "p2.clash", title: "Clash", slash: { name: "hotkeys" }, run() {} });
		const map = buildKeymap(linux, r.all(), { "tui.editor.undo": ["ctrl+z"], "app.interrupt": ["ctrl+q"] }, [
			"settings.json: invalid outputPad",
		]);
		const md = hotkeysMarkdown(map, r);
		expect(md).toContain("**Navigation**");
		expect(md).toContain("| `Ctrl+Z` | Undo |");
		expect(md).toContain("| `Ctrl+Q` | Cancel autocomplete / abort streaming (while the agent works) |");
		expect(md).toContain("**p2**\n| Key | Action |\n|-----|--------|\n| `/hotkeys` | Show all keyboard shortcuts |");
		expect(md).toContain("| `/new` | New (owners only) |");
		expect(md).toContain("| `Ctrl+G` | Edit message in external editor (the launcher's key) |");
		expect(md).toContain("| `Ctrl+V` | Paste files on macOS, images, or text from clipboard (the launcher's key) |");
		// pi's order: Tab, then Escape, …, Suspend (the launcher's) before thinking.
		const other = md.slice(md.indexOf("**Other**"));
		expect(other.indexOf("`Tab`")).toBeLessThan(other.indexOf("`Ctrl+Q`"));
		expect(other.indexOf("`Ctrl+Q`")).toBeLessThan(other.indexOf("Suspend to background"));
		expect(md).toContain("- /hotkeys belongs to p2.hotkeys; p2.clash has no slash form");
		expect(md).toContain("- settings.json: invalid outputPad");
		// The person's Ctrl+Z for undo takes the launcher's suspend key: said, not hidden.
		expect(md).toContain("- ctrl+z: the launcher's action and tui.editor.undo share it");
	});
});

describe("the default keymap", () => {
	test("the core's and every plugin's own keys leave nothing to report (no overlaps, no lost keys)", async () => {
		const { registerCoreCommands } = await import("../../src/guest/core-commands.ts");
		const { guestPlugins } = await import("../../src/guest/plugins.ts");
		const { testGuest } = await import("../support/guest-context.ts");
		const { ctx } = testGuest();
		const nothing = () => {};
		registerCoreCommands(ctx.commands, {
			exit: nothing,
			clearEditor: nothing,
			reload: nothing,
			hotkeys: nothing,
			palette: nothing,
			settings: nothing,
			keybindings: nothing,
			doubleEscape: nothing,
		});
		const plugins = guestPlugins();
		const disposers = plugins.map((plugin) => plugin.register(ctx));
		const ids = ctx.commands.all().map((c) => c.command.id);
		for (const id of [
			"app.interrupt",
			"app.session.new",
			"app.model.select",
			"p2.login",
			"p2.share",
			"p2.chat.attach",
		]) {
			expect(ids).toContain(id);
		}
		const map = buildKeymap({ platform: "linux", windowsKeys: false }, ctx.commands.all(), {});
		expect(map.problems).toEqual([]);
		for (const dispose of disposers.reverse()) dispose();
		// What the plugins registered they take back.
		expect(ctx.commands.all().map((c) => c.command.id)).toEqual([
			"app.clear",
			"app.exit",
			"p2.palette",
			"p2.hotkeys",
			"p2.settings",
			"p2.keybindings",
			"p2.tui.reload",
			"p2.chat.doubleEscape",
		]);
	});
});
