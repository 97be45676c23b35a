import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { type PtyRun, runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-parity-e2e-");

// Two providers signed in (pi then names the model's provider in the footer).
beforeAll(() => {
	const provider = (apiKey: string, id: string) => ({
		baseUrl: h.fake.baseUrl,
		api: "openai-completions",
		apiKey,
		models: [{ id, name: id, reasoning: true, contextWindow: 128000, maxTokens: 8192 }],
	});
	const models = {
		providers: { fake: provider("test-key", "fake-model"), probe: provider("probe-key", "probe-model") },
	};
	writeFileSync(join(h.data, "models.json"), JSON.stringify(models), { mode: 0o600 });
});

async function chat(): Promise<PtyRun> {
	const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
	await run.waitFor((s) => s.includes("fake-model"), "the chat");
	return run;
}

async function close(run: PtyRun): Promise<void> {
	run.kill();
	await run.exited;
}

describe("pi parity: what a pi user trips over", () => {
	test("Ctrl+T hides thinking blocks, and /settings says so", async () => {
		const run = await chat();
		try {
			run.type("\x14");
			await run.waitFor((s) => s.includes("Thinking blocks: hidden"), "the status line");
			run.type("/settings");
			await run.waitFor((s) => s.includes("/settings"), "the command typed");
			run.type("\r");
			await run.waitFor((s) => s.includes("Show hardware cursor"), "the settings list");
			run.type("hide thinking");
			await run.waitFor((s) => /Hide thinking\s+true/.test(s), "the current value");
		} finally {
			await close(run);
		}
	}, 40_000);

	test("Shift+Tab three times in one read moves the thinking level three times", async () => {
		const run = await chat();
		try {
			await run.waitFor((s) => s.includes("fake-model • medium"), "the level at start");
			run.type("\x1b[Z\x1b[Z\x1b[Z");
			await run.waitFor((s) => s.includes("fake-model • minimal"), "medium → high → off → minimal");
			await run.waitFor((s) => s.includes("Thinking level: minimal"), "the status line");
		} finally {
			await close(run);
		}
	}, 40_000);

	test("/name without a name says the session's name, or how to set one, as pi does", async () => {
		const run = await chat();
		try {
			run.type("/name");
			await run.waitFor((s) => s.includes("Set the session's name"), "the command in the list");
			run.type("\r");
			await run.waitFor((s) => s.includes("Usage: /name <name>"), "pi's usage line for an unnamed session");
			h.fake.enqueue({ text: "Named." });
			run.type("a session to name\r");
			await run.waitFor((s) => s.includes("Named."), "the answer");
			await run.waitFor((s) => s.includes("• a session to name"), "its title in the footer");
			run.type("/name");
			await run.waitFor((s) => s.includes("Set the session's name"), "the command in the list");
			run.type("\r");
			await run.waitFor((s) => s.includes("Session name: a session to name"), "the name");
		} finally {
			await close(run);
		}
	}, 40_000);

	test("Alt+Up restores the queued messages with pi's blank line between them; the notice follows the answer", async () => {
		const run = await chat();
		try {
			h.fake.enqueue({ text: "A slow answer that takes its time", chunks: 12, chunkDelayMs: 250 });
			run.type("start\r");
			await run.waitFor((s) => s.includes("Working"), "the run");
			run.type("queued A\r");
			await run.waitFor((s) => s.includes("Steering: queued A"), "the first in the queue");
			run.type("queued B\r");
			await run.waitFor((s) => s.includes("Steering: queued B"), "the second in the queue");
			run.type("\x1b[1;3A");
			await run.waitFor((s) => s.includes("Restored 2 queued messages to editor"), "pi's notice");
			await run.waitFor((s) => /^queued A\s*\n\s*\nqueued B\s*$/m.test(s), "the texts, a blank line between them");
			await run.waitFor((s) => s.includes("takes its time") && !s.includes("Working"), "the answer done");
			const lines = run.screen();
			const answer = lines.findIndex((l) => l.includes("A slow answer"));
			const notice = lines.findIndex((l) => l.includes("Restored 2 queued messages"));
			expect(notice).toBeGreaterThan(answer);
		} finally {
			await close(run);
		}
	}, 40_000);

	test("a Mermaid diagram in what the person sends is drawn, as pi draws it", async () => {
		const run = await chat();
		try {
			h.fake.enqueue({ text: "Seen." });
			run.type("\x1b[200~```mermaid\ngraph TD\n  A[Start] --> B[End]\n```\x1b[201~");
			await run.waitFor((s) => s.includes("graph TD"), "the diagram's source in the editor");
			run.type("\r");
			// Drawn in the transcript (the footer shows the session's title, its first message, as it is).
			const transcript = (s: string) => s.split("\n").slice(0, -5).join("\n");
			await run.waitFor(
				(s) => s.includes("Seen.") && /│ Start │/.test(s) && !transcript(s).includes("graph TD"),
				"the diagram",
			);
		} finally {
			await close(run);
		}
	}, 40_000);

	test("the F1 palette shows whole command titles on a 120-column screen", async () => {
		const run = await chat();
		try {
			run.type("\x1bOP");
			await run.waitFor((s) => s.includes("Commands") && s.includes("type to filter"), "the palette");
			run.type("reload");
			await run.waitFor(
				(s) =>
					/Reload the UI from the server's current bundle \(the draft and reading position stay\) +\/reload/.test(s) &&
					/with an optional handoff note +\/new-context/.test(s),
				"the whole titles, then their slash forms",
			);
		} finally {
			await close(run);
		}
	}, 40_000);

	test("with two providers signed in, the footer names the model's provider, as pi's does", async () => {
		const run = await chat();
		try {
			await run.waitFor((s) => /\(fake\) fake-model • medium$/m.test(s), "pi's (provider) before the model");
		} finally {
			await close(run);
		}
	}, 40_000);
});
