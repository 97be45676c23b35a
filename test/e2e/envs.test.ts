/**
 * End to end: p2 in a pseudo-terminal moves its session to an SSH machine (a real sshd on loopback) with /cd;
 * the move's note is confirmed with Enter, the footer then writes env:path, and `!` runs there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeHome, fakeHome, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";
import { findSshd, TestSshd } from "../support/sshd.ts";

const sshdPath = findSshd();

describe.skipIf(!sshdPath)("sessions on an SSH machine, in the terminal", () => {
	let home: FakeHome;
	let sshd: TestSshd;
	beforeAll(async () => {
		home = await fakeHome("p2-envs-e2e-");
		sshd = await TestSshd.start(sshdPath!);
		mkdirSync(join(sshd.home, "work"));
		writeFileSync(join(home.data, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		// The owner accepted this machine's key before (the /envs review is tested on its own).
		const [type, key] = sshd.hostPublicKey().split(" ");
		writeFileSync(join(home.data, "known_hosts"), `[127.0.0.1]:${sshd.port} ${type} ${key}\n`, { mode: 0o600 });
	});
	afterAll(async () => {
		await home?.remove();
		await sshd?.stop();
	});

	test("/cd box:~/work (Tab-completed) asks with the move's note; Enter moves; the footer says box:path; ! runs there", async () => {
		const p2 = runInPty([process.execPath, MAIN], { env: home.env, cwd: home.home, cols: 140, rows: 40 });
		try {
			await p2.waitFor((s) => s.includes("fake-model"), "the chat");
			p2.type("/cd");
			await p2.waitFor((s) => s.includes("Change the session's directory"), "the command in the list");
			// Tab completes the machine's name, then its folder; typing alone offers nothing (Enter submits).
			p2.type(" bo\t");
			await p2.waitFor((s) => s.includes("/cd box:"), "the machine's name completed");
			p2.type("~/wo\t");
			await p2.waitFor((s) => s.includes("/cd box:~/work/"), "the machine's folder completed");
			p2.type("\r");
			await p2.waitFor(
				(s) => s.includes("Tools will run on box. The history stays; files are not copied."),
				"the move's note",
			);
			p2.type("\r");
			const where = `box:${join(sshd.home, "work")}`;
			// The footer's first line begins with the place (the notice says it too, after a ✓).
			await p2.waitFor(
				(s) => s.split("\n").some((line) => line.trimStart().startsWith(where)),
				"the footer's env:path",
			);
			p2.type('!echo "on $HOME"\r');
			await p2.waitFor((s) => s.includes(`on ${sshd.home}`), "the command's output from the machine");
			expect(p2.screen().join("\n")).toContain(where);
		} finally {
			p2.kill();
			await p2.exited;
		}
	}, 60_000);
});
