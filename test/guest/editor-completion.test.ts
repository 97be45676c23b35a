import { describe, expect, test } from "bun:test";
import { CommandRegistry, SlashAutocomplete } from "../../src/guest/commands.ts";
import { EditorCompletion } from "../../src/guest/editor-completion.ts";

const signal = new AbortController().signal;

function completion(found: { path: string; dir: boolean }[]) {
	const asked: string[] = [];
	const registry = new CommandRegistry();
	registry.register({ id: "p2.test", title: "Test", slash: { name: "model" }, run() {} });
	const provider = new EditorCompletion(new SlashAutocomplete(registry), (prefix, mode) => {
		asked.push(`${mode}:${prefix}`);
		return Promise.resolve(found);
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

	test("no suggestions when the server has none or cannot be asked (a view guest)", async () => {
		const registry = new CommandRegistry();
		const provider = new EditorCompletion(new SlashAutocomplete(registry), () => undefined);
		expect(await provider.getSuggestions(["@x"], 0, 2, { signal })).toBeNull();
	});
});
