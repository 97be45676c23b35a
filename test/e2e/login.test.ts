import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
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
			await run.waitFor((s) => s.includes("→ Sign in with an API key"), "the API key method selected");
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
			// A model was there already (models.json's): pi's words say what was saved and where, and choose nothing.
			const saved = `Saved API key for Anthropic. Credentials saved to ${join(h.data, "auth.json")}`;
			await run.waitFor((s) => s.includes(saved), "signed in");
			expect(JSON.parse(readFileSync(join(h.data, "auth.json"), "utf8")).anthropic).toEqual({
				type: "api_key",
				key: SECRET,
			});

			run.type("/model claude");
			await run.waitFor((s) => s.includes("anthropic/claude"), "anthropic's models in the completion");
			run.type("\x15");
			await run.waitFor((s) => !s.includes("/model claude"), "the editor cleared");
			run.type("/logout anthropic");
			await run.waitFor((s) => /→ anthropic +Anthropic ✓ configured/.test(s), "the provider completion");
			// As in pi, Enter on the argument menu takes the completion; the next Enter runs the command.
			run.type("\r");
			await run.waitFor(
				(s) => /^\/logout anthropic\s*$/m.test(s) && !s.includes("✓ configured"),
				"the completion taken",
			);
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

	test("the first provider on a server without models: the open session takes its model, in pi's words", async () => {
		rmSync(join(h.data, "models.json"));
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 120, rows: 40 });
		const footer = () => run.screen().slice(-2).join("\n");
		try {
			await run.waitFor((s) => s.includes("Warning: No models available"), "the start-up warning");
			expect(footer()).toContain("unknown");
			run.type("/login");
			await run.waitFor((s) => s.includes("Configure provider authentication"), "the autocomplete");
			run.type("\r");
			await run.waitFor((s) => s.includes("→ Sign in with an account"), "the method selector");
			run.type("\x1b[B");
			await run.waitFor((s) => s.includes("→ Sign in with an API key"), "the API key method");
			run.type("\r");
			await run.waitFor((s) => s.includes("Select provider to configure:"), "the provider selector");
			for (const c of "anthropic") run.type(c);
			await run.waitFor((s) => s.includes("→ Anthropic"), "anthropic");
			run.type("\r");
			await run.waitFor((s) => s.includes("Enter Anthropic API key"), "the dialog");
			run.type(`\x1b[200~${SECRET}\x1b[201~\r`);
			const said = /Saved API key for Anthropic\. Selected (\S+)\. Credentials saved to (\S+)/;
			await run.waitFor((s) => said.test(s), "pi's words");
			const [, model, path] = run.screen().join("\n").match(said) ?? [];
			expect(model).toStartWith("claude-");
			expect(path).toBe(join(h.data, "auth.json"));
			await run.waitFor(() => footer().includes(`${model} •`), "the footer on the chosen model");
			expect(JSON.parse(readFileSync(join(h.data, "settings.json"), "utf8")).defaultModel).toEqual({
				provider: "anthropic",
				id: model,
			});
		} finally {
			run.kill();
			await run.exited;
		}
	}, 40_000);
});
