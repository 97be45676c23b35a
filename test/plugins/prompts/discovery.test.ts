// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pi's placeholders are the text under test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { loadResources, type Resources } from "../../../src/plugins/prompts/discovery.ts";
import { expandInput } from "../../../src/plugins/prompts/expand.ts";
import { IgnoreRules } from "../../../src/plugins/prompts/ignore-rules.ts";
import { skillsPrompt } from "../../../src/plugins/prompts/skills-prompt.ts";
import { type ResourceMachine, resourceMachine } from "./fixture.ts";

let m: ResourceMachine;
let found: Resources;
const rel = (path: string | undefined) => path?.replace(`${m.root}/`, "");

beforeAll(() => {
	m = resourceMachine();
	found = loadResources({ cwd: m.cwd, agentDir: m.agentDir, home: m.home, dataDir: m.dataDir });
});
afterAll(() => rmSync(m.root, { recursive: true, force: true }));

/**
 * What pi 1.6.0's own resource loader found on this same machine (run outside this repository with the fixture
 * of fixture.ts and the server's prompts given as an extra template path): the same names from the same files.
 */
describe("discovery, as pi finds them", () => {
	test("templates: the project's, the person's, the server's; direct .md children only, not ignored ones; the first of a name wins", () => {
		const templates = found.templates.map((t) => [t.name, t.description, t.argumentHint ?? null, rel(t.path), t.scope]);
		expect(templates.sort()).toEqual(
			[
				["deploy", "Deploy ${@:1}", null, "data/prompts/deploy.md", "server"],
				["fix", "Fix it", null, "home/.pi/agent/prompts/fix.md", "user"],
				[
					"notes",
					"First line of the notes template is the description",
					null,
					"work/repo/pkg/app/.pi/prompts/notes.md",
					"project",
				],
				["review", "Review the project", "<file> [focus]", "work/repo/pkg/app/.pi/prompts/review.md", "project"],
			].sort(),
		);
	});

	test("skills: SKILL.md directories found recursively in every pi location, through the ancestors up to the repository; ignore files honoured", () => {
		const skills = found.skills.map((s) => [s.name, rel(s.path), s.hidden]);
		expect(skills.sort()).toEqual(
			[
				["Bad_Name", "home/.pi/agent/skills/Bad_Name/SKILL.md", false],
				["guide", "work/repo/.agents/skills/docs/guide.md", false],
				["here", "work/repo/pkg/app/.agents/skills/here/SKILL.md", false],
				["keep", "work/repo/pkg/app/.pi/skills/keep.tmp.md", false],
				["lint", "work/repo/pkg/app/.pi/skills/lint/SKILL.md", false],
				["mid", "work/repo/pkg/.agents/skills/mid/SKILL.md", false],
				["mine", "home/.pi/agent/skills/mine/SKILL.md", false],
				["new-tool", "home/.pi/agent/skills/tools/new/SKILL.md", false],
				["pdf", "work/repo/pkg/app/.pi/skills/group/pdf/SKILL.md", true],
				["shared", "home/.agents/skills/shared/SKILL.md", false],
				["standalone", "work/repo/pkg/app/.pi/skills/standalone.md", false],
			].sort(),
		);
		// Project first, then the person's (pi's order, which decides clashes and the system prompt's list).
		const order = found.skills.map((s) => s.name);
		expect(order.indexOf("here")).toBeLessThan(order.indexOf("mid"));
		expect(order.indexOf("mid")).toBeLessThan(order.indexOf("guide"));
		expect(order.indexOf("guide")).toBeLessThan(order.indexOf("mine"));
		expect(order.indexOf("mine")).toBeLessThan(order.indexOf("shared"));
	});

	test("warnings: a malformed file, a missing description, a bad name and each clash, never a failure", () => {
		const warnings = found.warnings.map((w) => [w.kind, w.message.split("\n")[0], rel(w.path), rel(w.winner) ?? null]);
		expect(warnings).toEqual([
			["prompt", expect.stringContaining("YAML"), "home/.pi/agent/prompts/broken.md", null],
			[
				"prompt",
				'name "/review" collision',
				"home/.pi/agent/prompts/review.md",
				"work/repo/pkg/app/.pi/prompts/review.md",
			],
			["prompt", 'name "/fix" collision', "data/prompts/fix.md", "home/.pi/agent/prompts/fix.md"],
			["skill", "description is required", "home/.pi/agent/skills/nodesc/SKILL.md", null],
			[
				"skill",
				"name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
				"home/.pi/agent/skills/Bad_Name/SKILL.md",
				null,
			],
			[
				"skill",
				'name "lint" collision',
				"work/repo/.agents/skills/lint/SKILL.md",
				"work/repo/pkg/app/.pi/skills/lint/SKILL.md",
			],
			[
				"skill",
				'name "here" collision',
				"home/.agents/skills/here/SKILL.md",
				"work/repo/pkg/app/.agents/skills/here/SKILL.md",
			],
		]);
	});

	test("an unreadable template is a warning and the others still load", () => {
		const path = join(m.agentDir, "prompts", "locked.md");
		writeFileSync(path, "secret");
		chmodSync(path, 0);
		try {
			const again = loadResources({ cwd: m.cwd, agentDir: m.agentDir, home: m.home, dataDir: m.dataDir });
			// root reads any file: then it simply loads.
			const locked = again.templates.find((t) => t.name === "locked");
			const warned = again.warnings.some((w) => w.path === path);
			expect(Boolean(locked) !== warned).toBe(true);
			expect(again.templates.length).toBeGreaterThanOrEqual(found.templates.length);
		} finally {
			rmSync(path, { force: true });
		}
	});

	test("without a home (a test server's environment), only the project's and the server's are read", () => {
		const bare = loadResources({ cwd: m.cwd, agentDir: undefined, home: undefined, dataDir: m.dataDir });
		expect(bare.templates.map((t) => t.scope).sort()).toEqual(["project", "project", "server", "server"]);
		expect(bare.skills.every((s) => s.scope === "project")).toBe(true);
	});
});

describe("ignore files, with gitignore's rules", () => {
	const rules = (text: string, dir = "/r", root = "/r") => {
		const made = mkdtempSync(join(tmpdir(), "p2-ignore-"));
		const inner = join(made, relative(root, dir));
		mkdirSync(inner, { recursive: true });
		writeFileSync(join(inner, ".gitignore"), text);
		const r = new IgnoreRules();
		r.addFrom(inner, made);
		rmSync(made, { recursive: true, force: true });
		return r;
	};
	test("names, globs, directories only, negation and comments, as pi's ignore package answers", () => {
		const r = rules("# comment\n*.tmp.md\nbuild/\n/top.md\ndocs/**/draft*.md\n!keep.tmp.md\n\\#hash.md\n");
		expect(r.ignores("a.tmp.md", false)).toBe(true);
		expect(r.ignores("sub/b.tmp.md", false)).toBe(true);
		expect(r.ignores("keep.tmp.md", false)).toBe(false);
		expect(r.ignores("build", true)).toBe(true);
		expect(r.ignores("build", false)).toBe(false);
		expect(r.ignores("x/build/SKILL.md", false)).toBe(true);
		expect(r.ignores("top.md", false)).toBe(true);
		// pi drops the leading slash: the pattern is not anchored (the `ignore` package pi uses says the same).
		expect(r.ignores("sub/top.md", false)).toBe(true);
		expect(r.ignores("docs/a/b/draft-1.md", false)).toBe(true);
		expect(r.ignores("docs/final.md", false)).toBe(false);
		expect(r.ignores("#hash.md", false)).toBe(true);
		expect(r.ignores("comment", false)).toBe(false);
	});
	test("a subdirectory's patterns are relative to it (pi)", () => {
		const r = rules("old\n", "/r/tools", "/r");
		expect(r.ignores("tools/old", true)).toBe(true);
		expect(r.ignores("old", true)).toBe(false);
		expect(r.ignores("other/old", true)).toBe(false);
	});
});

describe("expansion", () => {
	test("a template with its arguments; an unknown name or plain text as typed", () => {
		expect(expandInput('/review src/a.ts "error handling"', found)).toEqual({
			text: "Review src/a.ts for error handling.",
			kind: "template",
		});
		expect(expandInput("/review src/a.ts", found).text).toBe("Review src/a.ts for correctness.");
		expect(expandInput("/fix the bug\nplease", found).text).toBe("Fix the bug please now.");
		expect(expandInput("/nothing here", found)).toEqual({ text: "/nothing here", kind: "none" });
		expect(expandInput("review this", found)).toEqual({ text: "review this", kind: "none" });
	});

	test("/skill:name args is pi's skill block, read when invoked; a hidden skill is still invocable", () => {
		const lint = found.skills.find((s) => s.name === "lint")!;
		expect(expandInput("/skill:lint  check src ", found)).toEqual({
			kind: "skill",
			text: `<skill name="lint" location="${lint.path}">\nReferences are relative to ${lint.dir}.\n\nRun the linter.\n</skill>\n\ncheck src`,
		});
		const pdf = found.skills.find((s) => s.name === "pdf")!;
		expect(expandInput("/skill:pdf", found).text).toBe(
			`<skill name="pdf" location="${pdf.path}">\nReferences are relative to ${pdf.dir}.\n\nUse scripts/extract.sh.\n</skill>`,
		);
		expect(expandInput("/skill:nope x", found)).toEqual({ text: "/skill:nope x", kind: "none" });
		const gone = { ...found, skills: [{ ...lint, path: join(m.root, "missing", "SKILL.md") }] };
		expect(expandInput("/skill:lint", gone)).toEqual({ text: "/skill:lint", kind: "none" });
	});
});

describe("the system prompt's skills", () => {
	test("name, description and file of each skill the model may use, in pi's words; hidden ones left out", () => {
		const text = skillsPrompt(found.skills)!;
		expect(
			text.startsWith("<skills>\nThe following skills provide specialized instructions for specific tasks.\n"),
		).toBe(true);
		expect(text.endsWith("</available_skills>\n</skills>")).toBe(true);
		expect(text).toContain("Use the read tool to load a skill's file when the task matches its description.");
		const lint = found.skills.find((s) => s.name === "lint")!;
		expect(text).toContain(
			`  <skill>\n    <name>lint</name>\n    <description>Lint the code</description>\n    <location>${lint.path}</location>\n  </skill>`,
		);
		expect(text).not.toContain("<name>pdf</name>");
		expect(skillsPrompt(found.skills.filter((s) => s.hidden))).toBeNull();
		expect(skillsPrompt([{ ...lint, description: "a <b> & 'c'" }])).toContain(
			"<description>a &lt;b&gt; &amp; &apos;c&apos;</description>",
		);
	});
});
