import { BUILTIN_THEMES } from "../../src/ui/theme/builtin.ts";
import { Theme } from "../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../src/ui/theme/theme-ref.ts";
import { AssistantMessage } from "../../src/ui/transcript/assistant-message.ts";

/** A long Markdown answer with prose, lists and code, as tokens of a few characters. */
export function longAnswer(tokens: number): string[] {
	const words = "The function reads the file, splits it into lines and returns the ones that match. ".split(/(?<= )/);
	const out: string[] = [];
	for (let i = 0; out.length < tokens; i++) {
		if (i % 60 === 30) out.push("\n\n```ts\n", "const x = read(path);\n", "return x.split('\\n');\n", "```\n\n");
		else if (i % 40 === 20) out.push("\n- item one\n", "- item two\n\n");
		else out.push(words[i % words.length]!);
	}
	return out.slice(0, tokens);
}

/**
 * One long paragraph of `lines` lines (no blank line between them), as tokens of about six characters: the
 * shape that makes Markdown re-lex everything on every token (its setext rule scans the whole paragraph).
 */
export function paragraphAnswer(lines: number): string[] {
	const text = Array.from({ length: lines }, (_, i) => `This is line ${i} of a long answer with some words in it`).join(
		"\n",
	);
	return text.match(/[\s\S]{1,6}/g) ?? [];
}

export interface StreamCost {
	readonly msPerToken: number;
	/** Per token over the first and the last tenth of the answer: flat when nothing grows with the answer. */
	readonly msPerTokenFirstTenth: number;
	readonly msPerTokenLastTenth: number;
	readonly lastRenderMs: number;
}

/** Streams the tokens into `show` (the text so far, after each token) and times it. */
export function streamCost(tokens: number | readonly string[], show: (text: string) => void): StreamCost {
	const parts = typeof tokens === "number" ? longAnswer(tokens) : tokens;
	let text = "";
	const times: number[] = [];
	const start = performance.now();
	for (const token of parts) {
		text += token;
		const t = performance.now();
		show(text);
		times.push(performance.now() - t);
	}
	const round = (n: number) => Number(n.toFixed(3));
	const tenth = Math.max(1, Math.floor(times.length / 10));
	const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
	return {
		msPerToken: round((performance.now() - start) / parts.length),
		msPerTokenFirstTenth: round(mean(times.slice(0, tenth))),
		msPerTokenLastTenth: round(mean(times.slice(-tenth))),
		lastRenderMs: round(times.at(-1) ?? 0),
	};
}

/** p2's AssistantMessage on the answer, re-rendered at 120 columns after every token. */
export function assistantMessageCost(tokens: number | readonly string[]): StreamCost {
	const theme = new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
	const message = new AssistantMessage(theme, { parts: [{ type: "text", text: "" }], hideThinking: false });
	return streamCost(tokens, (text) => {
		message.update({ parts: [{ type: "text", text }], hideThinking: false });
		message.render(120);
	});
}
