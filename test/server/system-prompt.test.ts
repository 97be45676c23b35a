import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSystemPrompt, loadContextFiles } from "../../src/server/agent/system-prompt.ts";

let root: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "p2-prompt-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("context files", () => {
	test("one file per directory, root first, with pi's name precedence; the agent dir's file comes first", () => {
		const project = join(root, "project");
		const sub = join(project, "pkg");
		const agent = join(root, "agent");
		mkdirSync(sub, { recursive: true });
		mkdirSync(agent);
		writeFileSync(join(agent, "AGENTS.md"), "global rules");
		writeFileSync(join(project, "CLAUDE.md"), "claude rules");
		writeFileSync(join(project, "AGENTS.md"), "project rules");
		writeFileSync(join(sub, "AGENTS.override.md"), "override");
		writeFileSync(join(sub, "AGENTS.md"), "ignored because the override wins");
		const files = loadContextFiles(sub, agent);
		expect(files.map((f) => f.content)).toEqual(["global rules", "project rules", "override"]);
		expect(files[1]!.path).toBe(join(project, "AGENTS.md"));
	});

	test("a directory named like a context file is skipped", () => {
		mkdirSync(join(root, "AGENTS.md"));
		writeFileSync(join(root, "CLAUDE.md"), "\uFEFFfrom claude");
		expect(loadContextFiles(root).map((f) => f.content)).toEqual(["from claude"]);
	});

	test("the prompt lists the tools, the project instructions and the working directory", () => {
		writeFileSync(join(root, "AGENTS.md"), "Always write tests.");
		const prompt = buildSystemPrompt({ cwd: root, toolNames: ["read", "bash"] });
		expect(prompt).toContain("- read: ");
		expect(prompt).toContain("- bash: ");
		expect(prompt).not.toContain("- edit: ");
		expect(prompt).toContain(
			`<project_instructions path="${join(root, "AGENTS.md")}">\nAlways write tests.\n</project_instructions>`,
		);
		expect(prompt.endsWith(`<cwd>\n${root}\n</cwd>`)).toBe(true);
	});
});
