import { type Component, Container, Spacer, Text } from "@earendil-works/pi-tui";
import type { Theme } from "./theme/theme.ts";
import { ThemeRef } from "./theme/theme-ref.ts";
import { diffLines } from "./tools/diff.ts";
import { AssistantMessage } from "./transcript/assistant-message.ts";
import { UserMessage } from "./transcript/user-message.ts";

const SAMPLE = [
	"## A heading",
	"",
	"Some text with `inline code`, a [link](https://example.com) and **bold**.",
	"",
	"```ts",
	'const greeting: string = "hello"; // a comment',
	"```",
	"",
	"> A quote",
].join("\n");
const DIFF = " 1 unchanged line\n-2 the old line\n+2 the new line";

/**
 * A sample of the transcript (a user message, Markdown with code, a diff) drawn with its own ThemeRef: the
 * theme picker shows a theme here without touching the live screen.
 */
export class ThemePreview implements Component {
	readonly #ref: ThemeRef;
	readonly #root = new Container();

	constructor(theme: Theme) {
		this.#ref = new ThemeRef(theme);
		this.#build();
	}

	show(theme: Theme): void {
		this.#ref.set(theme);
		this.#build();
	}

	#build(): void {
		const root = this.#root;
		root.clear();
		const t = this.#ref.current;
		root.addChild(new UserMessage(this.#ref, { text: "Show me the colors" }));
		root.addChild(new AssistantMessage(this.#ref, { parts: [{ type: "text", text: SAMPLE }], hideThinking: false }));
		root.addChild(new Spacer(1));
		root.addChild(new Text(diffLines(DIFF, t).join("\n"), 1, 0));
	}

	invalidate(): void {
		this.#root.invalidate();
	}

	render(width: number): string[] {
		return [...this.#root.render(width)];
	}
}
