// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pi's placeholders are the text under test.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-prompts-e2e-");

interface FakeRequest {
	messages: { role: string; content: unknown }[];
}

/** The text of the last user message the fake provider received. */
function lastUserText(requests: readonly unknown[]): string {
	const messages = (requests.at(-1) as FakeRequest | undefined)?.messages ?? [];
	const user = messages.filter((m) => m.role === "user").at(-1);
	const content = user?.content;
	if (typeof content === "string") return content;
	return Array.isArray(content) ? content.map((c) => (c as { text?: string }).text ?? "").join("") : "";
}

describe("prompt templates and skills end to end", () => {
	test("/template args and /skill:name args are listed, sent expanded, and the skill block shown as pi's", async () => {
		// A pi user's own files, unchanged: a template and a skill in ~/.pi/agent, a template of the project.
		const agent = join(h.home, ".pi", "agent");
		const proj = join(h.home, "proj");
		mkdirSync(join(agent, "prompts"), { recursive: true });
		mkdirSync(join(agent, "skills", "lint"), { recursive: true });
		mkdirSync(join(proj, ".pi", "prompts"), { recursive: true });
		writeFileSync(
			join(agent, "prompts", "review.md"),
			'---\ndescription: Review a file\nargument-hint: "<file> [focus]"\n---\nReview $1, focusing on ${2:-correctness}.\n',
		);
		writeFileSync(join(proj, ".pi", "prompts", "plan.md"), "---\ndescription: Plan the work\n---\nPlan: $@\n");
		const skill = join(agent, "skills", "lint", "SKILL.md");
		writeFileSync(skill, "---\nname: lint\ndescription: Lint the code before committing\n---\nRun the linter first.\n");

		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: proj, cols: 110, rows: 40 });
		const screen = () => run.screen().join("\n");
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			await run.waitFor((s) => s.includes("[Skills]") && s.includes("[Prompts]"), "the header's resources");
			expect(screen()).toMatch(/\[Skills\]\s+lint/);
			expect(screen()).toMatch(/\[Prompts\]\s+\/plan, \/review/);

			// The slash list: templates with their hint and source after the commands, then the skill.
			run.type("/rev");
			await run.waitFor((s) => s.includes("<file> [focus] — [u] Review a file"), "the template in the list");
			run.type("\x15/lint");
			await run.waitFor((s) => s.includes("skill:lint") && s.includes("[u] Lint the code"), "the skill by its name");
			run.type("\x15");

			h.fake.enqueue({ text: "Reviewed." }, { text: "Linted." });
			run.type('/review notes.txt "error handling"\r');
			await run.waitFor((s) => s.includes("Reviewed."), "the answer to the template");
			expect(lastUserText(h.fake.requests)).toBe("Review notes.txt, focusing on error handling.");
			expect(screen()).toContain("Review notes.txt, focusing on error handling.");

			run.type("/skill:lint check src\r");
			await run.waitFor((s) => s.includes("Linted."), "the answer to the skill");
			expect(lastUserText(h.fake.requests)).toBe(
				`<skill name="lint" location="${skill}">\nReferences are relative to ${join(agent, "skills", "lint")}.\n\nRun the linter first.\n</skill>\n\ncheck src`,
			);
			const system = String((h.fake.requests.at(-1) as FakeRequest).messages[0]?.content);
			expect(system).toContain(`<location>${skill}</location>`);
			await run.waitFor((s) => s.includes("[skill] lint (ctrl+o to expand)"), "pi's collapsed skill block");
			expect(screen()).not.toContain("Run the linter first.");
			run.type("\x0f");
			await run.waitFor((s) => s.includes("Run the linter first."), "the skill block expanded");

			// Live: a template written while p2 runs is listed and expands, with no /reload.
			writeFileSync(join(proj, ".pi", "prompts", "later.md"), "---\ndescription: Arrived later\n---\nLater: $1\n");
			await run.waitFor((s) => /^ {4}\/later\s*$/m.test(s), "the new template under the header (expanded)");
			run.type("/late");
			await run.waitFor((s) => s.includes("[p] Arrived later"), "the new template in the list");
			h.fake.enqueue({ text: "Done later." });
			run.type("\x15/later now\r");
			await run.waitFor((s) => s.includes("Done later."), "the answer to the new template");
			expect(lastUserText(h.fake.requests)).toBe("Later: now");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);
});
