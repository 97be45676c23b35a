import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-retries-e2e-");

describe("automatic retries end to end", () => {
	test("each attempt's error shows as it retries, then pi's \"Retry failed after N attempts\" line", async () => {
		// pi's retry setting, in the server's settings.json: retries come quickly here.
		writeFileSync(join(h.data, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 10 } }));
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			for (const n of ["one", "two", "three", "four"]) h.fake.enqueue({ status: 500, error: `boom ${n}` });
			run.type("hello\r");
			const final = 'Error: Retry failed after 3 attempts: 500: {"message":"boom four","type":"server_error"}';
			await run.waitFor((s) => s.includes(final), "the final line");
			const lines = run.screen().filter((line) => line.includes("Error:"));
			expect(lines.map((line) => line.trim())).toEqual([
				'Error: 500: {"message":"boom one","type":"server_error"}',
				'Error: 500: {"message":"boom two","type":"server_error"}',
				'Error: 500: {"message":"boom three","type":"server_error"}',
				'Error: 500: {"message":"boom four","type":"server_error"}',
				final,
			]);
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
