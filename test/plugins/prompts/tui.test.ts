import { describe, expect, test } from "bun:test";
import { TuiAltScreen } from "@earendil-works/pi-tui";
import { CommandRegistry, SlashAutocomplete } from "../../../src/guest/commands.ts";
import { Completions } from "../../../src/guest/completions.ts";
import { Composer } from "../../../src/plugins/chat/tui/composer.ts";
import type { PromptsState } from "../../../src/plugins/prompts/contract.ts";
import { loadedNames, promptsPlugin, slashEntries } from "../../../src/plugins/prompts/tui.ts";
import { StartupResources } from "../../../src/ui/startup-resources.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import { UserMessage } from "../../../src/ui/transcript/user-message.ts";
import { FakeTerminal } from "../../support/fake-terminal.ts";
import { testGuest } from "../../support/guest-context.ts";
import { waitUntil } from "../../support/wait.ts";

const STATE: PromptsState = {
	templates: [
		{
			name: "review",
			description: "Review the project",
			argumentHint: "<file> [focus]",
			scope: "project",
			path: "/p/r.md",
		},
		{ name: "notes", description: "", scope: "user", path: "/u/n.md" },
		{ name: "model", description: "Named like a command", scope: "user", path: "/u/m.md" },
	],
	skills: [
		{ name: "lint", description: "Lint the code", scope: "user", path: "/u/lint/SKILL.md", hidden: false },
		{ name: "pdf-tools", description: "Read PDFs", scope: "project", path: "/p/pdf/SKILL.md", hidden: true },
	],
	warnings: [],
};

function registry(expand: (text: string) => Promise<string> = async (text) => `expanded ${text}`) {
	const commands = new CommandRegistry();
	commands.register({ id: "app.model.select", title: "Select model", slash: { name: "model" }, run() {} });
	commands.register({ id: "p2.share", title: "Share this session", slash: { name: "share" }, run() {} });
	commands.addExpander({ entries: () => slashEntries(STATE), expand });
	return commands;
}

async function listed(commands: CommandRegistry, typed: string) {
	const found = await new SlashAutocomplete(commands).getSuggestions([typed], 0, typed.length);
	return found?.items.map((i) => [i.value, i.description ?? ""]) ?? [];
}

describe("the slash list", () => {
	test("templates (hint, source, description) then skills after the commands; a command's name stays the command's", async () => {
		expect(await listed(registry(), "/")).toEqual([
			["model", "Select model"],
			["share", "Share this session"],
			["review", "<file> [focus] — [p] Review the project"],
			["notes", "[u]"],
			["skill:lint", "[u] Lint the code"],
			["skill:pdf-tools", "[p] Read PDFs"],
		]);
	});

	test("a skill is found by its bare name first, then by skill:", async () => {
		expect((await listed(registry(), "/lint")).map(([name]) => name)).toEqual(["skill:lint"]);
		expect((await listed(registry(), "/pdf")).map(([name]) => name)).toEqual(["skill:pdf-tools"]);
		expect((await listed(registry(), "/skill:")).map(([name]) => name)).toEqual(["skill:lint", "skill:pdf-tools"]);
	});

	test("pi's enableSkillCommands off: no skill in the list, and a typed /skill: still expands", async () => {
		const commands = new CommandRegistry();
		commands.addExpander({ entries: () => slashEntries(STATE, false), expand: async (text) => text });
		expect((await listed(commands, "/")).map(([name]) => name)).toEqual(["review", "notes", "model"]);
		expect(commands.expanderFor("/skill:lint go")).toBeDefined();
	});

	test("control characters are shown as text; a name that cannot be typed as one word is not listed", () => {
		const odd: PromptsState = {
			...STATE,
			templates: [
				{ name: "bell", description: "rings\x07 \x1b[31mred", scope: "user", path: "/u/b.md" },
				{ name: "two words", description: "x", scope: "user", path: "/u/t.md" },
			],
			skills: [],
		};
		expect(slashEntries(odd)).toEqual([{ name: "bell", description: "[u] rings\u2407 \u241b[31mred" }]);
	});

	test("what is expanded: an entry's name as typed; never a command's, never an unknown one", () => {
		const commands = registry();
		expect(commands.expanderFor("/review a b")).toBeDefined();
		expect(commands.expanderFor("/skill:lint")).toBeDefined();
		expect(commands.expanderFor("/model x")).toBeUndefined();
		expect(commands.expanderFor("/nothing")).toBeUndefined();
		expect(commands.expanderFor("review a")).toBeUndefined();
	});
});

function composer(commands: CommandRegistry, send: (text: string) => Promise<void>) {
	const notices: string[] = [];
	const tui = new TuiAltScreen(new FakeTerminal(80, 20), false, undefined, { mouse: false });
	const c = new Composer({
		tui,
		theme: new ThemeRef(Theme.ansi()),
		draft: "",
		commands,
		completions: new Completions(),
		paddingX: 0,
		autocompleteMaxVisible: 5,
		level: () => undefined,
		send: (text) => send(text),
		shell: async () => {},
		notice: (text) => void notices.push(text),
		noModel: () => false,
		changed() {},
	});
	return { c, notices };
}

describe("Enter on a template or /skill:", () => {
	test("the expanded text is what is sent; plain text goes as typed", async () => {
		const sent: string[] = [];
		const { c } = composer(registry(), async (text) => void sent.push(text));
		c.submit('/review a.ts "edge cases"', "steer");
		c.submit("/skill:lint now", "steer");
		c.submit("just words", "steer");
		await waitUntil(() => sent.length === 3, "three messages sent");
		expect(sent.sort()).toEqual(
			['expanded /review a.ts "edge cases"', "expanded /skill:lint now", "just words"].sort(),
		);
	});

	test("an expansion that fails loses nothing: the typed text goes back with the reason", async () => {
		const { c, notices } = composer(
			registry(async () => {
				throw new Error("the server is gone");
			}),
			async () => {},
		);
		c.submit("/review a.ts", "steer");
		await waitUntil(() => notices.length > 0, "the refusal");
		expect(c.editor.getText()).toBe("/review a.ts");
		expect(notices).toEqual(["Error: the server is gone"]);
	});
});

describe("the skill block in the transcript", () => {
	const theme = new ThemeRef(Theme.ansi());
	const strip = (lines: string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m|\x1b\]133;[ABC]\x07/g, "").trim());
	const text =
		'<skill name="lint" location="/u/lint/SKILL.md">\nReferences are relative to /u/lint.\n\nRun the linter first.\n</skill>\n\ncheck src';

	test("collapsed to pi's one line, then the request as the person's message; Ctrl+O shows the instructions", () => {
		const collapsed = strip(
			new UserMessage(theme, { text, skill: { expanded: false, expandKey: "ctrl+o" } }).render(60),
		);
		expect(collapsed.filter(Boolean)).toEqual(["[skill] lint (ctrl+o to expand)", "check src"]);
		const expanded = strip(new UserMessage(theme, { text, skill: { expanded: true, expandKey: "ctrl+o" } }).render(60));
		expect(expanded.filter(Boolean)).toEqual([
			"[skill]",
			"lint",
			"References are relative to /u/lint.",
			"Run the linter first.",
			"check src",
		]);
	});

	test("a message that only looks like one, or a block without a request, is drawn as it is", () => {
		const plain = strip(new UserMessage(theme, { text: "<skill> not really" }).render(60));
		expect(plain.filter(Boolean)).toEqual(["<skill> not really"]);
		const alone = text.replace("\n\ncheck src", "");
		const only = strip(new UserMessage(theme, { text: alone, skill: { expanded: false, expandKey: "" } }).render(60));
		expect(only.filter(Boolean)).toEqual(["[skill] lint"]);
	});
});

describe("[Skills] and [Prompts] under the header", () => {
	test("names in a comma list; expanded (Ctrl+O), under their scopes as pi groups them, files for skills", () => {
		const loaded = loadedNames(STATE);
		const data = { context: [], cwd: "/p", home: "/u", hidden: false, ...loaded };
		const lines = (expanded: boolean) =>
			new StartupResources(new ThemeRef(Theme.ansi()), { ...data, expanded })
				.render(80)
				.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
		expect(lines(false)).toEqual([
			"",
			"",
			"[Skills]",
			"  lint, pdf-tools",
			"",
			"[Prompts]",
			"  /model, /notes, /review",
			"",
		]);
		expect(lines(true)).toEqual([
			"",
			"",
			"[Skills]",
			"  project",
			"    /p/pdf/SKILL.md",
			"  user",
			"    ~/lint/SKILL.md",
			"",
			"[Prompts]",
			"  project",
			"    /review",
			"  user",
			"    /model",
			"    /notes",
			"",
		]);
	});
});

describe("pi's [Skill warnings] and [Prompt conflicts]", () => {
	test("each clash with the file kept and the ones skipped, then each file's problem; shown even when quiet", () => {
		const state: PromptsState = {
			...STATE,
			warnings: [
				{
					kind: "prompt",
					message: 'name "/review" collision',
					path: "/u/review.md",
					name: "review",
					winner: "/p/r.md",
				},
				{ kind: "skill", message: "description is required", path: "/u/nodesc/SKILL.md" },
				{
					kind: "skill",
					message: 'name "lint" collision',
					path: "/x/lint/SKILL.md",
					name: "lint",
					winner: "/u/lint/SKILL.md",
				},
			],
		};
		const data = { context: [], cwd: "/p", home: "/u", expanded: false, ...loadedNames(state) };
		const lines = (hidden: boolean) =>
			new StartupResources(new ThemeRef(Theme.ansi()), { ...data, hidden })
				.render(80)
				.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
		const warnings = [
			"[Skill warnings]",
			'  "lint" collision:',
			"    ✓ auto (user) ~/lint/SKILL.md",
			"    ✗ /x/lint/SKILL.md (skipped)",
			"  ~/nodesc/SKILL.md",
			"    description is required",
			"",
			"[Prompt conflicts]",
			'  "review" collision:',
			"    ✓ auto (project) /p/r.md",
			"    ✗ ~/review.md (skipped)",
			"",
		];
		expect(lines(false).slice(-warnings.length)).toEqual(warnings);
		expect(lines(false)).toContain("[Skills]");
		expect(lines(true)).toEqual(["", "", ...warnings]);
	});
});

describe("who receives them", () => {
	test("owners and full guests open the session's resources; a view-only guest never does", () => {
		for (const [role, opens] of [
			["owner", true],
			["full", true],
			["view", false],
		] as const) {
			const guest = testGuest({ identity: { role, id: "x", name: "x", session: "s" } });
			const remove = promptsPlugin.register(guest.ctx);
			guest.ctx.session.open("00000000-0000-0000-0000-000000000001");
			expect(guest.opened.includes("prompts")).toBe(opens);
			remove();
		}
	});
});
