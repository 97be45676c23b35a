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

export interface StreamCost {
	readonly msPerToken: number;
	readonly lastRenderMs: number;
}

/** Streams the long answer into `show` (the text so far, after each token) and times it. */
export function streamCost(tokens: number, show: (text: string) => void): StreamCost {
	let text = "";
	let last = 0;
	const start = performance.now();
	for (const token of longAnswer(tokens)) {
		text += token;
		const t = performance.now();
		show(text);
		last = performance.now() - t;
	}
	const round = (n: number) => Number(n.toFixed(3));
	return { msPerToken: round((performance.now() - start) / tokens), lastRenderMs: round(last) };
}

/** p2's AssistantMessage on the long answer, re-rendered at 120 columns after every token. */
export function assistantMessageCost(tokens: number): StreamCost {
	const theme = new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
	const message = new AssistantMessage(theme, { parts: [{ type: "text", text: "" }], hideThinking: false });
	return streamCost(tokens, (text) => {
		message.update({ parts: [{ type: "text", text }], hideThinking: false });
		message.render(120);
	});
}
