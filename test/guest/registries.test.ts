import { describe, expect, test } from "bun:test";
import { Text } from "@earendil-works/pi-tui";
import { EntryRenderers, MarkdownTransformers, ToolRenderers } from "../../src/guest/registries.ts";
import { type } from "../../src/protocol/ark.ts";
import { arktypeChecks } from "../../src/protocol/arktype-checks.ts";
import { defineEntry } from "../../src/protocol/entry-schema.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";
import { ToolCard, type ToolCardData } from "../../src/ui/tools/tool-card.ts";
import { AssistantMessage } from "../../src/ui/transcript/assistant-message.ts";

const theme = () => new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
const plain = (lines: readonly string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, "").trimEnd());
const card = (over: Partial<ToolCardData>): ToolCardData => ({
	name: "bash",
	args: { command: "make test" },
	state: "success",
	output: "ok",
	details: null,
	elapsedMs: 0,
	expanded: false,
	home: undefined,
	...over,
});

describe("tool renderers", () => {
	test("by name, then ordered resolvers that can defer with next(); each registration can be removed", () => {
		const registry = new ToolRenderers();
		const render = (data: ToolCardData) => plain(new ToolCard(theme(), data, (d) => registry.resolve(d)).render(60));
		expect(render(card({}))[2]).toBe(" $ make test");
		const removeByName = registry.register("deploy", () => ({ title: "DEPLOY", body: [] }));
		expect(render(card({ name: "deploy" }))[2]).toBe(" DEPLOY");
		const seen: string[] = [];
		const removeFirst = registry.addResolver((data, next) => {
			seen.push("first");
			return data.args.command === "make test" ? () => ({ title: "TESTS", body: ["green"] }) : next();
		});
		registry.addResolver((_data, next) => {
			seen.push("second");
			return next();
		});
		expect(render(card({}))).toContain(" TESTS");
		expect(render(card({ args: { command: "ls" } }))[2]).toBe(" $ ls");
		expect(seen).toEqual(["first", "first", "second"]);
		removeFirst();
		removeByName();
		expect(render(card({}))[2]).toBe(" $ make test");
		expect(render(card({ name: "deploy", args: { x: 1 } }))[2]).toBe(" deploy x=1");
	});
});

describe("Markdown transformers", () => {
	test("run in order before parsing; one that throws is skipped", () => {
		const transformers = new MarkdownTransformers();
		transformers.add((md) => md.replace("TODO", "**done**"));
		transformers.add(() => {
			throw new Error("broken plugin");
		});
		transformers.add((md, width) => `${md} (${width})`);
		const message = new AssistantMessage(theme(), {
			parts: [{ type: "text", text: "TODO here" }],
			hideThinking: false,
		});
		message.transform = (md, width) => transformers.apply(md, width);
		const lines = message.render(40);
		expect(plain(lines)).toEqual(["", " done here (38)"]);
		expect(lines[1]).toContain("\x1b[1m");
	});
});

describe("slots", () => {
	test("components in named places and footer statuses sorted by key; each can be removed", async () => {
		const { Slots } = await import("../../src/guest/registries.ts");
		const { Text } = await import("@earendil-works/pi-tui");
		let changes = 0;
		const slots = new Slots(() => changes++);
		const remove = slots.add("widgets:above", new Text("widget", 0, 0));
		expect(plain(slots.container("widgets:above").render(20))).toEqual(["widget"]);
		slots.setStatus("b-plugin", "second");
		slots.setStatus("a-plugin", "first");
		expect(slots.statuses()).toEqual(["first", "second"]);
		slots.setStatus("a-plugin", undefined);
		expect(slots.statuses()).toEqual(["second"]);
		remove();
		expect(slots.container("widgets:above").render(20)).toEqual([]);
		expect(changes).toBe(5);
	});
});

describe("compaction and fresh-context entries, and entry renderers", () => {
	test("pi's compaction block: collapsed to one line with the expand key, the whole summary when expanded", async () => {
		const { CompactionSummary } = await import("../../src/ui/transcript/compaction-summary.ts");
		const data = { summary: "## Goal\n- ship it", tokensBefore: 12345, expanded: false, expandKey: "ctrl+o" };
		const collapsed = plain(new CompactionSummary(theme(), data).render(60));
		expect(collapsed).toContain(" [compaction]");
		expect(collapsed).toContain(" Compacted from 12,345 tokens (ctrl+o to expand)");
		const expanded = plain(new CompactionSummary(theme(), { ...data, expanded: true }).render(60)).join("\n");
		expect(expanded).toContain("Compacted from 12,345 tokens");
		expect(expanded).toContain("ship it");
		const { ResetMarker } = await import("../../src/ui/transcript/reset-marker.ts");
		const marker = plain(new ResetMarker(theme(), { handoff: "plan B\u001b[2J" }).render(70));
		expect(marker.some((l) => l.includes("new context: the model does not see what is above"))).toBe(true);
		expect(marker.join("\n")).toContain("Handoff: plan B");
		expect(marker.join("\n")).not.toContain("\u001b[2J");
	});

	test("a plugin's renderer draws entries of its kind instead; a throwing one is skipped; removal restores", async () => {
		const { EntryRenderers } = await import("../../src/guest/registries.ts");
		const { Text } = await import("@earendil-works/pi-tui");
		const registry = new EntryRenderers(arktypeChecks);
		const entry = { seq: 1, at: 1, kind: "reset" as const, handoff: null };
		expect(registry.has("reset")).toBe(false);
		const remove = registry.register("reset", (e) => new Text(`custom ${e.kind}`, 0, 0));
		registry.register("reset", () => {
			throw new Error("broken plugin");
		});
		expect(registry.has("reset")).toBe(true);
		expect(plain(registry.resolve(entry, theme())!.render(40))).toEqual(["custom reset"]);
		const before = registry.version;
		remove();
		expect(registry.version).not.toBe(before);
		expect(registry.resolve(entry, theme())).toBeUndefined();
	});
});

describe("a plugin's entries, checked against their schema before they are drawn", () => {
	const Note = defineEntry("notes.note", type({ text: "string", "pinned?": "boolean" }));
	const note = (data: unknown) => ({ seq: 4, at: 4, kind: "plugin", type: "notes.note", author: null, data });

	test("the renderer gets the data typed as its schema says; data the schema refuses never reaches it", () => {
		const registry = new EntryRenderers(arktypeChecks);
		const seen: { text: string; pinned: boolean | undefined }[] = [];
		registry.registerEntry(Note, ({ entry, data }) => {
			seen.push({ text: data.text, pinned: data.pinned });
			return new Text(`#${entry.seq} ${data.text}`, 0, 0);
		});
		expect(
			plain(registry.resolve(note({ text: "buy milk", pinned: true }), theme(), "notes.note")!.render(40)),
		).toEqual(["#4 buy milk"]);
		for (const bad of [{ text: 7 }, { pinned: true }, null, "text", { text: "x", pinned: "yes" }]) {
			const drawn = registry.resolve(note(bad), theme(), "notes.note");
			expect(plain(drawn!.render(60)).join("\n")).toContain("(a notes.note entry that could not be read)");
		}
		expect(seen).toEqual([{ text: "buy milk", pinned: true }]);
		expect(registry.check(Note, note({ text: "x" }))?.data).toEqual({ text: "x" });
		expect(registry.check(Note, note({ text: 1 }))).toBeUndefined();
		expect(registry.check(Note, { seq: 1, kind: "user" })).toBeUndefined();
	});

	test("a plugin's entry type is registered only with its schema", () => {
		const registry = new EntryRenderers(arktypeChecks);
		expect(() => registry.register("notes.note", () => undefined)).toThrow(
			"notes.note is a plugin's entry type: register it with its schema",
		);
		expect(() => defineEntry("Notes", type({}))).toThrow('"Notes" is not <plugin>.<name>');
	});
});

describe("a person's ! command in the transcript", () => {
	test("pi's block: bash-mode rules, $ cmd, the last 20 lines with the expand hint, and how it ended", async () => {
		const { ShellBlock } = await import("../../src/ui/transcript/shell-block.ts");
		const output = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n");
		const base = {
			command: "make test",
			output,
			running: false,
			exitCode: 1,
			cancelled: false,
			includeInContext: true,
			expanded: false,
			expandKey: "ctrl+o",
			interruptKey: "escape",
		};
		const lines = plain(new ShellBlock(theme(), base).render(60));
		expect(lines[1]).toBe("─".repeat(60));
		expect(lines[2]).toBe(" $ make test");
		expect(lines).not.toContain(" line 5");
		expect(lines).toContain(" line 6");
		expect(lines).toContain(" line 25");
		expect(lines).toContain(" ... 5 more lines (ctrl+o to expand)");
		expect(lines).toContain(" (exit 1)");
		expect(lines.at(-1)).toBe("─".repeat(60));
		expect(plain(new ShellBlock(theme(), { ...base, expanded: true }).render(60))).toContain(" line 1");
		const running = plain(new ShellBlock(theme(), { ...base, running: true, output: "" }).render(60));
		expect(running).toContain(" Running... (escape to cancel)");
		expect(plain(new ShellBlock(theme(), { ...base, cancelled: true }).render(60))).toContain(" (cancelled)");
		const ok = plain(new ShellBlock(theme(), { ...base, exitCode: 0, output: "fine" }).render(60));
		expect(ok.join("\n")).not.toContain("(exit");
	});

	test("the output's lines as pi shows them: its final newline is a blank line before the closing rule", async () => {
		const { ShellBlock } = await import("../../src/ui/transcript/shell-block.ts");
		const block = (output: string) =>
			plain(
				new ShellBlock(theme(), {
					command: "echo hi",
					output,
					running: false,
					exitCode: 0,
					cancelled: false,
					includeInContext: true,
					expanded: false,
					expandKey: "ctrl+o",
					interruptKey: "escape",
				}).render(30),
			);
		expect(block("hi\n").slice(-3)).toEqual([" hi", "", "─".repeat(30)]);
		expect(block("hi").slice(-2)).toEqual([" hi", "─".repeat(30)]);
		expect(block("a\n\n\n").slice(-5)).toEqual([" a", "", "", "", "─".repeat(30)]);
	});
});
