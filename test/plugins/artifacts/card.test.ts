import { describe, expect, test } from "bun:test";
import { artifactCard } from "../../../src/plugins/artifacts/tui.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import type { ToolCardData } from "../../../src/ui/tools/tool-card.ts";

const theme = new ThemeRef(Theme.ansi());
const plain = (lines: readonly string[]) => lines.map((l) => Bun.stripANSI(l));

function card(args: Record<string, unknown>, expanded = false, details: Record<string, unknown> | null = null) {
	const data: ToolCardData = {
		name: "artifact",
		args,
		state: "success",
		output: "Saved.",
		details,
		elapsedMs: 1,
		expanded,
		home: undefined,
	};
	const view = artifactCard(theme)(data, theme.current, 80);
	return { title: Bun.stripANSI(view.title), body: plain(view.body) };
}

describe("the artifact tool's card", () => {
	const content = ["# Plan", "", ...Array.from({ length: 10 }, (_, i) => `- step ${i + 1}`)].join("\n");

	test("name and version, the first 8 lines, and where to open it", () => {
		const { title, body } = card({ name: "plan.md", content }, false, { version: 3, kind: "markdown" });
		expect(title).toBe("artifact plan.md v3  /artifacts opens");
		expect(body.slice(1, 9)).toEqual([
			"# Plan",
			"",
			"- step 1",
			"- step 2",
			"- step 3",
			"- step 4",
			"- step 5",
			"- step 6",
		]);
		expect(body[9]).toBe("... (4 more lines, ctrl+o to expand)");
	});

	test("expanded: all of it, Markdown rendered", () => {
		const { body } = card({ name: "plan.md", content }, true);
		expect(body.map((l) => l.trimEnd())).toContain("Plan");
		expect(body.map((l) => l.trimEnd())).toContain("- step 10");
		expect(body.join("\n")).not.toContain("# Plan");
	});

	test("HTML and SVG are named, not shown; server text is shown as text", () => {
		expect(card({ name: "page.html", content: "<script>alert(1)</script>" }).body).toEqual([
			"",
			"HTML · 25 B · source only here",
		]);
		const { title, body } = card({ name: "evil\x1b]0;x\x07.txt", content: "a\x1b[2Jb" });
		// The escapes are made visible (control pictures) before styling: none reaches the terminal as a sequence.
		expect(title).toContain("evil\u241b]0;x\u2407.txt");
		expect(body.join("")).toContain("a\u241b[2Jb");
	});
});
