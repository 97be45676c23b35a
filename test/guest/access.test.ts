import { describe, expect, test } from "bun:test";
import { TuiAltScreen } from "@earendil-works/pi-tui";
import { CommandRefused } from "../../src/guest/access.ts";
import { CommandRegistry, SlashAutocomplete, type TuiCommand } from "../../src/guest/commands.ts";
import { KeyRouter } from "../../src/guest/key-router.ts";
import { PreferenceScreens, type PreferenceScreensContext } from "../../src/guest/preference-screens.ts";
import { effectivePreferences } from "../../src/guest/preferences.ts";
import { ProtocolError } from "../../src/protocol/codes.ts";
import type { Role } from "../../src/protocol/roles.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";
import { testGuest } from "../support/guest-context.ts";
import { TEST_START } from "../support/start-data.ts";
import { waitUntil } from "../support/wait.ts";

/** A registry for a person of `role`, with commands for owners, participants, named roles and anyone. */
function registry(role: Role | undefined) {
	const ran: string[] = [];
	const commands = new CommandRegistry(() => role);
	const command = (id: string, extra: Partial<TuiCommand>): TuiCommand => ({
		id,
		title: `The ${id} command`,
		slash: { name: id },
		run: (args) => void ran.push(`${id} ${args}`.trim()),
		...extra,
	});
	const all = {
		share: command("share", { requires: { role: "owner", to: "share this session" } }),
		compact: command("compact", { requires: "participant" }),
		approve: command("approve", { requires: { role: ["full"], to: "approve" } }),
		hotkeys: command("hotkeys", {}),
	};
	for (const c of Object.values(all)) commands.register(c);
	return { commands, ran, all };
}

describe("a command's requires, checked by the registry", () => {
	test("a view guest is refused what is not theirs, worded once, and nothing runs", async () => {
		const { commands, ran, all } = registry("view");
		await expect(commands.invoke(all.share)).rejects.toThrow(
			new CommandRefused("Only the owner can share this session."),
		);
		await expect(commands.invoke(all.compact)).rejects.toThrow(
			"Only the owner and guests with full access can use The compact command.",
		);
		await expect(commands.invoke(all.approve)).rejects.toThrow("Your access does not allow you to approve.");
		await commands.invoke(all.hotkeys, "x");
		expect(ran).toEqual(["hotkeys x"]);
	});

	test("each role gets what it may use; until the server says who this is, it decides", async () => {
		for (const [role, allowed] of [
			["deviceOwner", ["share", "compact", "hotkeys"]],
			["owner", ["share", "compact", "hotkeys"]],
			["full", ["compact", "approve", "hotkeys"]],
			["view", ["hotkeys"]],
			[undefined, ["share", "compact", "approve", "hotkeys"]],
		] as const) {
			const { commands, all } = registry(role);
			expect(
				Object.values(all)
					.filter((c) => commands.allows(c))
					.map((c) => c.id),
			).toEqual([...allowed]);
		}
	});

	test("the slash list does not offer what the person may not use; typed, it is still found (and refused)", async () => {
		const { commands } = registry("view");
		const provider = new SlashAutocomplete(commands);
		expect((await provider.getSuggestions(["/"], 0, 1))?.items.map((i) => i.value)).toEqual(["hotkeys"]);
		expect(commands.slash("share")?.id).toBe("share");
	});

	test("a key for a command the person may not use is taken, refused with one line, and runs nothing", async () => {
		const { commands, ran } = registry("view");
		commands.register({
			id: "p2.owner.key",
			title: "Owner's key",
			keys: ["f5"],
			requires: "owner",
			run: () => void ran.push("key"),
		});
		const errors: unknown[] = [];
		const tui = new TuiAltScreen(new FakeTerminal(80, 24), false, undefined, { mouse: false });
		const keys = new KeyRouter({
			tui,
			commands,
			capabilities: TEST_START.capabilities,
			preferences: () => ({ effective: effectivePreferences(undefined, undefined), problems: [] }),
			selector: () => undefined,
			role: () => "view",
			connected: () => true,
			onError: (error) => errors.push(error),
		});
		expect(keys.onKey("\x1b[15~")).toEqual({ consume: true });
		await waitUntil(() => errors.length > 0, "the refusal");
		expect(errors.map(String)).toEqual(["CommandRefused: Only the owner can use Owner's key."]);
		expect(ran).toEqual([]);
	});
});

describe("the palette offers what the person may use", () => {
	test("a view guest's palette lists neither the owner's nor the participants' commands", () => {
		const { ctx, layout } = testGuest({ identity: { role: "view", id: "g", name: "Guest", session: "s" } });
		for (const [id, requires] of [
			["p2.share", "owner"],
			["p2.compact", "participant"],
			["p2.hotkeys", undefined],
		] as const) {
			ctx.commands.register({ id, title: `Title of ${id}`, ...(requires ? { requires } : {}), run() {} });
		}
		const screens = new PreferenceScreens({
			ui: ctx.ui,
			theme: ctx.ui.theme,
			commands: ctx.commands,
			keymap: () => ({ keys: () => [] }),
		} as unknown as PreferenceScreensContext);
		screens.openPalette();
		const shown = layout.selector!.component.render(100).join("\n");
		expect(shown).toContain("Title of p2.hotkeys");
		expect(shown).not.toContain("Title of p2.share");
		expect(shown).not.toContain("Title of p2.compact");
	});
});

describe("ui.fail: every failure worded one way", () => {
	test("an Error, the server's refusal and a thrown text make pi's error line; a refused command a status line", () => {
		const { ctx, notices } = testGuest();
		ctx.ui.fail(new Error("the disk is full"));
		ctx.ui.fail(new ProtocolError("forbidden"));
		ctx.ui.fail(new CommandRefused("Only the owner can share this session."));
		ctx.ui.fail("gone");
		expect(notices).toEqual([
			{ text: "Error: the disk is full", tone: "error" },
			{ text: "Error: Your access does not allow this.", tone: "error" },
			{ text: "Only the owner can share this session.", tone: "status" },
			{ text: "Error: gone", tone: "error" },
		]);
	});
});
