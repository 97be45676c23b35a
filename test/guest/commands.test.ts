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

	test("one command per id; a second slash name loses only its slash form and is reported", () => {
		const registry = new CommandRegistry();
		const remove = registry.register({ id: "a.one", title: "1", slash: { name: "one" }, run() {} });
		expect(() => registry.register({ id: "a.one", title: "again", run() {} })).toThrow("a.one is already a command");
		registry.register({ id: "b.one", title: "other", slash: { name: "one" }, run() {} });
		registry.register({ id: "c.bad", title: "bad", slash: { name: "Bad Name" }, run() {} });
		expect(registry.slash("one")?.id).toBe("a.one");
		expect(registry.problems().map((p) => p.text)).toEqual([
			"/one belongs to a.one; b.one has no slash form",
			'c.bad: "/Bad Name" is not a valid slash name',
		]);
		remove();
		expect(registry.slash("one")?.id).toBe("b.one");
		expect(registry.get("b.one")?.title).toBe("other");
	});

	test("a when that does not parse is reported and its keys never fire", () => {
		const registry = new CommandRegistry();
		registry.register({ id: "x.broken", title: "x", when: "chat &&", run() {} });
		const [entry] = registry.all();
		expect(entry!.when.test(new Set(["chat"]))).toBe(false);
		expect(registry.problems()[0]?.text).toContain('x.broken: when "chat &&": expected a context name');
	});

	test("autocomplete: fuzzy in the first word after /, the argument hint before the title, completion adds a space", async () => {
		const registry = new CommandRegistry();
		registry.register({ id: "app.exit", title: "Quit p2", slash: { name: "quit" }, run() {} });
		registry.register({ id: "p2.tui.reload", title: "Reload", slash: { name: "reload" }, run() {} });
		registry.register({ id: "p2.keysonly", title: "No slash", keys: ["f2"], run() {} });
		registry.register({
			id: "app.model.select",
			title: "Select model",
			slash: {
				name: "model",
				argumentHint: "<provider/model>",
				complete: (prefix) =>
					["fake/a", "fake/b", "other/c"].filter((m) => m.startsWith(prefix)).map((m) => ({ value: m, label: m })),
			},
			run() {},
		});
		const provider = new SlashAutocomplete(registry);
		const suggest = (line: string) => provider.getSuggestions([line], 0, line.length);
		// pi's list order, not the order of registration.
		expect((await suggest("/"))?.items.map((i) => i.value)).toEqual(["model", "reload", "quit"]);
		expect((await suggest("/rel"))?.items.map((i) => i.value)).toEqual(["reload"]);
		expect((await suggest("/mo"))?.items[0]?.description).toBe("<provider/model> — Select model");
		expect(await suggest("say /rel")).toBeNull();
		expect(await provider.getSuggestions(["x", "/rel"], 1, 4)).toBeNull();
		const done = provider.applyCompletion(["/rel"], 0, 4, { value: "reload", label: "reload" }, "/rel");
		expect(done).toEqual({ lines: ["/reload "], cursorLine: 0, cursorCol: 8 });
		// The argument: the command's own completion, replacing only what is typed after the space.
		const args = await suggest("/model fa");
		expect(args?.items.map((i) => i.value)).toEqual(["fake/a", "fake/b"]);
		expect(provider.applyCompletion(["/model fa"], 0, 9, args!.items[1]!, args!.prefix)).toEqual({
			lines: ["/model fake/b"],
			cursorLine: 0,
			cursorCol: 13,
		});
		expect(await suggest("/reload x")).toBeNull();
	});
});

describe("the order commands are listed in", () => {
	test("pi's built-in commands in pi's list order, whatever order they were registered in; others after, as registered", async () => {
		const { CommandRegistry, SlashAutocomplete } = await import("../../src/guest/commands.ts");
		const registry = new CommandRegistry();
		for (const name of ["quit", "share", "p2-own", "resume", "model", "settings", "new", "another"]) {
			registry.register({ id: `x.${name}`, title: name, slash: { name }, run() {} });
		}
		const listed = registry.listed().map((entry) => entry.command.slash?.name ?? "");
		expect(listed).toEqual(["settings", "model", "share", "new", "resume", "quit", "p2-own", "another"]);
		const suggestions = await new SlashAutocomplete(registry).getSuggestions(["/"], 0, 1);
		expect(suggestions?.items.map((item) => item.value)).toEqual(listed);
	});
});
