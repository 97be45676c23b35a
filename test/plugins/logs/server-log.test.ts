import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOG_DIR, LOG_FILE, redactText, ServerLog } from "../../../src/server/log.ts";

const dirs: string[] = [];
function dataDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "p2-log-"));
	dirs.push(dir);
	return dir;
}
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const files = (dir: string) => readdirSync(join(dir, LOG_DIR)).sort();
const bytes = (dir: string) => files(dir).reduce((sum, f) => sum + statSync(join(dir, LOG_DIR, f)).size, 0);

describe("the server's log", () => {
	test("entries are JSON lines with time, level, source and text, in a private file", () => {
		const dir = dataDir();
		const log = new ServerLog(dir, { now: () => 1_700_000_000_000, echo: false });
		log.info("server", "listening");
		log.warn("session:abc", "run ended: error");
		const path = join(dir, LOG_DIR, LOG_FILE);
		const lines = readFileSync(path, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		expect(lines).toEqual([
			{ time: 1_700_000_000_000, level: "info", source: "server", text: "listening" },
			{ time: 1_700_000_000_000, level: "warn", source: "session:abc", text: "run ended: error" },
		]);
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(statSync(join(dir, LOG_DIR)).mode & 0o777).toBe(0o700);
	});

	test("bounded: files rotate by size and only a few older ones are kept", () => {
		const dir = dataDir();
		const log = new ServerLog(dir, { maxFileBytes: 2000, keepFiles: 2, keepEntries: 50, echo: false });
		for (let i = 0; i < 2000; i++) log.info("server", `line ${i} ${"x".repeat(60)}`);
		expect(files(dir)).toEqual(["server.1.jsonl", "server.2.jsonl", "server.jsonl"]);
		expect(bytes(dir)).toBeLessThanOrEqual(3 * 2000);
		for (const f of files(dir)) expect(statSync(join(dir, LOG_DIR, f)).size).toBeLessThanOrEqual(2000);
		// The newest line is in the live file; memory holds the newest entries only.
		expect(readFileSync(join(dir, LOG_DIR, LOG_FILE), "utf8")).toContain("line 1999 ");
		expect(log.recent()).toHaveLength(50);
		expect(log.recent().at(-1)?.text).toStartWith("line 1999 ");
	});

	test("nothing secret is written: registered secrets, keys, tokens, bearer values and cookies are redacted", () => {
		const dir = dataDir();
		const log = new ServerLog(dir, { echo: false });
		const deviceToken = "Zr0mF8cWkqj2s7PpX1yT5uVbN3dLhA9eQwEiRtYuIoP"; // 43 characters, as p2's tokens
		const registered = "hunter2-but-longer";
		log.addSecret(registered);
		const said = [
			`device token ${deviceToken}`,
			"key sk-ant-api03-abcdefghijklmnop was refused",
			"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
			"cookie p2_owner=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG; Path=/",
			'{"apiKey": "AIzaSyD-not-a-real-key"}',
			`password=${registered}`,
			"token=short123",
		];
		for (const text of said) log.warn("server", text);
		const written = readFileSync(join(dir, LOG_DIR, LOG_FILE), "utf8");
		for (const secret of [
			deviceToken,
			"sk-ant-api03-abcdefghijklmnop",
			"eyJhbGciOiJIUzI1NiJ9",
			"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
			"AIzaSyD-not-a-real-key",
			registered,
			"short123",
		]) {
			expect(written).not.toContain(secret);
			expect(
				log
					.recent()
					.map((e) => e.text)
					.join("\n"),
			).not.toContain(secret);
		}
		expect(written).toContain("[redacted]");
		// Ordinary text stays as it was: ids, paths, numbers.
		const id = "0b7c3a52-1f1e-4a55-9f44-0c7d2f3b9a10";
		log.info(`session:${id}`, "opened /home/someone/project at 12:30 with 3 files");
		expect(log.recent().at(-1)).toMatchObject({
			source: `session:${id}`,
			text: "opened /home/someone/project at 12:30 with 3 files",
		});
	});

	test("redactText keeps what is not shaped like a secret", () => {
		expect(redactText("the session store could not be read (file is not a database)")).toBe(
			"the session store could not be read (file is not a database)",
		);
	});

	test("below its level nothing is kept; a restarted log shows the earlier run's last entries, without their notices", () => {
		const dir = dataDir();
		const first = new ServerLog(dir, { echo: false });
		first.debug("server", "not kept");
		first.warn("server", "disk nearly full", { key: "disk.low" });
		expect(first.recent().map((e) => e.text)).toEqual(["disk nearly full"]);
		const second = new ServerLog(dir, { echo: false });
		expect(second.recent()).toHaveLength(1);
		expect(second.recent()[0]).toMatchObject({ text: "disk nearly full", level: "warn" });
		expect(second.recent()[0]?.notice).toBeUndefined();
	});

	test("a listener hears each entry, and a resolved notice is heard but not kept", () => {
		const log = new ServerLog(dataDir(), { echo: false });
		const heard: string[] = [];
		const off = log.subscribe((e) => heard.push(`${e.level}:${e.resolves ?? e.notice?.key ?? ""}`));
		log.error("server", "x", { key: "k" });
		log.resolve("server", "k", "over");
		off();
		log.info("server", "after");
		expect(heard).toEqual(["error:k", "info:k"]);
		expect(log.recent().map((e) => e.text)).toEqual(["x", "after"]);
	});
});
