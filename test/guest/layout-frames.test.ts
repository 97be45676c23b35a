import { describe, expect, test } from "bun:test";
import { Text, TuiAltScreen } from "@earendil-works/pi-tui";
import { FakeTerminal } from "../support/fake-terminal.ts";
import { testLayout } from "../support/guest-context.ts";

function layout() {
	const terminal = new FakeTerminal(60, 10);
	const tui = new TuiAltScreen(terminal, false, undefined, { mouse: false });
	const ui = testLayout(tui);
	const text = new Text("first", 0, 0);
	tui.setLayoutRoot(text);
	tui.start();
	return { terminal, tui, ui, text };
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe("frames", () => {
	test("what the person waits for goes out at once; other changes wait for the frame-rate limit", async () => {
		const { terminal, tui, ui, text } = layout();
		tui.renderNow();
		expect(terminal.output).toContain("first");

		// Right after a frame, an ordinary change waits for the next frame's time.
		text.setText("ordinary");
		ui.requestRender();
		await nextTick();
		await nextTick();
		expect(terminal.output).not.toContain("ordinary");

		// A session's first state does not wait.
		text.setText("awaited");
		ui.showNow();
		await nextTick();
		expect(terminal.output).toContain("awaited");
		tui.stop();
	});
});
