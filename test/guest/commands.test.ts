import { describe, expect, test } from "bun:test";
import { CommandRegistry, parseSlash, SlashAutocomplete } from "../../src/guest/commands.ts";

describe("slash commands", () => {
	test("parsing: a name and its arguments; anything else is a message", () => {
		expect(parseSlash("/quit")).toEqual({ name: "quit", args: "" });
		expect(parseSlash("  /model  fake/x  ")).toEqual({ name: "model", args: "fake/x" });
		expect(parseSlash("/ nope")).toBeUndefined();
		expect(parseSlash("//etc/passwd is a path")).toBeUndefined();
		expect(parseSlash("hello /quit")).toBeUndefined();
	});

	test("one command per slash name; removal frees the name", () => {
		const registry = new CommandRegistry();
		const remove = registry.register({ id: "a.one", name: "one", description: "1", run() {} });
		expect(() => registry.register({ id: "b.one", name: "one", description: "again", run() {} })).toThrow(
			"/one is already a command",
		);
		remove();
		expect(registry.get("one")).toBeUndefined();
	});

	test("autocomplete: fuzzy in the first word after /, the argument hint before the description, completion adds a space", async () => {
		const registry = new CommandRegistry();
		registry.register({ id: "app.quit", name: "quit", description: "Quit p2", run() {} });
		registry.register({ id: "app.reload", name: "reload", description: "Reload", run() {} });
		registry.register({
			id: "models.select",
			name: "model",
			argumentHint: "<provider/model>",
			description: "Select model",
			run() {},
		});
		const provider = new SlashAutocomplete(registry);
		const suggest = (line: string) => provider.getSuggestions([line], 0, line.length);
		expect((await suggest("/"))?.items.map((i) => i.value)).toEqual(["quit", "reload", "model"]);
		expect((await suggest("/rel"))?.items.map((i) => i.value)).toEqual(["reload"]);
		expect((await suggest("/mo"))?.items[0]?.description).toBe("<provider/model> — Select model");
		expect(await suggest("say /rel")).toBeNull();
		expect(await provider.getSuggestions(["x", "/rel"], 1, 4)).toBeNull();
		const done = provider.applyCompletion(["/rel"], 0, 4, { value: "reload", label: "reload" }, "/rel");
		expect(done).toEqual({ lines: ["/reload "], cursorLine: 0, cursorCol: 8 });
	});
});
