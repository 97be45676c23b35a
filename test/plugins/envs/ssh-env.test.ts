/**
 * The SSH environment against a real OpenSSH server on loopback: host keys (first use, changed, forgotten),
 * each tool with streaming and abort, a connection dropped mid-command, and completion on the machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { walkFiles } from "../../../src/plugins/path-completion/file-index.ts";
import { completePath, findFiles } from "../../../src/plugins/path-completion/server.ts";
import { createTools } from "../../../src/server/agent/tools/index.ts";
import { EnvConnectionError, type Environment } from "../../../src/server/env/environment.ts";
import { Environments } from "../../../src/server/env/environments.ts";
import { processEnded } from "../../support/processes.ts";
import { findSshd, TestSshd } from "../../support/sshd.ts";
import { waitUntil } from "../../support/wait.ts";

const sshdPath = findSshd();

type Result = { content: Array<{ type: string; text?: string }>; details?: unknown; isError?: boolean };
const text = (r: Result) => r.content.map((c) => c.text ?? "").join("");

function fingerprintOf(publicLine: string): string {
	const blob = publicLine.split(" ")[1]!;
	const hash = new Bun.CryptoHasher("sha256").update(Buffer.from(blob, "base64")).digest("base64");
	return `SHA256:${hash.replace(/=+$/, "")}`;
}

describe.skipIf(!sshdPath)("SSH environment", () => {
	let sshd: TestSshd;
	let dataDir: string;
	let envs: Environments;
	let work: string;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		dataDir = mkdtempSync(join(tmpdir(), "p2-envs-data-"));
		writeFileSync(join(dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		envs = new Environments({ dataDir });
		work = join(sshd.home, "work");
		mkdirSync(work);
	});
	afterAll(async () => {
		await envs?.close();
		await sshd?.stop();
		rmSync(dataDir, { recursive: true, force: true });
	});

	/** The machine's key, accepted as the owner would after the test showed it. */
	async function trust(): Promise<void> {
		const result = await envs.test("box");
		if (result.ok) return;
		expect(result.hostKey).toBeDefined();
		envs.acceptKey(
			"box",
			result.hostKey!.offered.map((k) => k.fingerprint),
		);
		expect((await envs.test("box")).ok).toBe(true);
	}

	test("an unknown host key stops the connection until the owner accepts the fingerprint the test showed", async () => {
		const tools = createTools({ env: envs.get("box"), cwd: work, spillDir: join(dataDir, "spill") });
		const bash = tools.find((t) => t.name === "bash")!;
		await expect(bash.execute("b0", { command: "echo hi" })).rejects.toThrow("is not verified yet");
		const result = await envs.test("box");
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.hostKey?.status).toBe("unknown");
		expect(result.hostKey?.known).toEqual([]);
		expect(result.hostKey?.offered.map((k) => k.fingerprint)).toEqual([fingerprintOf(sshd.hostPublicKey())]);
		// Fingerprints other than the ones shown are refused: nothing is trusted.
		expect(() => envs.acceptKey("box", ["SHA256:somethingElse"])).toThrow("changed since it was shown");
		envs.acceptKey(
			"box",
			result.hostKey!.offered.map((k) => k.fingerprint),
		);
		expect(readFileSync(envs.knownHostsFile, "utf8")).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
		const ok = await envs.test("box");
		expect(ok).toMatchObject({ ok: true, home: sshd.home });
	});

	test("read, write and edit work on the machine's files; paths and ~ are the machine's", async () => {
		await trust();
		const env = envs.get("box");
		const tools = createTools({ env, cwd: work, spillDir: join(dataDir, "spill") });
		const tool = (name: string) => tools.find((t) => t.name === name)!;
		const wrote = (await tool("write").execute("w1", { path: "dir/a.txt", content: "one\ntwo 'q'\n" })) as Result;
		expect(text(wrote)).toBe("Successfully wrote 12 bytes to dir/a.txt");
		expect(readFileSync(join(work, "dir/a.txt"), "utf8")).toBe("one\ntwo 'q'\n");
		const read = (await tool("read").execute("r1", { path: "~/work/dir/a.txt" })) as Result;
		expect(text(read)).toBe("one\ntwo 'q'");
		const edited = (await tool("edit").execute("e1", {
			path: "dir/a.txt",
			edits: [{ oldText: "two", newText: "TWO" }],
		})) as Result;
		expect(text(edited)).toBe("Successfully replaced 1 block(s) in dir/a.txt.");
		expect(readFileSync(join(work, "dir/a.txt"), "utf8")).toBe("one\nTWO 'q'\n");
		// Names with quotes, spaces and shell syntax are data on the machine, never code.
		const odd = "odd dir/it's $(touch pwned) `x` \\n;.txt";
		await tool("write").execute("w2", { path: odd, content: "safe" });
		expect(readFileSync(join(work, odd), "utf8")).toBe("safe");
		expect(text((await tool("read").execute("r4", { path: odd })) as Result)).toBe("safe");
		expect(existsSync(join(work, "pwned"))).toBe(false);
		await expect(tool("read").execute("r2", { path: "missing.txt" })).rejects.toThrow("File not found: missing.txt");
		await expect(tool("read").execute("r3", { path: "dir" })).rejects.toThrow("is a directory");
		await expect(
			tool("edit").execute("e2", { path: "nope.txt", edits: [{ oldText: "a", newText: "b" }] }),
		).rejects.toThrow("Could not edit file: nope.txt. Error code: ENOENT.");
	});

	test("bash streams its output while it runs, in the session's directory on the machine", async () => {
		await trust();
		const tools = createTools({ env: envs.get("box"), cwd: work, spillDir: join(dataDir, "spill") });
		const bash = tools.find((t) => t.name === "bash")!;
		const updates: string[] = [];
		const gate = join(work, "gate");
		const running = bash.execute(
			"b1",
			{ command: `pwd; echo first >&2; while [ ! -e gate ]; do sleep 0.05; done; echo second` },
			undefined,
			(partial) => updates.push(text(partial as Result)),
		);
		await waitUntil(() => updates.some((u) => u.includes("first")), "the first line before the command ends");
		writeFileSync(gate, "");
		const result = (await running) as Result;
		expect(text(result)).toBe(`${work}\nfirst\nsecond`);
		const failed = (await bash.execute("b2", { command: "echo out; exit 3" })) as Result;
		expect(failed.isError).toBe(true);
		expect(text(failed)).toBe("out\n\nCommand exited with code 3");
		await expect(bash.execute("b3", { command: "true" }, undefined, undefined)).resolves.toBeDefined();
	});

	test("abort kills the command's whole process group on the machine", async () => {
		await trust();
		const tools = createTools({ env: envs.get("box"), cwd: work, spillDir: join(dataDir, "spill") });
		const bash = tools.find((t) => t.name === "bash")!;
		const abort = new AbortController();
		const updates: string[] = [];
		const running = bash.execute(
			"b4",
			{ command: "sleep 1000 & echo $! > bg.pid; echo started; sleep 1001" },
			abort.signal,
			(partial) => updates.push(text(partial as Result)),
		);
		await waitUntil(() => updates.some((u) => u.includes("started")), "the command started");
		const pid = Number(readFileSync(join(work, "bg.pid"), "utf8"));
		abort.abort();
		await expect(running).rejects.toThrow("Command aborted");
		// The loopback machine is this one: the background child is seen ending.
		await waitUntil(() => processEnded(pid), "the background child ended with its group");
		// A timeout ends the group the same way, with pi's words.
		await expect(bash.execute("b4t", { command: "echo $$ > t.pid; sleep 1000", timeout: 1 })).rejects.toThrow(
			"Command timed out after 1 seconds",
		);
		const shell = Number(readFileSync(join(work, "t.pid"), "utf8"));
		await waitUntil(() => processEnded(shell), "the timed-out command ended");
	});

	test("more commands than sshd's sessions per connection wait their turn; aborting one is never kept waiting, and one aborted while waiting never runs", async () => {
		await trust();
		const tools = createTools({ env: envs.get("box"), cwd: work, spillDir: join(dataDir, "spill") });
		const bash = tools.find((t) => t.name === "bash")!;
		const abort = new AbortController();
		const first = bash.execute("m0", { command: "echo started; sleep 1000" }, abort.signal);
		const rest = Array.from({ length: 11 }, (_, i) =>
			bash.execute(`m${i + 1}`, { command: `while [ ! -e many.gate ]; do sleep 0.05; done; echo done ${i}` }),
		);
		const gate = join(work, "many.gate");
		try {
			// One more, given up while it waits its turn: it ends at once and never runs.
			const giveUp = new AbortController();
			const queued = bash.execute("mq", { command: "touch never.ran" }, giveUp.signal);
			giveUp.abort();
			await expect(queued).rejects.toThrow("Command aborted");
			// Eight run at once (sshd allows ten sessions); ending the first must still get through.
			abort.abort();
			await expect(first).rejects.toThrow("Command aborted");
		} finally {
			// Also when the test fails: the commands end instead of running on.
			abort.abort();
			writeFileSync(gate, "");
		}
		const results = (await Promise.all(rest)) as Result[];
		expect(results.map(text)).toEqual(Array.from({ length: 11 }, (_, i) => `done ${i}`));
		expect(existsSync(join(work, "never.ran"))).toBe(false);
	});

	test("a connection dropped mid-command fails that call clearly, and the next call reconnects", async () => {
		await trust();
		const env: Environment = envs.get("box");
		const tools = createTools({ env, cwd: work, spillDir: join(dataDir, "spill") });
		const bash = tools.find((t) => t.name === "bash")!;
		const updates: string[] = [];
		const running = bash.execute(
			"b5",
			{ command: "echo $$ > drop.pid; echo started; sleep 1000" },
			undefined,
			(partial) => updates.push(text(partial as Result)),
		);
		await waitUntil(() => updates.some((u) => u.includes("started")), "the command started");
		const pid = Number(readFileSync(join(work, "drop.pid"), "utf8"));
		await sshd.drop();
		const error = await running.then(
			() => null,
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(EnvConnectionError);
		expect(String((error as Error).message)).toContain("broke while the command ran");
		await sshd.resume();
		const again = (await bash.execute("b6", { command: "echo back" })) as Result;
		expect(text(again)).toBe("back");
		// What the broken connection left running is ended once the machine is reached again.
		await waitUntil(() => processEnded(pid), "the orphaned command was ended after reconnecting");
	});

	test("what the machine's login shell prints at start (a chatty .bashrc) never mixes into files or output", async () => {
		await trust();
		writeFileSync(join(sshd.home, ".bashrc"), "echo noise-from-bashrc\necho more-noise >&2\n");
		try {
			const env = envs.get("box");
			const tools = createTools({ env, cwd: work, spillDir: join(dataDir, "spill") });
			const tool = (name: string) => tools.find((t) => t.name === name)!;
			writeFileSync(join(work, "clean.txt"), "exactly this");
			expect(text((await tool("read").execute("n1", { path: "clean.txt" })) as Result)).toBe("exactly this");
			expect(text((await tool("bash").execute("n2", { command: "echo only-this" })) as Result)).toBe("only-this");
			expect((await env.listDirectory(work)).some((e) => e.name.includes("noise"))).toBe(false);
			expect(await env.stat(join(work, "clean.txt"))).toEqual({ kind: "file", size: 12 });
		} finally {
			rmSync(join(sshd.home, ".bashrc"));
		}
	});

	test("completion lists the machine's directories (Tab) and finds its files (@)", async () => {
		await trust();
		const env = envs.get("box");
		mkdirSync(join(work, "src/deep"), { recursive: true });
		mkdirSync(join(work, ".hidden"), { recursive: true });
		writeFileSync(join(work, "src/deep/needle.ts"), "");
		writeFileSync(join(work, ".hidden/secret.ts"), "");
		const tab = await completePath(env, work, "sr", "session");
		expect(tab.items).toEqual([{ path: "src/", dir: true }]);
		const home = await completePath(env, work, "~/wo", "server");
		expect(home.items).toEqual([{ path: "~/work/", dir: true }]);
		// A guest's completion never leaves the session's directory.
		expect((await completePath(env, work, "../", "session")).items).toEqual([]);
		const index = await walkFiles(env, work);
		const found = findFiles(index, "needle");
		expect(found.items[0]).toEqual({ path: "src/deep/needle.ts", dir: false });
		// Hidden files are found, as pi (fd --hidden) finds them.
		expect(findFiles(index, "secret").items).toEqual([{ path: ".hidden/secret.ts", dir: false }]);
	});

	test("a changed host key is refused until reviewed; forgetting a key stops the connection again", async () => {
		await trust();
		await sshd.changeHostKey();
		const env = envs.get("box");
		await expect(env.stat(work)).rejects.toThrow("has changed");
		const result = await envs.test("box");
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.hostKey?.status).toBe("changed");
		expect(result.hostKey?.known.length).toBe(1);
		expect(result.hostKey?.offered.map((k) => k.fingerprint)).toEqual([fingerprintOf(sshd.hostPublicKey())]);
		envs.acceptKey(
			"box",
			result.hostKey!.offered.map((k) => k.fingerprint),
		);
		expect((await envs.test("box")).ok).toBe(true);
		await envs.forgetKey("box");
		const after = await envs.test("box");
		expect(after.ok).toBe(false);
		if (!after.ok) expect(after.hostKey?.status).toBe("unknown");
	});
});
