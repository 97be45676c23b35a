import { describe, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";
import { waitUntil } from "../support/wait.ts";

const h = fakeHomeForFile("p2-workspace-e2e-");

function git(cwd: string, ...args: string[]): void {
	const ran = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd });
	if (ran.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${ran.stderr.toString()}`);
}

describe("the session's workspace end to end", () => {
	test("an edit by the agent appears in /changes with its diff, live; /grep opens a file at the match; /files browses", async () => {
		const proj = join(h.home, "proj");
		mkdirSync(join(proj, "src"), { recursive: true });
		const body = Array.from({ length: 60 }, (_, i) => `// filler ${i + 1}`);
		body[1] = "const value = 1;";
		body[49] = "export const needle = value;";
		writeFileSync(join(proj, "src", "app.ts"), `${body.join("\n")}\n`);
		writeFileSync(join(proj, "README.md"), "# Project\n");
		git(proj, "init", "-q", "-b", "main");
		git(proj, "add", ".");
		git(proj, "commit", "-qm", "first");
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: proj, cols: 110, rows: 36 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue(
				{
					toolCalls: [
						{
							name: "edit",
							args: { path: "src/app.ts", edits: [{ oldText: "const value = 1;", newText: "const value = 2;" }] },
						},
					],
				},
				{ text: "Edited the value." },
			);
			run.type("change the value\r");
			await run.waitFor((s) => s.includes("Edited the value."), "the agent's edit");

			run.type("/changes\r");
			await run.waitFor((s) => s.includes("Changes on main") && /M src\/app\.ts\s+not staged/.test(s), "the change");
			// The list follows the directory: a new file shows up while it is open.
			writeFileSync(join(proj, "later.txt"), "later\n");
			await run.waitFor((s) => /\? later\.txt\s+untracked/.test(s), "the live change");
			run.type("\r");
			await run.waitFor(
				(s) => s.includes("-2 const value = 1;") && s.includes("+2 const value = 2;"),
				"the diff with pi's numbers",
			);
			run.type("\x1b");
			await run.waitFor((s) => s.includes("Changes on main") && !s.includes("+2 const value"), "back to the list");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("Changes on main"), "closed");

			run.type("/grep NEEDLE\r");
			await run.waitFor((s) => s.includes('1 matches for "NEEDLE"') && s.includes("src/app.ts:50"), "the match");
			run.type("\r");
			await run.waitFor(
				(s) => /50 export const needle = value;/.test(s) && s.includes("src/app.ts") && s.includes("/ find"),
				"the file at the match's line",
			);
			run.type("/filler 58\r");
			await run.waitFor((s) => /58 \/\/ filler 58/.test(s), "the viewer's search");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("src/app.ts:50") && !s.includes("/ find"), "back to the matches");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("matches for"), "the matches closed");

			run.type("/files\r");
			await run.waitFor(
				(s) => s.includes("Files in .") && /src\//.test(s) && /README\.md\s+10 B/.test(s),
				"the listing",
			);
			run.type("src");
			run.type("\r");
			await run.waitFor((s) => s.includes("Files in src") && s.includes("app.ts"), "into the folder");
			// The first row goes up (../): typing picks the file.
			run.type("app");
			await run.waitFor((s) => /→ app\.ts/.test(s), "the file picked");
			run.type("\r");
			await run.waitFor(
				(s) => s.includes("/ find") && /20 \/\/ filler 20/.test(s) && /^ +2 const value = 2;/m.test(s),
				"the file",
			);
			// Page keys move the viewer, not the transcript.
			run.type("\x1b[6~");
			await run.waitFor((s) => /45 \/\/ filler 45/.test(s) && !/20 \/\/ filler 20/.test(s), "a page down");
			run.type("\x1b[5~");
			await run.waitFor((s) => /20 \/\/ filler 20/.test(s) && !/45 \/\/ filler 45/.test(s), "a page up");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("Files in src"), "back to the folder");
			run.type("\x1b");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);

	test("an artifact's card and /artifacts; a sent file's card, saved through the launcher's consent screen", async () => {
		const proj = join(h.home, "handover");
		mkdirSync(proj, { recursive: true });
		writeFileSync(join(proj, "result.csv"), "a,b\n1,2\n");
		const plan = ["# Release plan", "", ...Array.from({ length: 12 }, (_, i) => `- step ${i + 1}`)].join("\n");
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: proj, cols: 110, rows: 40 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue(
				{ toolCalls: [{ name: "artifact", args: { name: "plan.md", content: plan } }] },
				{ toolCalls: [{ name: "send_file", args: { path: "result.csv" } }] },
				{ text: "Here you go." },
			);
			run.type("plan and send\r");
			await run.waitFor((s) => s.includes("Here you go."), "the answer");
			await run.waitFor(
				(s) =>
					/artifact plan\.md v1\s+\/artifacts opens/.test(s) &&
					s.includes("- step 6") &&
					!s.includes("- step 7") &&
					s.includes("more lines"),
				"the artifact card with its first 8 lines",
			);
			await run.waitFor(
				(s) => /send_file result\.csv 8 B/.test(s) && s.includes("/download saves"),
				"the sent file's card",
			);

			run.type("/artifacts\r");
			await run.waitFor((s) => s.includes("Artifacts") && /plan\.md\s+v1 · markdown/.test(s), "the list");
			run.type("\r");
			// Markdown rendered: the heading without its #, the items as bullets.
			await run.waitFor(
				(s) => /plan\.md {2}v1\s*\n Release plan/.test(s) && s.includes("- step 12"),
				"the artifact inline",
			);
			// Ctrl+S: the launcher asks on its own screen, then saves this version into the download folder.
			run.type("\x13");
			await run.waitFor(
				(s) => s.includes("Save an artifact of this session on this computer"),
				"the launcher's question",
			);
			await run.waitFor((s) => s.includes("Enter or y: confirm") && s.includes("Version: 1"), "the question ready");
			run.type("y");
			const savedPlan = join(h.home, "Downloads", "p2", "plan.md");
			await waitUntil(() => existsSync(savedPlan) && readFileSync(savedPlan, "utf8") === plan, "plan.md saved");
			await run.waitFor((s) => s.includes("Saved plan.md in your download folder"), "the notice");
			// Ctrl+B: the server's own page, with the browser's own sign-in named; declined here.
			run.type("\x02");
			await run.waitFor(
				(s) => s.includes("Open this page of the server in your browser") && s.includes("needs its own sign-in"),
				"the browser question",
			);
			await run.waitFor((s) => s.includes("/artifact?session=") && s.includes("name=plan.md&version=1"), "the address");
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready");
			run.type("n");
			await run.waitFor((s) => /plan\.md {2}v1/.test(s), "back in the viewer");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("type to filter") && !s.includes("- step 12"), "back to the list");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("type to filter"), "closed");

			run.type("/download\r");
			await run.waitFor(
				(s) => s.includes("Files sent to this session") && s.includes("sent by the agent"),
				"the sent file listed",
			);
			run.type("\r");
			await run.waitFor((s) => /1 a,b/.test(s) && /2 1,2/.test(s), "the text preview");
			run.type("\x13");
			await run.waitFor((s) => s.includes("Save a file from the server on this computer"), "the launcher's question");
			await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready to confirm");
			run.type("y");
			const saved = join(h.home, "Downloads", "p2", "result.csv");
			await waitUntil(() => existsSync(saved) && readFileSync(saved, "utf8") === "a,b\n1,2\n", "result.csv saved");
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);
});
