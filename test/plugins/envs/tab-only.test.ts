import { expect, test } from "bun:test";
import { CommandRegistry, SlashAutocomplete } from "../../../src/guest/commands.ts";
import { Completions, EditorCompletion } from "../../../src/guest/completions.ts";
import { FileCompletion } from "../../../src/plugins/path-completion/tui.ts";

const signal = new AbortController().signal;

test("a Tab-only argument (/cd) completes on Tab, from the command, never while typing (Enter submits what was typed)", async () => {
	const registry = new CommandRegistry();
	registry.register({
		id: "p2.test.cd",
		title: "cd",
		slash: { name: "cd", tabOnly: true, complete: () => [{ value: "box:", label: "box:" }] },
		run() {},
	});
	const files = new Completions();
	files.add(
		new FileCompletion(() => Promise.resolve({ items: [{ path: "local-file", dir: false }], truncated: false })),
	);
	const provider = new EditorCompletion(new SlashAutocomplete(registry), files);
	expect(await provider.getSuggestions(["/cd bo"], 0, 6, { signal })).toBeNull();
	const tab = await provider.getSuggestions(["/cd bo"], 0, 6, { signal, force: true });
	expect(tab?.items.map((i) => i.value)).toEqual(["box:"]);
});
