import { describe, expect, test } from "bun:test";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-subagents-e2e-");

const F1 = "\x1bOP";

describe("subagents: the card, /agents and /main", () => {
	test("the card names the subagent's conversation; /agents opens it with its own draft; /main comes back", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue(
				{ toolCalls: [{ name: "subagent", args: { task: "Find the answer" } }] },
				{ text: "The child's answer." },
				{ text: "Parent done." },
			);
			run.type("delegate\r");
			await run.waitFor(
				(s) =>
					s.includes("Parent done.") &&
					s.includes("subagent Find the answer") &&
					s.includes("The child's answer.") &&
					/Conversation agent-[0-9a-f]{8} · \/agents opens it/.test(s),
				"the card with the child's answer and its conversation",
			);
			expect(run.screen().join("\n")).toMatch(/fake\/fake-model · done/);

			// The palette reaches /agents without touching the editor.
			run.type(F1);
			await run.waitFor((s) => s.includes("type to filter"), "the palette");
			run.type("subagents");
			await run.waitFor((s) => s.includes("Show the main conversation and its subagents"), "the command");
			run.type("\r");
			await run.waitFor(
				(s) => s.includes("Agents") && /› main · delegate/.test(s) && /└─ Find the answer\s+done · now/.test(s),
				"the main conversation and its subagent under it",
			);
			run.type("\x1b[B\r");
			await run.waitFor(
				(s) =>
					!s.includes("Parent done.") &&
					s.includes("agent: Find the answer") &&
					s.includes("The child's answer.") &&
					s.includes("• delegate › Find the answer") &&
					// The footer's numbers are the subagent's (one answer), not the main conversation's (two).
					/↑60 ↓20 R40 /.test(s),
				"the subagent's conversation (its task from the agent), named in the footer's crumb",
			);
			run.type("child draft");
			await run.waitFor((s) => s.includes("child draft"), "a draft in the subagent's conversation");

			run.type(F1);
			await run.waitFor((s) => s.includes("type to filter"), "the palette");
			run.type("Return to the main");
			await run.waitFor((s) => s.includes("Return to the main conversation"), "the command");
			run.type("\r");
			await run.waitFor(
				(s) =>
					s.includes("Parent done.") &&
					!s.includes("child draft") &&
					!s.includes("› Find the answer") &&
					/↑120 ↓40 R80 /.test(s),
				"the main conversation, with its own (empty) draft",
			);

			run.type("/agents\r");
			await run.waitFor((s) => /└─ Find the answer/.test(s), "/agents");
			run.type("\x1b[B\r");
			await run.waitFor((s) => s.includes("child draft") && s.includes("› Find the answer"), "the draft kept");
			run.type("\x15/main\r");
			await run.waitFor((s) => s.includes("Parent done.") && !s.includes("› Find the answer"), "/main");

			// Ctrl+D archives the selected subagent (it leaves the list); Ctrl+A shows archived ones; Ctrl+D restores.
			run.type("/agents\r");
			await run.waitFor((s) => /└─ Find the answer/.test(s), "/agents");
			run.type("\x1b[B");
			await run.waitFor((s) => /› └─ Find the answer/.test(s), "the subagent selected");
			run.type("\x04");
			await run.waitFor((s) => s.includes("show archived") && !/─ Find the answer/.test(s), "archived");
			run.type("\x01");
			await run.waitFor((s) => /└─ Find the answer \(archived\)/.test(s) && s.includes("hide archived"), "shown");
			run.type("\x1b[B");
			await run.waitFor((s) => /› └─ Find the answer \(archived\)/.test(s), "the archived subagent selected");
			run.type("\x04");
			await run.waitFor((s) => /└─ Find the answer\s+done/.test(s) && !s.includes("(archived)"), "restored");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("the main conversation and its subagents"), "closed");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 90_000);

	test("back from a subagent's conversation, the main one is where the person was reading", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 100, rows: 20 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue(
				{ toolCalls: [{ name: "subagent", args: { task: "Side task" } }] },
				{ text: "Side answer." },
				{ text: `answer 1\n\n${"line\n\n".repeat(6)}done 1` },
			);
			run.type("question 1\r");
			await run.waitFor((s) => s.includes("done 1"), "answer 1");
			for (const n of [2, 3]) {
				h.fake.enqueue({ text: `answer ${n}\n\n${"line\n\n".repeat(6)}done ${n}` });
				run.type(`question ${n}\r`);
				await run.waitFor((s) => s.includes(`done ${n}`), `answer ${n}`);
			}
			run.type("\x1b[5~");
			await run.waitFor((s) => s.includes("Jump to latest message"), "scrolled up");
			const topLines = () =>
				run
					.screen()
					.slice(0, 10)
					.map((l) => l.slice(0, 99).trimEnd());
			const top = topLines();

			run.type(F1);
			await run.waitFor((s) => s.includes("type to filter"), "the palette");
			run.type("subagents");
			await run.waitFor((s) => s.includes("Show the main conversation and its subagents"), "the command");
			run.type("\r");
			await run.waitFor((s) => /└─ Side task/.test(s), "/agents");
			run.type("\x1b[B\r");
			await run.waitFor((s) => s.includes("agent: Side task") && s.includes("Side answer."), "the subagent");
			run.type(F1);
			await run.waitFor((s) => s.includes("type to filter"), "the palette");
			run.type("Return to the main");
			await run.waitFor((s) => s.includes("Return to the main conversation"), "the command");
			run.type("\r");
			await run.waitFor(
				(s) => !s.includes("agent: Side task") && s.includes("Jump to latest message"),
				"the main conversation, still scrolled up",
			);
			await run.waitFor(() => JSON.stringify(topLines()) === JSON.stringify(top), "the same lines at the top");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 90_000);

	test("the session picker's threaded order shows a session's subagents under it; Enter opens one", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue(
				{ toolCalls: [{ name: "subagent", args: { task: "Picker task" } }] },
				{ text: "Picker answer." },
				{ text: "Picker parent." },
			);
			run.type("picker session\r");
			await run.waitFor((s) => s.includes("Picker parent."), "the answer");
			run.type("\x12");
			await run.waitFor(
				(s) =>
					s.includes("Resume Session") &&
					/› picker session\s/.test(s) &&
					/^ {2}└▸ Picker task ·subagent\s+done\s*$/m.test(s),
				"the session, and its subagent under it",
			);
			run.type("\x1b[B");
			await run.waitFor((s) => /^› └▸ Picker task ·subagent/m.test(s), "the subagent selected");
			run.type("\r");
			await run.waitFor(
				(s) =>
					!s.includes("Resume Session") &&
					s.includes("agent: Picker task") &&
					s.includes("Picker answer.") &&
					s.includes("• picker session › Picker task"),
				"the subagent's conversation open",
			);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 90_000);
});
