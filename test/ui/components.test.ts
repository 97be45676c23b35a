import { describe, expect, test } from "bun:test";
import { visibleWidth } from "@earendil-works/pi-tui";
import { Footer, type FooterData } from "../../src/ui/footer.ts";
import { Header } from "../../src/ui/header.ts";
import { formatTokens, visibleText } from "../../src/ui/text.ts";
import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";
import { ToolCard, type ToolCardData } from "../../src/ui/tools/tool-card.ts";
import { AssistantMessage } from "../../src/ui/transcript/assistant-message.ts";
import { UserMessage } from "../../src/ui/transcript/user-message.ts";

const dark = () => new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
const plain = (lines: readonly string[]) =>
	lines.map((l) => l.replace(/\x1b\[[0-9;]*m|\x1b\]133;[ABC]\x07/g, "").trimEnd());
const WIDTHS = [40, 80, 120];

const tool = (over: Partial<ToolCardData>): ToolCardData => ({
	name: "bash",
	args: { command: "ls" },
	state: "success",
	output: "",
	details: null,
	elapsedMs: 1234,
	expanded: false,
	home: "/home/me",
	...over,
});

describe("text from the server", () => {
	test("control characters are made visible, never emitted", () => {
		const shown = visibleText("a\x1b[31mred\x07\x9b2J\tb\r\nc");
		expect(shown).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
		expect(shown).toBe("a␛[31mred␇\ufffd2J    b\nc");
	});

	test("token counts are formatted like pi's", () => {
		expect([999, 1234, 34_500, 345_678, 1_234_567, 12_345_678].map(formatTokens)).toEqual([
			"999",
			"1.2k",
			"35k",
			"346k",
			"1.2M",
			"12M",
		]);
	});
});

describe("user message", () => {
	test("a blank line, then the text on userMessageBg with a padding row above and below, at every width", () => {
		for (const width of WIDTHS) {
			const lines = new UserMessage(dark(), { text: "run **tools** now" }).render(width);
			expect(plain(lines)).toEqual(["", "", " run tools now", ""]);
			for (const line of lines.slice(1)) {
				expect(line).toContain("\x1b[48;2;33;59;73m");
				expect(visibleWidth(line)).toBe(width);
			}
			expect(lines[2]).toContain("\x1b[38;2;222;224;225m");
			// pi's prompt marks, which pi-tui uses to jump between messages and strips before writing.
			expect(lines[1]!.startsWith("\x1b]133;A\x07")).toBe(true);
			expect(lines[3]!.startsWith("\x1b]133;B\x07\x1b]133;C\x07")).toBe(true);
			expect(lines[2]).toContain("\x1b[1m");
		}
	});

	test("long text wraps inside the block", () => {
		const lines = plain(new UserMessage(dark(), { text: "word ".repeat(30).trim() }).render(40));
		expect(lines.length).toBeGreaterThan(5);
		expect(lines.every((l) => l.length <= 40)).toBe(true);
	});
});

describe("assistant message", () => {
	test("Markdown with one column of padding; thinking in italic thinkingText; an error notice", () => {
		const message = new AssistantMessage(dark(), {
			parts: [
				{ type: "thinking", text: "pondering", redacted: false },
				{ type: "text", text: "Here is `code` and **bold**." },
			],
			stopReason: "error",
			error: "500: boom",
			hideThinking: false,
		});
		const lines = message.render(80);
		expect(plain(lines)).toEqual(["", " pondering", "", " Here is code and bold.", "", " Error: 500: boom"]);
		expect(lines[1]).toContain("\x1b[3m");
		expect(lines[1]).toContain("\x1b[38;2;150;160;164m");
		expect(lines[3]).toContain("\x1b[38;2;167;152;215mcode");
		expect(lines[5]).toContain("\x1b[38;2;234;127;129m");
	});

	test("hidden thinking is one Thinking... label; abort and truncation have pi's notices", () => {
		const hidden = new AssistantMessage(dark(), {
			parts: [
				{ type: "thinking", text: "secret plan", redacted: false },
				{ type: "text", text: "ok" },
			],
			stopReason: "aborted",
			hideThinking: true,
		});
		expect(plain(hidden.render(60))).toEqual(["", " Thinking...", "", " ok", "", " Operation aborted"]);
		const cut = new AssistantMessage(dark(), {
			parts: [{ type: "text", text: "par" }],
			stopReason: "length",
			hideThinking: false,
		});
		expect(plain(cut.render(60)).at(-1)).toBe(" Response was truncated before completion.");
	});
});

describe("a streaming answer", () => {
	test("grows in place: each update shows the new text, a new part or a notice rebuilds", () => {
		const message = new AssistantMessage(dark(), {
			parts: [
				{ type: "thinking", text: "plan", redacted: false },
				{ type: "text", text: "Hel" },
			],
			hideThinking: false,
		});
		expect(plain(message.render(60))).toEqual(["", " plan", "", " Hel"]);
		message.update({
			parts: [
				{ type: "thinking", text: "plan", redacted: false },
				{ type: "text", text: "Hello **world**" },
			],
			hideThinking: false,
		});
		expect(plain(message.render(60))).toEqual(["", " plan", "", " Hello world"]);
		message.update({
			parts: [
				{ type: "thinking", text: "plan", redacted: false },
				{ type: "text", text: "Hello **world**" },
				{ type: "text", text: "More." },
			],
			stopReason: "aborted",
			hideThinking: false,
		});
		expect(plain(message.render(60))).toEqual([
			"",
			" plan",
			"",
			" Hello world",
			"",
			" More.",
			"",
			" Operation aborted",
		]);
	});

	test("controls split across appends (a CR before its LF, an escape, a tab) show as in the whole text", () => {
		const full = "one\r\ntwo\x1b[31m red?\tend\r\n\x07bell \u0085next";
		const whole = new AssistantMessage(dark(), { parts: [{ type: "text", text: full }], hideThinking: false });
		const growing = new AssistantMessage(dark(), { parts: [{ type: "text", text: full[0]! }], hideThinking: false });
		for (let i = 2; i <= full.length; i++) {
			growing.update({ parts: [{ type: "text", text: full.slice(0, i) }], hideThinking: false });
			growing.render(60);
		}
		expect(growing.render(60)).toEqual(whole.render(60));
		expect(plain(growing.render(60)).join("\n")).toContain("two␛[31m red?    end");
		// A text that is not the shown one grown (a retry's new answer) is shown whole, not appended.
		growing.update({ parts: [{ type: "text", text: "Other\r\n" }], hideThinking: false });
		expect(growing.render(60)).toEqual(
			new AssistantMessage(dark(), { parts: [{ type: "text", text: "Other\r\n" }], hideThinking: false }).render(60),
		);
	});
});

describe("tool cards", () => {
	test("bash collapsed: the last five visual lines under an earlier-lines hint, then Took; the state's background", () => {
		const output = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
		const narrow = new ToolCard(dark(), tool({ args: { command: "seq 12" }, output })).render(40);
		expect(narrow.slice(1).every((l) => visibleWidth(l) === 40)).toBe(true);
		for (const width of [80, 120]) {
			const lines = new ToolCard(dark(), tool({ args: { command: "seq 12" }, output })).render(width);
			expect(plain(lines)).toEqual([
				"",
				"",
				" $ seq 12",
				"",
				" ... (7 earlier lines, ctrl+o to expand)",
				" line 8",
				" line 9",
				" line 10",
				" line 11",
				" line 12",
				"",
				" Took 1.2s",
				"",
			]);
			for (const line of lines.slice(1)) expect(line).toContain("\x1b[48;2;37;65;49m");
		}
	});

	test("bash expanded shows every line; a failing command is red with its exit code; a running one counts", () => {
		const output = "a\nb\nc\nd\ne\nf";
		expect(
			plain(new ToolCard(dark(), tool({ output, expanded: true })).render(80)).filter((l) => /^ [a-f]$/.test(l)),
		).toHaveLength(6);
		const failed = new ToolCard(dark(), tool({ state: "error", output: "oops", details: { exitCode: 3 } })).render(80);
		expect(plain(failed)).toContain(" Command exited with code 3");
		expect(failed[2]).toContain("\x1b[48;2;91;40;42m");
		const running = new ToolCard(dark(), tool({ state: "pending", elapsedMs: 2000 })).render(80);
		expect(plain(running)).toContain(" Elapsed 2.0s");
		expect(running[2]).toContain("\x1b[48;2;52;56;58m");
	});

	test("read shows only its title (path with ~) when collapsed; edit draws pi's diff with changed words reversed", () => {
		const read = new ToolCard(
			dark(),
			tool({ name: "read", args: { path: "/home/me/proj/a.ts", offset: 5, limit: 10 }, output: "x" }),
		);
		expect(plain(read.render(80))).toEqual(["", "", " read ~/proj/a.ts:5-14", ""]);
		const diff = ' 1 def main():\n-2     print("hello")\n+2     print("goodbye")\n 3';
		const edit = new ToolCard(
			dark(),
			tool({ name: "edit", args: { path: "/tmp/hello.py" }, details: { diff } }),
		).render(80);
		expect(plain(edit)).toEqual([
			"",
			"",
			" edit /tmp/hello.py",
			"",
			"  1 def main():",
			' -2     print("hello")',
			' +2     print("goodbye")',
			"  3",
			"",
		]);
		expect(edit[5]).toContain("\x1b[38;2;234;127;129m");
		expect(edit[5]).toContain('print("\x1b[7mhello\x1b[27m")');
		expect(edit[6]).toContain("\x1b[38;2;104;183;141m");
		expect(edit[6]).toContain('print("\x1b[7mgoodbye\x1b[27m")');
	});

	test("a tool without a renderer: bold name, key=value arguments cut at 100, the first ten output lines", () => {
		const output = Array.from({ length: 14 }, (_, i) => `r${i}`).join("\n");
		const lines = plain(
			new ToolCard(dark(), tool({ name: "search_web", args: { q: "x".repeat(120) }, output })).render(160),
		);
		expect(lines[2]).toBe(` search_web q=${"x".repeat(98)}…`);
		expect(lines).toContain(" r9");
		expect(lines).not.toContain(" r10");
		expect(lines).toContain(" ... (4 more lines, ctrl+o to expand)");
	});

	test("a theme swap rebuilds an already rendered card", () => {
		const ref = dark();
		const card = new ToolCard(ref, tool({ output: "x" }));
		const before = card.render(80);
		ref.set(Theme.fromJson(BUILTIN_THEMES.light, "truecolor"));
		const after = card.render(80);
		expect(plain(after)).toEqual(plain(before));
		expect(after[2]).toContain("\x1b[48;2;222;233;225m");
		expect(after[2]).not.toBe(before[2]);
	});

	test("output from the server cannot carry control sequences onto the screen", () => {
		const lines = new ToolCard(dark(), tool({ output: "\x1b]52;c;AAAA\x07\x1b[2Jgone", expanded: true })).render(80);
		for (const line of lines) {
			expect(line).not.toContain("\x1b]");
			expect(line).not.toContain("\x1b[2J");
		}
		expect(plain(lines).join("\n")).toContain("␛]52;c;AAAA␇␛[2Jgone");
	});
});

describe("header and footer", () => {
	test("the header: pi's logo, the place instead of the version, the bound keys", () => {
		const header = new Header(dark(), {
			place: "127.0.0.1:4000 · this device",
			hints: [
				{ key: "escape", description: "interrupt" },
				{ key: "ctrl+o", description: "more" },
			],
			help: "Press ctrl+o to show full startup help.",
			expanded: false,
		});
		const lines = header.render(120);
		expect(plain(lines)).toEqual([
			"",
			" ▀▀█  127.0.0.1:4000 · this device",
			" █▀ █ escape interrupt · ctrl+o more",
			" Press ctrl+o to show full startup help.",
		]);
		expect(lines[1]).toContain("\x1b[38;2;228;138;122;48;2;79;142;179m▀");
		expect(plain(header.render(20)).every((l) => visibleWidth(l) <= 20)).toBe(true);
	});

	const footer = (over: Partial<FooterData> = {}): FooterData => ({
		cwd: "/home/me/proj",
		home: "/home/me",
		title: "my demo session",
		usage: { input: 5200, output: 1700, cacheRead: 1000, cacheWrite: 0, cost: 0.042 },
		cacheHitRate: 0.162,
		contextTokens: 1600,
		model: { id: "fake-coder", provider: "fake", contextWindow: 200_000, reasoning: true },
		thinkingLevel: "medium",
		statuses: [],
		...over,
	});

	test("the footer: cwd (branch) • title, pi's stats, model • level right-aligned", () => {
		const lines = plain(new Footer(dark(), footer()).render(100));
		expect(lines[0]).toBe("~/proj • my demo session");
		expect(plain(new Footer(dark(), footer({ branch: "main" })).render(100))[0]).toBe(
			"~/proj (main) • my demo session",
		);
		expect(lines[1]).toMatch(/^↑5\.2k ↓1\.7k R1\.0k CH16\.2% \$0\.042 0\.8%\/200k +fake-coder • medium$/);
		expect(lines[1]!.length).toBe(100);
	});

	test("no model: unknown and 0.0%/0; a high context share turns to warning, then error", () => {
		const none = plain(new Footer(dark(), footer({ model: null, usage: undefined, contextTokens: null })).render(60));
		expect(none[1]).toMatch(/^0\.0%\/0 +unknown$/);
		const warm = new Footer(dark(), footer({ contextTokens: 150_000 })).render(100);
		expect(warm[1]).toContain("\x1b[38;2;205;154;34m75.0%/200k");
		const hot = new Footer(dark(), footer({ contextTokens: 190_000 })).render(100);
		expect(hot[1]).toContain("\x1b[38;2;234;127;129m95.0%/200k");
	});

	test("pi's (auto) when the server compacts by itself, and ? while the size is unknown after a compaction", () => {
		const auto = plain(new Footer(dark(), footer({ autoCompaction: true })).render(100));
		expect(auto[1]).toContain("0.8%/200k (auto)");
		const unknown = plain(new Footer(dark(), footer({ autoCompaction: true, contextUnknown: true })).render(100));
		expect(unknown[1]).toContain("?/200k (auto)");
	});

	test("with more than one provider, pi names the model's provider when there is room", () => {
		const two = plain(new Footer(dark(), footer({ providers: 2 })).render(100));
		expect(two[1]).toMatch(/ {2,}\(fake\) fake-coder • medium$/);
		expect(plain(new Footer(dark(), footer({ providers: 1 })).render(100))[1]).toMatch(/ {2,}fake-coder • medium$/);
		// No room: the provider goes first.
		const narrow = plain(new Footer(dark(), footer({ providers: 2 })).render(64));
		expect(narrow[1]).toMatch(/ {2,}fake-coder • medium$/);
	});

	test("narrow: the model part is cut, never the stats", () => {
		const lines = plain(new Footer(dark(), footer()).render(50));
		expect(lines[1]!.startsWith("↑5.2k ↓1.7k R1.0k CH16.2% $0.042 0.8%/200k")).toBe(true);
		expect(visibleWidth(lines[1]!)).toBeLessThanOrEqual(50);
	});

	test("given equal data again (every streamed frame), the footer keeps its lines; new data draws anew", () => {
		const shown = new Footer(dark(), footer());
		const first = shown.render(100);
		shown.set(footer());
		expect(shown.render(100)).toBe(first);
		shown.set(footer({ branch: "main" }));
		const second = shown.render(100);
		expect(second).not.toBe(first);
		expect(plain(second)[0]).toContain("(main)");
	});
});

describe("pi's loaded resources under the startup header", () => {
	test("[Context]: short names in a comma list, full paths (Ctrl+O) one per line; nothing when quiet or empty", async () => {
		const { StartupResources } = await import("../../src/ui/startup-resources.ts");
		const data = {
			context: ["/home/me/AGENTS.md", "/home/me/proj/AGENTS.md", "/srv/CLAUDE.md"],
			skills: [],
			prompts: [],
			cwd: "/home/me/proj",
			home: "/home/me",
			expanded: false,
			hidden: false,
		};
		const resources = new StartupResources(dark(), data);
		expect(plain(resources.render(80))).toEqual(["", "", "[Context]", "  ~/AGENTS.md, AGENTS.md, /srv/CLAUDE.md", ""]);
		expect(resources.render(80)[2]).toBe(dark().current.fg("mdHeading", "[Context]"));
		resources.set({ ...data, expanded: true });
		expect(plain(resources.render(80)).slice(2)).toEqual([
			"[Context]",
			"  ~/AGENTS.md",
			"  ~/proj/AGENTS.md",
			"  /srv/CLAUDE.md",
			"",
		]);
		resources.set({ ...data, skills: ["zeta", "alpha"], prompts: ["review"] });
		expect(plain(resources.render(80)).slice(5)).toEqual([
			"[Skills]",
			"  alpha, zeta",
			"",
			"[Prompts]",
			"  /review",
			"",
		]);
		resources.set({ ...data, hidden: true });
		expect(resources.render(80)).toEqual([]);
		resources.set({ ...data, context: [] });
		expect(resources.render(80)).toEqual([]);
	});
});

describe("syntax highlighting", () => {
	test("code blocks and files are highlighted into pi's syntax tokens; unknown languages keep their color", async () => {
		const { highlightLines } = await import("../../src/ui/highlight.ts");
		const theme = Theme.fromJson(BUILTIN_THEMES.dark, "truecolor");
		const lines = highlightLines("// sum\nfunction add(a, b) {\n  return a + 1;\n}", "typescript", theme)!;
		expect(lines).toHaveLength(4);
		expect(lines[0]).toBe("\x1b[38;2;157;165;169m// sum\x1b[39m");
		expect(lines[1]).toContain("\x1b[38;2;105;173;208mfunction\x1b[39m");
		expect(lines[1]).toContain("\x1b[38;2;205;154;34madd\x1b[39m");
		expect(lines[2]).toContain("\x1b[38;2;104;183;141m1\x1b[39m");
		expect(highlightLines("x", "no-such-language", theme)).toBeUndefined();

		const card = new ToolCard(
			dark(),
			tool({ name: "write", args: { path: "/tmp/a.py", content: "def f():\n    return 'x'\n" } }),
		);
		const written = card.render(80);
		expect(written.some((l) => l.includes("\x1b[38;2;105;173;208mdef\x1b[39m"))).toBe(true);
		expect(written.some((l) => l.includes("\x1b[38;2;222;141;90m'x'\x1b[39m"))).toBe(true);
	});

	test("code highlighted again (a streamed answer's finished blocks) is the same, whatever was done to the last copy", async () => {
		const { highlightLines } = await import("../../src/ui/highlight.ts");
		const dark = Theme.fromJson(BUILTIN_THEMES.dark, "truecolor");
		const light = Theme.fromJson(BUILTIN_THEMES.light, "truecolor");
		const first = highlightLines("const a = 1;\nconst b = 2;", "ts", dark)!;
		const expected = [...first];
		first.length = 0;
		expect(highlightLines("const a = 1;\nconst b = 2;", "ts", dark)).toEqual(expected);
		// Another theme colors the same code its own way.
		expect(highlightLines("const a = 1;\nconst b = 2;", "ts", light)).not.toEqual(expected);
		expect(highlightLines("const a = 1;", "no-such-language", dark)).toBeUndefined();
		expect(highlightLines("const a = 1;", "no-such-language", dark)).toBeUndefined();
	});

	test("a Markdown code block in an answer is highlighted", () => {
		const message = new AssistantMessage(dark(), {
			parts: [{ type: "text", text: "```python\nimport os\n```" }],
			hideThinking: false,
		});
		const lines = message.render(60);
		expect(lines.some((l) => l.includes("\x1b[38;2;105;173;208mimport\x1b[39m"))).toBe(true);
		expect(plain(lines)).toContain(" ```python");
	});
});

describe("streaming Markdown", () => {
	const texts = [
		"# Title\n\nFirst paragraph with **bold**.\n\n## Part\n\n- one\n- two\n\n- loose\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n> quote\n\nend",
		"Para one.\n\n\n\nPara after blank lines.\n\n1. first\n2. second\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\nlast",
		"See [the docs][d] for more.\n\nAnother paragraph.\n\n[d]: https://example.com",
		"Unclosed fence:\n\n```\ncode\n\nstill code",
		"1. Step one\n\n   continued inside the item\n\n2. Step two\n   - nested\n\n     nested para\n\nAfter the list.",
		"<details>\n\n<summary>x</summary>\n\n</details>\n\nText with `code`\n\n    indented code\n\n    more indented\n\nend",
		"Setext heading\n===\n\nText\n\n~~~\ntilde fence\n\n~~~\n\n* star list\n\n* second\n\nDone.",
		// Long paragraphs (frozen in chunks while they grow), and what must melt the chunks back.
		lines(40),
		`${lines(40)}\n===\n\nafter`,
		`${lines(20)}\n- a list interrupts\n- here\n\nend`,
		`${lines(17)} **bold\nacross** the cut ${lines(20)}\n`,
		`${lines(18)}\n1. ordered\n2. two`,
		`${lines(18)}\n2024 was a year\n${lines(18)}`,
		`${lines(18)}  \nhard break above\n${lines(18)}\n\n${lines(20)}\n---\nunder`,
		`${lines(16)} \`code\nacross\` and snake_case_name ${lines(20)}\n\n| a | b |\n|---|---|\n| 1 | 2 |`,
	];

	test("a text streamed in small pieces always renders exactly as the whole text would", async () => {
		const { Markdown } = await import("@earendil-works/pi-tui");
		const { StreamingMarkdown } = await import("../../src/ui/streaming-markdown.ts");
		const theme = dark().markdownTheme();
		for (const full of texts) {
			const streaming = new StreamingMarkdown("", 1, 0, theme);
			// Every length of a short text; of a long one, every length around a line's end and every few in between.
			const long = full.length > 600;
			for (let i = 1; i <= full.length; i++) {
				const text = full.slice(0, i);
				streaming.setText(text);
				const nearLineEnd = full[i - 1] === "\n" || full[i] === "\n" || full[i - 2] === "\n";
				if (long && !nearLineEnd && i % 11 !== 0) continue;
				for (const width of long ? [100] : [40, 100]) {
					expect(streaming.render(width)).toEqual(new Markdown(text, 1, 0, theme).render(width));
				}
			}
			streaming.setText(full);
			expect(streaming.render(80)).toEqual(new Markdown(full, 1, 0, theme).render(80));
		}
	});

	test("appends that close several blocks at once (a frame's worth of text) render as the whole text would", async () => {
		const { Markdown } = await import("@earendil-works/pi-tui");
		const { StreamingMarkdown } = await import("../../src/ui/streaming-markdown.ts");
		const theme = dark().markdownTheme();
		for (const full of texts) {
			for (const step of [9, 37, 120]) {
				const streaming = new StreamingMarkdown("", 1, 0, theme);
				for (let i = step; i < full.length + step; i += step) {
					const text = full.slice(0, i);
					streaming.setText(text);
					expect(streaming.render(100)).toEqual(new Markdown(text, 1, 0, theme).render(100));
				}
			}
		}
	});
});

/** `n` plain lines of prose, as a model writes a long paragraph. */
function lines(n: number): string {
	return Array.from({ length: n }, (_, i) => `Line ${i} of a long paragraph, with a few words`).join("\n");
}

describe("Mermaid", () => {
	test("a mermaid block in an answer is drawn as a diagram in the theme's colors; too wide or invalid keeps its source", async () => {
		const { createMermaidTransformer } = await import("../../src/ui/mermaid.ts");
		const ref = dark();
		const mermaid = createMermaidTransformer(ref);
		const message = new AssistantMessage(ref, {
			parts: [{ type: "text", text: "Flow:\n\n```mermaid\ngraph LR\n  A[Start] --> B[End]\n```" }],
			stopReason: "stop",
			hideThinking: false,
		});
		message.transform = (md, width) => mermaid(md, width, { streaming: message.streaming });
		const lines = message.render(80);
		const shown = plain(lines).join("\n");
		expect(shown).toContain("Start");
		expect(shown).toContain("End");
		expect(shown).toMatch(/[┌└│─]/);
		expect(shown).not.toContain("graph LR");
		expect(lines.join("\n")).toContain("\x1b[38;2;118;129;134m");

		const narrow = new AssistantMessage(ref, {
			parts: [
				{
					type: "text",
					text: "```mermaid\ngraph LR\n  A[A very long starting label] --> B[Another very long label]\n```",
				},
			],
			stopReason: "stop",
			hideThinking: false,
		});
		narrow.transform = (md, width) => mermaid(md, width, { streaming: false });
		expect(plain(narrow.render(30)).join("\n")).toContain("graph LR");
	});

	test("a diagram in what a person wrote is drawn too (pi); an unclosed block's warning shows no stray backticks", async () => {
		const { createMermaidTransformer } = await import("../../src/ui/mermaid.ts");
		const ref = dark();
		const mermaid = createMermaidTransformer(ref);
		const user = new UserMessage(ref, { text: "```mermaid\ngraph TD\n  A[Start] --> B[End]\n```" });
		user.transform = (md, width) => mermaid(md, width, { streaming: false });
		const drawn = plain(user.render(80)).join("\n");
		expect(drawn).toMatch(/│ Start │/);
		expect(drawn).not.toContain("graph TD");

		const open = new UserMessage(ref, { text: "```mermaid\ngraph TD\n  A[Start] -->" });
		open.transform = (md, width) => mermaid(md, width, { streaming: false });
		const lines = plain(open.render(80));
		const warning = lines.find((l) => l.includes("Mermaid diagram not rendered"));
		expect(warning).toBeDefined();
		expect(warning).not.toContain("`");
		expect(lines.join("\n")).toContain("graph TD");
	});
});

describe("counts as pi writes them", () => {
	test("digits grouped by thousands without Intl (the sandbox's does not group)", async () => {
		const { groupDigits } = await import("../../src/ui/text.ts");
		expect([0, 999, 1000, 2100, 1234567, -45678].map(groupDigits)).toEqual([
			"0",
			"999",
			"1,000",
			"2,100",
			"1,234,567",
			"-45,678",
		]);
	});
});

describe("Markdown links where the terminal shows hyperlinks", () => {
	const render = async (markdown: string, hyperlinks: boolean) => {
		const { Markdown } = await import("@earendil-works/pi-tui");
		const ref = dark();
		ref.setHyperlinks(hyperlinks);
		return new Markdown(markdown, 0, 0, ref.markdownTheme()).render(100).join("\n");
	};
	const OSC8 = /\x1b\]8;;([^\x1b\x07]*)\x1b\\/g;

	test("a link that shows its own https address is a hyperlink to it", async () => {
		const out = await render("see https://example.com/a and <https://example.com/b>", true);
		expect([...out.matchAll(OSC8)].map((m) => m[1]).filter(Boolean)).toEqual([
			"https://example.com/a",
			"https://example.com/b",
		]);
	});

	test("a link whose text says something else shows its address in parentheses, and links only what it shows", async () => {
		const out = await render("[the docs](https://example.com/docs) [https://a.example](https://b.example)", true);
		const shown = out.replace(/\x1b\[[0-9;:]*m/g, "").replace(OSC8, "");
		expect(shown).toContain("the docs (https://example.com/docs)");
		expect(shown).toContain("https://a.example (https://b.example)");
		expect([...out.matchAll(OSC8)].map((m) => m[1]).filter(Boolean)).toEqual(["https://a.example"]);
	});

	test("no hyperlinks where the terminal shows none", async () => {
		expect(await render("see https://example.com/a", false)).not.toContain("\x1b]8");
	});
});
