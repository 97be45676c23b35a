/**
 * The session's terminal on the server: a shell on the session's machine in a pseudo-terminal, its output kept
 * bounded as the object's state, shared by the owner and full guests, refused to view guests, resized from a
 * panel, and ended a grace period after the last holder left.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { MAX_OUTPUT, MAX_WRITE, OUTPUT_SLACK, terminalContract } from "../../../src/plugins/terminal/contract.ts";
import { terminalPlugin } from "../../../src/plugins/terminal/server.ts";
import { keptOutput } from "../../../src/plugins/terminal/session-terminal.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { connectClient, startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";
import { sessionOn } from "../../support/ssh-session.ts";
import { findSshd, freePort, TestSshd } from "../../support/sshd.ts";
import { waitUntil } from "../../support/wait.ts";

let ts: TestServer;
let dir: string;

beforeAll(async () => {
	dir = mkdtempSync(join(tmpdir(), "p2-terminal-"));
	ts = await startTestServer({
		plugins: (defaults) => defaults.map((p) => (p.name === "terminal" ? terminalPlugin({ graceMs: 50 }) : p)),
	});
});
afterAll(async () => {
	await ts?.stop();
	rmSync(dir, { recursive: true, force: true });
});

async function newSession() {
	const owner = await ts.connect();
	const sessions = await owner.open(sessionsContract, {});
	const { id } = await sessions.call("create", { cwd: dir });
	return { owner, session: id };
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

test("a shell in the session's directory: typing reaches it, its output is the state, exit is said", async () => {
	const { owner, session } = await newSession();
	const terminal = await owner.open(terminalContract, { session });
	expect(terminal.state).toMatchObject({ status: "none", output: "" });
	await expect(terminal.call("write", { data: "echo no\r" })).rejects.toThrow("no shell runs");
	await terminal.call("start", { cols: 80, rows: 24 });
	await terminal.call("write", { data: "echo at-$(pwd)-$((40+2))\r" });
	await waitForState(terminal, (s) => s.output.includes(`at-${dir}-42`));
	await terminal.call("write", { data: "exit 3\r" });
	const ended = await waitForState(terminal, (s) => s.status === "exited");
	expect(ended.exitCode).toBe(3);
	// A new shell starts a fresh screen.
	await terminal.call("start", { cols: 80, rows: 24 });
	const again = await waitForState(terminal, (s) => s.status === "running");
	expect(again.shell).toBe(2);
	expect(again.output).not.toContain("at-");
	await terminal.call("write", { data: "exit\r" });
	await waitForState(terminal, (s) => s.status === "exited");
});

test("Ctrl+C interrupts what runs in the shell, as in a terminal (the shell's terminal is its controlling one)", async () => {
	const { owner, session } = await newSession();
	const terminal = await owner.open(terminalContract, { session });
	await terminal.call("start", { cols: 80, rows: 24 });
	await terminal.call("write", { data: "echo started-$((3+3)); sleep 600; echo slept-$((1+1))\r" });
	await waitForState(terminal, (s) => s.output.includes("started-6"));
	await terminal.call("write", { data: "\x03" });
	await terminal.call("write", { data: "echo after-$((2+2))\r" });
	const state = await waitForState(terminal, (s) => s.output.includes("after-4"));
	expect(state.output).not.toContain("slept-2");
	await terminal.call("write", { data: "exit\r" });
});

test("a resize reaches the shell's terminal and every holder's state", async () => {
	const { owner, session } = await newSession();
	const terminal = await owner.open(terminalContract, { session });
	await terminal.call("start", { cols: 80, rows: 24 });
	await terminal.call("resize", { cols: 101, rows: 33 });
	expect(terminal.state).toMatchObject({ cols: 101, rows: 33 });
	await terminal.call("write", { data: "echo size-$(stty size | tr ' ' x)\r" });
	await waitForState(terminal, (s) => s.output.includes("size-33x101"));
	await expect(terminal.call("resize", { cols: 0, rows: 10 })).rejects.toThrow();
	await terminal.call("write", { data: "exit\r" });
});

test("a flood is kept to its bound, cut at a line, and counted as dropped", async () => {
	const { owner, session } = await newSession();
	const terminal = await owner.open(terminalContract, { session });
	await terminal.call("start", { cols: 80, rows: 24 });
	await terminal.call("write", {
		data: "for i in $(seq 1 12000); do echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done; echo flood-$((6*7))\r",
	});
	const state = await waitForState(terminal, (s) => s.output.includes("flood-42"), 30_000);
	expect(state.output.length).toBeLessThanOrEqual(MAX_OUTPUT + OUTPUT_SLACK);
	expect(state.dropped).toBeGreaterThan(0);
	expect(state.output).toContain("line-12000-");
	await terminal.call("write", { data: "exit\r" });
});

test("what is kept: nothing cut below the bound; past it, the latest MAX_OUTPUT from a line's start", () => {
	expect(keptOutput("abc", "def")).toBeNull();
	const lines = "0123456789\n".repeat(40_000);
	const kept = keptOutput(lines, "tail")!;
	expect(kept.kept.length).toBeLessThanOrEqual(MAX_OUTPUT);
	expect(kept.kept.startsWith("0123456789\n")).toBe(true);
	expect(kept.kept.endsWith("tail")).toBe(true);
	expect(kept.cut + kept.kept.length).toBe(lines.length + 4);
	// One long line: cut where the bound says.
	const long = keptOutput("x".repeat(MAX_OUTPUT + OUTPUT_SLACK), "y")!;
	expect(long.kept.length).toBe(MAX_OUTPUT);
});

test("full guests share the owner's shell; view guests are refused it", async () => {
	const { owner, session } = await newSession();
	const terminal = await owner.open(terminalContract, { session });
	await terminal.call("start", { cols: 80, rows: 24 });
	const full = await connectClient(ts.server, { cookie: await joinAsGuest(ts.server, owner, session, "full") });
	const shared = await full.open(terminalContract, { session });
	await shared.call("write", { data: "echo from-guest-$((3*3))\r" });
	await waitForState(terminal, (s) => s.output.includes("from-guest-9"));
	// Starting again while it runs is no new shell.
	await shared.call("start", { cols: 80, rows: 24 });
	expect(shared.state?.shell).toBe(1);

	const view = await connectClient(ts.server, { cookie: await joinAsGuest(ts.server, owner, session, "view") });
	const refused = view.client.open(terminalContract, { session });
	await expect(refused.ready).rejects.toThrow();
	expect(refused.state).toBeUndefined();
	// Another session's terminal is not theirs; a write past its bound is refused whole.
	const other = await newSession();
	await expect(full.client.open(terminalContract, { session: other.session }).ready).rejects.toThrow();
	await expect(shared.call("write", { data: "x".repeat(MAX_WRITE + 1) })).rejects.toThrow();
	full.close();
	view.close();
	await terminal.call("write", { data: "exit\r" });
});

test("the shell ends a grace period after its last holder left, not before", async () => {
	const { owner, session } = await newSession();
	const terminal = await owner.open(terminalContract, { session });
	await terminal.call("start", { cols: 80, rows: 24 });
	await terminal.call("write", { data: "echo pid=$$=\r" });
	const state = await waitForState(terminal, (s) => /pid=\d+=/.test(s.output));
	const pid = Number(/pid=(\d+)=/.exec(state.output)?.[1]);
	expect(alive(pid)).toBe(true);
	terminal.close();
	await waitUntil(() => !alive(pid), "the shell to end after its last holder left");
	// A new holder finds a new terminal, with no shell.
	const next = await owner.open(terminalContract, { session });
	expect(next.state).toMatchObject({ status: "none", shell: 0 });
});

const sshdPath = findSshd();

describe.skipIf(!sshdPath)("the terminal of a session on an SSH machine", () => {
	let sshd: TestSshd;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		ts.server.ctx.environments.reload();
	});
	afterAll(async () => {
		await sshd?.stop();
	});

	test("a login shell there, in the session's directory, resized through ssh", async () => {
		const owner = await ts.connect();
		const session = await sessionOn(owner, "box", sshd.home);
		const terminal = await owner.open(terminalContract, { session });
		await terminal.call("start", { cols: 80, rows: 24 });
		await terminal.call("write", { data: "echo remote-$(pwd)-$((20+3))\r" });
		await waitForState(terminal, (s) => s.output.includes(`remote-${sshd.home}-23`), 20_000);
		await terminal.call("resize", { cols: 77, rows: 19 });
		await terminal.call("write", { data: "echo size-$(stty size | tr ' ' x)\r" });
		await waitForState(terminal, (s) => s.output.includes("size-19x77"), 20_000);
		await terminal.call("write", { data: "exit 4\r" });
		const ended = await waitForState(terminal, (s) => s.status === "exited", 20_000);
		expect(ended.exitCode).toBe(4);
	}, 60_000);

	test("a machine ssh cannot reach ends the shell with a sentence, not ssh's words (a guest may be reading)", async () => {
		const owner = await ts.connect();
		const sessions = await owner.open(sessionsContract, {});
		const session = (await sessions.call("create", { cwd: sshd.home, env: "box" })).id;
		// The machine moved: nothing listens where envs.json now says it is.
		const moved = { ...sshd.entry("box"), port: await freePort() };
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [moved] }));
		ts.server.ctx.environments.reload();
		const terminal = await owner.open(terminalContract, { session });
		await terminal.call("start", { cols: 80, rows: 24 });
		const ended = await waitForState(terminal, (s) => s.status === "exited", 20_000);
		expect(ended.error).toContain("could not be made or broke");
		expect(ended.output).not.toContain("127.0.0.1");
		expect(ended.output).not.toContain("refused");
	}, 60_000);
});
