import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bashTool } from "../../src/server/agent/tools/bash.ts";
import { displayDiff, editTool } from "../../src/server/agent/tools/edit.ts";
import { readTool } from "../../src/server/agent/tools/read.ts";
import { writeTool } from "../../src/server/agent/tools/write.ts";
import { LocalEnvironment } from "../../src/server/env/local.ts";
import { processEnded } from "../support/processes.ts";
import { waitForValue, waitUntil } from "../support/wait.ts";

const local = new LocalEnvironment();
let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "p2-tools-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Result = {
	content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
	details?: unknown;
	isError?: boolean;
};
const text = (r: Result) => r.content.map((c) => c.text ?? "").join("");

describe("read", () => {
	test("reads a file relative to the session directory, without a BOM", async () => {
		writeFileSync(join(dir, "a.txt"), "\uFEFFone\ntwo\n");
		const r = (await readTool(local, dir).execute("t", { path: "a.txt" })) as Result;
		expect(text(r)).toBe("one\ntwo");
	});

	test("offset and limit with a continuation notice", async () => {
		writeFileSync(join(dir, "a.txt"), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));
		const r = (await readTool(local, dir).execute("t", { path: "a.txt", offset: 3, limit: 2 })) as Result;
		expect(text(r)).toBe("line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]");
	});

	test("long files are cut at 2000 lines with a notice", async () => {
		writeFileSync(join(dir, "big.txt"), Array.from({ length: 2500 }, (_, i) => `l${i + 1}`).join("\n"));
		const r = (await readTool(local, dir).execute("t", { path: "big.txt" })) as Result;
		const out = text(r);
		expect(out).toContain("l2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]");
		expect(out).not.toContain("l2001\n");
	});

	test("offset beyond the end and a missing file are clear errors", async () => {
		writeFileSync(join(dir, "a.txt"), "x\ny");
		await expect(readTool(local, dir).execute("t", { path: "a.txt", offset: 9 })).rejects.toThrow(
			"Offset 9 is beyond end of file (2 lines total)",
		);
		await expect(readTool(local, dir).execute("t", { path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
	});

	test("images come back as attachments", async () => {
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
		writeFileSync(join(dir, "p.png"), png);
		const r = (await readTool(local, dir).execute("t", { path: "p.png" })) as Result;
		expect(r.content[1]).toEqual({ type: "image", data: png.toString("base64"), mimeType: "image/png" });
	});
});

describe("write", () => {
	test("creates parent directories and reports the byte count", async () => {
		const r = (await writeTool(local, dir).execute("t", { path: "x/y/z.txt", content: "héllo" })) as Result;
		expect(readFileSync(join(dir, "x/y/z.txt"), "utf8")).toBe("héllo");
		expect(text(r)).toBe("Successfully wrote 6 bytes to x/y/z.txt");
	});
});

describe("edit", () => {
	test("replaces unique text and returns pi's display diff", async () => {
		const lines = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`);
		writeFileSync(join(dir, "f.txt"), `${lines.join("\n")}\n`);
		const r = (await editTool(local, dir).execute("t", {
			path: "f.txt",
			edits: [{ oldText: "row 10\n", newText: "ROW TEN\n" }],
		})) as Result;
		expect(readFileSync(join(dir, "f.txt"), "utf8")).toContain("row 9\nROW TEN\nrow 11");
		const details = r.details as { diff: string; firstChangedLine: number };
		expect(details.firstChangedLine).toBe(10);
		expect(details.diff.split("\n")).toEqual([
			"    ...",
			"  6 row 6",
			"  7 row 7",
			"  8 row 8",
			"  9 row 9",
			"-10 row 10",
			"+10 ROW TEN",
			" 11 row 11",
			" 12 row 12",
			" 13 row 13",
			" 14 row 14",
			"    ...",
		]);
	});

	test("several edits match the original file, not each other's results", async () => {
		writeFileSync(join(dir, "f.txt"), "a\nb\nc\n");
		await editTool(local, dir).execute("t", {
			path: "f.txt",
			edits: [
				{ oldText: "a", newText: "b" },
				{ oldText: "b", newText: "c" },
			],
		});
		expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("b\nc\nc\n");
	});

	test("not found, ambiguous, overlapping and no-op edits fail and leave the file alone", async () => {
		const file = join(dir, "f.txt");
		writeFileSync(file, "same\nsame\nother\n");
		const tool = editTool(local, dir);
		await expect(tool.execute("t", { path: "f.txt", edits: [{ oldText: "missing", newText: "x" }] })).rejects.toThrow(
			"Could not find the exact text in f.txt",
		);
		await expect(tool.execute("t", { path: "f.txt", edits: [{ oldText: "same", newText: "x" }] })).rejects.toThrow(
			"Found 2 occurrences of the text in f.txt",
		);
		await expect(
			tool.execute("t", {
				path: "f.txt",
				edits: [
					{ oldText: "same\nother", newText: "x" },
					{ oldText: "other\n", newText: "y" },
				],
			}),
		).rejects.toThrow("edits[0] and edits[1] overlap in f.txt");
		await expect(tool.execute("t", { path: "f.txt", edits: [{ oldText: "other", newText: "other" }] })).rejects.toThrow(
			"No changes made to f.txt",
		);
		await expect(tool.execute("t", { path: "gone.txt", edits: [{ oldText: "a", newText: "b" }] })).rejects.toThrow(
			"Could not edit file: gone.txt. Error code: ENOENT.",
		);
		expect(readFileSync(file, "utf8")).toBe("same\nsame\nother\n");
	});

	test("keeps a BOM and CRLF line endings", async () => {
		writeFileSync(join(dir, "w.txt"), "\uFEFFone\r\ntwo\r\n");
		await editTool(local, dir).execute("t", { path: "w.txt", edits: [{ oldText: "one\ntwo", newText: "1\n2" }] });
		expect(readFileSync(join(dir, "w.txt"), "utf8")).toBe("\uFEFF1\r\n2\r\n");
	});

	test("display diff numbers pure additions", () => {
		const d = displayDiff("a\nb\n", "a\nnew\nb\n");
		expect(d.firstChangedLine).toBe(2);
		expect(d.diff).toBe(" 1 a\n+2 new\n 2 b");
	});
});

describe("bash", () => {
	const spill = () => join(dir, "spill");

	test("streams output before the command ends, in the session directory", async () => {
		const updates: string[] = [];
		const r = (await bashTool(local, dir, spill()).execute(
			"t",
			{ command: "pwd; echo first; sleep 0.4; echo second" },
			undefined,
			(u) => updates.push((u.content[0] as { text: string }).text),
		)) as Result;
		expect(text(r)).toBe(`${dir}\nfirst\nsecond`);
		expect(updates.some((u) => u.includes("first") && !u.includes("second"))).toBe(true);
		expect(r.details).toEqual({ exitCode: 0, truncated: false });
	});

	test("a failing command is an error result with pi's exit line", async () => {
		const r = (await bashTool(local, dir, spill()).execute("t", { command: "echo oops >&2; exit 3" })) as Result;
		expect(r.isError).toBe(true);
		expect(text(r)).toBe("oops\n\nCommand exited with code 3");
		expect(r.details).toEqual({ exitCode: 3, truncated: false });
	});

	test("long output keeps the tail and spills the whole output to a private file", async () => {
		const r = (await bashTool(local, dir, spill()).execute("abc", { command: "seq 1 3000" })) as Result;
		const details = r.details as { truncated: boolean; fullOutputPath: string };
		expect(details.truncated).toBe(true);
		const out = text(r);
		expect(out.startsWith("1001\n")).toBe(true);
		expect(out).toContain(`[Showing lines 1001-3000 of 3000. Full output: ${details.fullOutputPath}]`);
		const full = readFileSync(details.fullOutputPath, "utf8");
		expect(full.split("\n").length).toBe(3001);
		expect(statSync(details.fullOutputPath).mode & 0o777).toBe(0o600);
	});

	test("abort ends the command and everything it started", async () => {
		const marker = join(dir, "survivor");
		const pidFile = join(dir, "survivor.pid");
		const controller = new AbortController();
		const run = bashTool(local, dir, spill()).execute(
			"t",
			{ command: `(echo $BASHPID > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; sleep 1; touch ${marker}) & sleep 5` },
			controller.signal,
		);
		const pid = await waitForValue(
			() => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined),
			"the background subshell to start",
		);
		controller.abort();
		await expect(run).rejects.toThrow("Command aborted");
		// Once the subshell has ended it can touch nothing more: a subshell left running would end only after its touch.
		await waitUntil(() => processEnded(pid), "the background subshell to end", 20_000);
		expect(existsSync(marker)).toBe(false);
	});

	test("in a directory that was deleted, it says the directory is gone (pi's words), not ENOENT posix_spawn", async () => {
		const gone = join(dir, "deleted");
		await expect(bashTool(local, gone, spill()).execute("t", { command: "echo hi" })).rejects.toThrow(
			`Working directory does not exist: ${gone}\nCannot execute bash commands.`,
		);
	});

	test("timeout kills the command with pi's message", async () => {
		await expect(
			bashTool(local, dir, spill()).execute("t", { command: "echo hi; sleep 5", timeout: 0.3 }),
		).rejects.toThrow("hi\n\nCommand timed out after 0.3 seconds");
	});
});
