import { describe, expect, test } from "bun:test";
import { CommandRegistry, SlashAutocomplete } from "../../../src/guest/commands.ts";
import { Completions, EditorCompletion } from "../../../src/guest/completions.ts";
import {
	FileCompletion,
	type FileSource,
	PARTIAL_LABEL,
	pathCompletionPlugin,
} from "../../../src/plugins/path-completion/tui.ts";
import { testGuest } from "../../support/guest-context.ts";

const signal = new AbortController().signal;

/** The editor's completions as the chat builds them, with the path-completion plugin's source added. */
function editor(registry: CommandRegistry, files: FileSource) {
	const completions = new Completions();
	completions.add(new FileCompletion(files));
	return new EditorCompletion(new SlashAutocomplete(registry), completions);
}

function completion(found: { path: string; dir: boolean }[]) {
	const asked: string[] = [];
	const registry = new CommandRegistry();
	registry.register({ id: "p2.test", title: "Test", slash: { name: "model" }, run() {} });
	const provider = editor(registry, (prefix, mode) => {
		asked.push(`${mode}:${prefix}`);
		return Promise.resolve({ items: found, truncated: false });
	});
	return { provider, asked };
}

describe("the editor's completions", () => {
	test("@ asks the server's fuzzy search; a file is inserted with a space after it, a folder without", async () => {
		const { provider, asked } = completion([
			{ path: "src/parser.ts", dir: false },
			{ path: "src/deep/", dir: true },
			{ path: "my notes.md", dir: false },
		]);
		const lines = ["look at @pars"];
		const got = await provider.getSuggestions(lines, 0, lines[0]!.length, { signal });
		expect(asked).toEqual(["fuzzy:pars"]);
		expect(got?.prefix).toBe("@pars");
		expect(got?.items.map((i) => i.value)).toEqual(["@src/parser.ts", "@src/deep/", '@"my notes.md"']);
		const file = provider.applyCompletion(lines, 0, lines[0]!.length, got!.items[0]!, got!.prefix);
		expect(file.lines[0]).toBe("look at @src/parser.ts ");
		const folder = provider.applyCompletion(lines, 0, lines[0]!.length, got!.items[1]!, got!.prefix);
		expect(folder.lines[0]).toBe("look at @src/deep/");
	});

	test("Tab completes the path being typed; a slash command's name still completes as a command", async () => {
		const { provider, asked } = completion([{ path: "notes.md", dir: false }]);
		const got = await provider.getSuggestions(["cat no"], 0, 6, { signal, force: true });
		expect(asked).toEqual(["path:no"]);
		expect(got?.items.map((i) => i.label)).toEqual(["notes.md"]);
		expect(provider.shouldTriggerFileCompletion(["/mo"], 0)).toBe(false);
		const slash = await provider.getSuggestions(["/mo"], 0, 3, { signal });
		expect(slash?.items.map((i) => i.value)).toEqual(["model"]);
		expect(asked).toEqual(["path:no"]);
	});

	test("a partial list ends with a line saying so; choosing it leaves the text as typed", async () => {
		const registry = new CommandRegistry();
		const provider = editor(registry, () =>
			Promise.resolve({ items: [{ path: "src/a.ts", dir: false }], truncated: true }),
		);
		const lines = ["see @a"];
		const got = await provider.getSuggestions(lines, 0, 6, { signal });
		expect(got?.items.map((i) => i.label)).toEqual(["src/a.ts", PARTIAL_LABEL]);
		// pi-tui's editor selects the item whose value is or starts with what is typed: never the partial line.
		expect(got!.items[1]!.value.startsWith(got!.prefix)).toBe(false);
		const chosen = provider.applyCompletion(lines, 0, 6, got!.items[1]!, got!.prefix);
		expect(chosen).toEqual({ lines, cursorLine: 0, cursorCol: 6 });
		const whole = await editor(registry, () =>
			Promise.resolve({ items: [{ path: "src/a.ts", dir: false }], truncated: false }),
		).getSuggestions(lines, 0, 6, { signal });
		expect(whole?.items.map((i) => i.label)).toEqual(["src/a.ts"]);
	});

	test("no suggestions when the server has none or cannot be asked (a view guest)", async () => {
		const registry = new CommandRegistry();
		const provider = editor(registry, () => undefined);
		expect(await provider.getSuggestions(["@x"], 0, 2, { signal })).toBeNull();
	});

	test("the path-completion plugin adds its source to the guest's completions: the open session's files, never a view guest's", async () => {
		const asked: unknown[] = [];
		const closed: string[] = [];
		const { ctx, opened } = testGuest({
			identity: { role: "owner", id: "o1", name: "Owner", session: null },
			open: (contract, input) =>
				({
					input,
					ready: Promise.resolve(),
					call: async (method: string, args: unknown) => {
						asked.push({ object: contract.name, input, method, args });
						return { items: [{ path: "src/a.ts", dir: false }], truncated: false };
					},
					onChange: () => () => {},
					close() {
						closed.push(contract.name);
					},
				}) as never,
		});
		const slashOnly = new EditorCompletion(new SlashAutocomplete(ctx.commands), ctx.registries.completions);
		expect(slashOnly.triggerCharacters).toEqual(["/"]);
		const dispose = pathCompletionPlugin.register(ctx);
		const provider = new EditorCompletion(new SlashAutocomplete(ctx.commands), ctx.registries.completions);
		expect(provider.triggerCharacters).toEqual(["/", "@"]);
		// No session open yet: nothing to ask.
		expect(await provider.getSuggestions(["@a"], 0, 2, { signal })).toBeNull();
		ctx.session.open("s1");
		const got = await provider.getSuggestions(["@a"], 0, 2, { signal });
		expect(got?.items.map((i) => i.value)).toEqual(["@src/a.ts"]);
		expect(asked).toEqual([
			{ object: "path-completion", input: { session: "s1" }, method: "complete", args: { prefix: "a", mode: "fuzzy" } },
		]);
		ctx.session.setIdentity({ role: "view", id: "g1", name: "Ann", session: "s1" });
		expect(await provider.getSuggestions(["@a"], 0, 2, { signal })).toBeNull();
		expect(opened).toEqual(["path-completion"]);
		// The view guest's role closed it at once, not at their next completion.
		expect(closed).toEqual(["path-completion"]);
		dispose();
		expect(ctx.registries.completions.all()).toEqual([]);
	});

	test("Tab on a slash command's argument with no file to offer stays empty (the files source claimed it)", async () => {
		const registry = new CommandRegistry();
		registry.register({
			id: "p2.test",
			title: "Test",
			slash: { name: "model", complete: () => [{ value: "fake/model", label: "fake/model" }] },
			run() {},
		});
		const provider = editor(registry, () => Promise.resolve({ items: [], truncated: false }));
		expect(await provider.getSuggestions(["/model fa"], 0, 9, { signal, force: true })).toBeNull();
		expect((await provider.getSuggestions(["/model fa"], 0, 9, { signal }))?.items.map((i) => i.value)).toEqual([
			"fake/model",
		]);
	});
});
