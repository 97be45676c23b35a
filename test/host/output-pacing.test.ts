import { describe, expect, test } from "bun:test";
import { OutputPacing } from "../../src/host/output-pacing.ts";
import { TerminalOutput } from "../../src/host/terminal-output.ts";
import type { Notice } from "../../src/host/trusted-ui.ts";
import { waitUntil } from "../support/wait.ts";

function setup() {
	const written: string[] = [];
	const notices: Notice[] = [];
	let closeNotice = () => {};
	let redraws = 0;
	let onScreen = true;
	const later: (() => void)[] = [];
	const pacing = new OutputPacing({
		output: new TerminalOutput((data, done) => {
			written.push(data);
			done();
		}),
		outputCharsPerSecond: 4 * 1024 * 1024,
		notify(notice) {
			notices.push(notice);
			onScreen = false;
			return new Promise((resolve) => {
				closeNotice = () => {
					onScreen = true;
					resolve();
				};
			});
		},
		uiOnScreen: () => onScreen,
		redraw: () => {
			redraws++;
		},
		afterBudgetWhole: (run) => later.push(run),
	});
	return {
		pacing,
		written,
		notices,
		closeNotice: () => closeNotice(),
		redraws: () => redraws,
		/** The UI's budget is whole again. */
		budgetWhole: () => {
			for (const run of later.splice(0)) run();
		},
	};
}

describe("OutputPacing", () => {
	test("the first drop over the budget is told once; a drop after the note brings a redraw once the budget is whole", async () => {
		const s = setup();
		s.pacing.overBudget();
		s.pacing.overBudget();
		expect(s.notices.map((n) => n.title)).toEqual(["The UI wrote more than a terminal can take"]);
		expect(s.notices[0]!.lines[0]).toContain("over 4 MiB in one second");
		s.closeNotice();
		await waitUntil(() => s.redraws() === 1, "the redraw after the note");
		// The note was closed within the same second: that redraw was dropped too, and is asked again later.
		s.budgetWhole();
		expect(s.redraws()).toBe(2);
		s.pacing.overBudget();
		expect(s.redraws()).toBe(2);
		s.budgetWhole();
		expect(s.redraws()).toBe(3);
		expect(s.notices.length).toBe(1);
	});

	test("no redraw under the launcher's own screen: the one after it closes comes instead", async () => {
		const s = setup();
		s.pacing.overBudget();
		s.budgetWhole();
		expect(s.redraws()).toBe(0);
		s.closeNotice();
		await waitUntil(() => s.redraws() === 1, "the redraw after the note");
	});

	test("while the terminal is behind, the UI's output is dropped whole until it caught up; then one redraw", async () => {
		const taken: string[] = [];
		const waiting: (() => void)[] = [];
		let redraws = 0;
		const pacing = new OutputPacing({
			output: new TerminalOutput(
				(data, done) => {
					taken.push(data);
					waiting.push(() => done());
				},
				{ maxBacklog: 10, pieceChars: 100 },
			),
			outputCharsPerSecond: 1000,
			notify: async () => {},
			uiOnScreen: () => true,
			redraw: () => {
				redraws++;
			},
		});
		pacing.show("first");
		pacing.show("0123456789AB");
		pacing.show("dropped-1");
		waiting.shift()?.();
		// What waits went out; the terminal has not caught up until that is taken too: still dropped.
		pacing.show("dropped-2");
		waiting.shift()?.();
		await waitUntil(() => redraws === 1, "the redraw once the terminal caught up");
		pacing.show("after");
		expect(taken).toEqual(["first", "0123456789AB", "after"]);
	});
});
