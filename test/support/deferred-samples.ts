/** What the deferred modules are asked in and out of the sandbox (test/host/deferred-sandbox.test.ts). */
import { highlightLines } from "../../src/ui/highlight.ts";
import { createMermaidTransformer } from "../../src/ui/mermaid.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";

export const DEFERRED_SAMPLES = {
	code: [
		["typescript", "// sum\nfunction add(a: number, b = 1) {\n  return String(a + b);\n}"],
		// An extension: every grammar of `common` is registered to learn the aliases.
		["py", "def f():\n    return 'x'  # done\n"],
		["no-such-language", "x"],
	],
	diagram: "```mermaid\ngraph TD\n  A[Start] --> B{Ready?}\n  B -->|yes| C[End]\n```\n",
} as const;

/** One line per answer: each code sample's highlighted lines, then the diagram as Markdown. */
export function deferredOutputs(samples: typeof DEFERRED_SAMPLES): string[] {
	const theme = Theme.fromJson(BUILTIN_THEMES.dark, "truecolor");
	const out = samples.code.map(
		([language, code]) => `code ${JSON.stringify(highlightLines(code, language, theme) ?? null)}`,
	);
	const diagram = createMermaidTransformer(new ThemeRef(theme))(samples.diagram, 80, { streaming: false });
	out.push(`diagram ${JSON.stringify(diagram)}`);
	return out;
}
