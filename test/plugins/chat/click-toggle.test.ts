import { describe, expect, test } from "bun:test";
import type { Component, TuiMouseEvent } from "@earendil-works/pi-tui";
import { clickableThinking, clickableToolCard } from "../../../src/plugins/chat/tui/click-toggle.ts";
import { BUILTIN_THEMES } from "../../../src/ui/theme/builtin.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";
import { ToolCard, type ToolCardData } from "../../../src/ui/tools/tool-card.ts";
import { AssistantMessage, type AssistantMessageData } from "../../../src/ui/transcript/assistant-message.ts";

const theme = () => new ThemeRef(Theme.fromJson(BUILTIN_THEMES.dark, "truecolor"));
const plain = (lines: readonly string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;:]*m/g, "").trimEnd()).join("\n");
const WIDTH = 60;

/** A left click (or another kind of event) at a row of a component, as pi-tui dispatches it. */
function mouse(component: Component, y: number, type: TuiMouseEvent["type"] = "click", button = "left") {
	const height = component.render(WIDTH).length;
	return component.handleMouse?.({
		type,
		button: button as TuiMouseEvent["button"],
		x: 3,
		y,
		screenX: 3,
		screenY: y,
		width: WIDTH,
		height,
		shift: false,
		alt: false,
		ctrl: false,
	});
}

const bash = (over: Partial<ToolCardData> = {}): ToolCardData => ({
	name: "bash",
	args: { command: "seq 20" },
	state: "success",
	output: Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n"),
	details: null,
	elapsedMs: 10,
	expanded: false,
	home: undefined,
	...over,
});

describe("clicks in the transcript (pi's fullscreen mouse)", () => {
	test("a left click on a finished tool card expands it, another collapses it; Ctrl+O's change wins", () => {
		const data = bash();
		const card = clickableToolCard(new ToolCard(theme(), data), data);
		expect(plain(card.component.render(WIDTH))).not.toContain("line 1\n");
		expect(mouse(card.component, 3)?.handled).toBe(true);
		expect(plain(card.component.render(WIDTH))).toContain("line 1\n");
		// A press, a right click, or a click on a pending card changes nothing.
		expect(mouse(card.component, 3, "press")).toBeUndefined();
		expect(mouse(card.component, 3, "click", "right")).toBeUndefined();
		expect(plain(card.component.render(WIDTH))).toContain("line 1\n");
		mouse(card.component, 3);
		expect(plain(card.component.render(WIDTH))).not.toContain("line 1\n");
		mouse(card.component, 3);
		// Ctrl+O expands every card: then collapses every card, this one too.
		card.update(bash({ expanded: true }));
		card.update(bash({ expanded: false }));
		expect(plain(card.component.render(WIDTH))).not.toContain("line 1\n");
		const pending = bash({ state: "pending" });
		const running = clickableToolCard(new ToolCard(theme(), pending), pending);
		expect(mouse(running.component, 3)).toBeUndefined();
	});

	test("a left click on a thinking block shows or hides that block only", () => {
		const data: AssistantMessageData = {
			parts: [
				{ type: "thinking", text: "first thought", redacted: false },
				{ type: "text", text: "an answer" },
				{ type: "thinking", text: "second thought", redacted: false },
			],
			stopReason: "stop",
			hideThinking: true,
		};
		const message = new AssistantMessage(theme(), data);
		const clicks = clickableThinking(message, data);
		const lines = () => plain(message.render(WIDTH));
		expect(lines()).not.toContain("first thought");
		const row = (text: string) =>
			lines()
				.split("\n")
				.findIndex((l) => l.includes(text));
		mouse(message, row("Thinking..."));
		expect(lines()).toContain("first thought");
		expect(lines()).not.toContain("second thought");
		expect(mouse(message, row("an answer"))).toBeUndefined();
		mouse(message, row("first thought"));
		expect(lines()).not.toContain("first thought");
		// Ctrl+T shows every block, forgetting the clicks.
		mouse(message, row("Thinking..."));
		clicks.update({ ...data, hideThinking: false });
		expect(lines()).toContain("first thought");
		expect(lines()).toContain("second thought");
	});
});
