import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-login-e2e-");

const SECRET = "sk-ant-e2e-never-shown-0123";

describe("/login end to end", () => {
	test("an API key for a built-in provider: masked while typed, stored on the server, its models usable; /logout", async () => {
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		const seen: string[] = [];
		const watch = setInterval(() => seen.push(run.screen().join("\n")), 20);
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			run.type("/login");
			await run.waitFor((s) => s.includes("Configure provider authentication"), "the autocomplete");
			run.type("\r");
			await run.waitFor((s) => s.includes("Select authentication method:"), "the method selector");
			run.type("\x1b[B");
			await Bun.sleep(100);
			run.type("\r");
			await run.waitFor((s) => s.includes("Select provider to configure:"), "the provider selector");
			for (const c of "anthropic") run.type(c);
			// pi's search line, and no [API key] column in a list of API-key providers.
			await run.waitFor(
				(s) => /^> anthropic/m.test(s) && s.includes("→ Anthropic • not configured") && !s.includes("[API key]"),
				"anthropic",
			);
			run.type("\r");
			await run.waitFor((s) => s.includes("Login to Anthropic") && s.includes("Enter Anthropic API key"), "the dialog");
			run.type(`\x1b[200~${SECRET}\x1b[201~`);
			await run.waitFor((s) => s.includes("•".repeat(SECRET.length)), "the masked key");
			run.type("\r");
			await run.waitFor((s) => s.includes("Logged in to Anthropic"), "signed in");
			expect(JSON.parse(readFileSync(join(h.data, "auth.json"), "utf8")).anthropic).toEqual({
				type: "api_key",
				key: SECRET,
			});

			run.type("/model claude");
			await run.waitFor((s) => s.includes("anthropic/claude"), "anthropic's models in the completion");
			run.type("\x15");
			await Bun.sleep(100);
			run.type("/logout anthropic");
			await Bun.sleep(300);
			run.type("\r");
			await Bun.sleep(100);
			run.type("\r");
			await run.waitFor((s) => s.includes("Logged out of Anthropic"), "signed out");
			expect(JSON.parse(readFileSync(join(h.data, "auth.json"), "utf8")).anthropic).toBeUndefined();
			for (const screen of seen) expect(screen).not.toContain(SECRET);
		} finally {
			clearInterval(watch);
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
