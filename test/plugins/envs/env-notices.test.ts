/**
 * An environment the server cannot reach, or whose host key is not verified or has changed, is a notice for the
 * owner (issue 25), once per trouble; /retry connects again, and a connection that works ends the notice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { envsContract } from "../../../src/plugins/envs/contract.ts";
import { noticesContract } from "../../../src/plugins/notices/contract.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";
import { findSshd, TestSshd } from "../../support/sshd.ts";

const sshdPath = findSshd();

describe.skipIf(!sshdPath)("environments' notices", () => {
	let sshd: TestSshd;
	let ts: TestServer;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		ts = await startTestServer();
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		ts.server.ctx.environments.reload();
	});
	afterAll(async () => {
		await ts?.stop();
		await sshd?.stop();
	});

	test("an unverified host key is one notice under the machine's source; /retry after the key is accepted ends it", async () => {
		const owner = await ts.connect();
		const notices = await owner.open(noticesContract, {});
		const envs = await owner.open(envsContract, {});
		const box = ts.server.ctx.environments.get("box");
		await expect(box.listDirectory("/")).rejects.toThrow("not verified yet");
		const raised = await waitForState(notices, (s) => s.notices.some((n) => n.source === "env:box"));
		const notice = raised.notices.find((n) => n.source === "env:box");
		expect(notice).toMatchObject({ level: "warn", retry: true, text: expect.stringContaining("Review it in /envs") });
		// The same trouble again is not a second notice.
		await expect(box.listDirectory("/")).rejects.toThrow("not verified yet");
		expect((await notices.call("retry", { id: notice?.id ?? "" })).message).toContain("not verified yet");
		expect(notices.state?.notices.filter((n) => n.source === "env:box").length).toBe(1);

		const tested = await envs.call("test", { name: "box" });
		await envs.call("acceptKey", {
			name: "box",
			fingerprints: tested.hostKey?.offered.map((k) => k.fingerprint) ?? [],
		});
		const current = notices.state?.notices.find((n) => n.source === "env:box");
		expect((await notices.call("retry", { id: current?.id ?? "" })).message).toBe("Connected to box again.");
		await waitForState(notices, (s) => !s.notices.some((n) => n.source === "env:box"));
	});

	test("a tool that reaches the machine again ends its notice, without /retry", async () => {
		const owner = await ts.connect();
		const notices = await owner.open(noticesContract, {});
		const envs = await owner.open(envsContract, {});
		await envs.call("forgetKey", { name: "box" });
		const box = ts.server.ctx.environments.get("box");
		await expect(box.listDirectory("/")).rejects.toThrow("not verified yet");
		await waitForState(notices, (s) => s.notices.some((n) => n.source === "env:box"));
		const tested = await envs.call("test", { name: "box" });
		// Accepting the key alone does not say the machine is reachable: the notice stays until something reaches it.
		await envs.call("acceptKey", {
			name: "box",
			fingerprints: tested.hostKey?.offered.map((k) => k.fingerprint) ?? [],
		});
		expect(notices.state?.notices.some((n) => n.source === "env:box")).toBe(true);
		expect((await box.listDirectory("/")).length).toBeGreaterThan(0);
		await waitForState(notices, (s) => !s.notices.some((n) => n.source === "env:box"));
	});
});
