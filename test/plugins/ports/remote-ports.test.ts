/**
 * /ports for a session on an SSH machine (a real sshd on this machine's loopback): the ports listening there,
 * listed by one command on the machine, and one carried to the owner through ssh's stdio forwarding.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { portsContract } from "../../../src/plugins/ports/contract.ts";
import { parseListing } from "../../../src/plugins/ports/listening.ts";
import { sharingContract } from "../../../src/plugins/sharing/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";
import { sessionOn } from "../../support/ssh-session.ts";
import { findSshd, TestSshd } from "../../support/sshd.ts";

test("what a machine prints is read line by line; a machine without /proc is said", () => {
	const listing = [
		"@@tcp",
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0",
		"@@tcp6",
		"@@owners",
		"O 77 4242",
		"N 77 web-server\u001b[31m-with-a-very-long-name-that-goes-on-and-on-and-on-and-on-and-on",
		"O nonsense",
		"",
	].join("\n");
	const [port] = parseListing(listing, "box");
	expect(port).toMatchObject({ port: 8080, address: "127.0.0.1", pid: 77 });
	expect(port?.process?.length).toBe(64);
	expect(() => parseListing("@@none\n", "box")).toThrow("listing ports needs Linux's /proc on box");
});

const sshdPath = findSshd();

describe.skipIf(!sshdPath)("ports of a session on an SSH machine", () => {
	let sshd: TestSshd;
	let ts: TestServer;
	let web: ReturnType<typeof Bun.serve>;

	beforeAll(async () => {
		sshd = await TestSshd.start(sshdPath!);
		ts = await startTestServer();
		writeFileSync(join(ts.dataDir, "envs.json"), JSON.stringify({ environments: [sshd.entry("box")] }));
		ts.server.ctx.environments.reload();
		web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello from the machine") });
	});
	afterAll(async () => {
		web?.stop(true);
		await ts?.stop();
		await sshd?.stop();
	});

	test("listed by one command there, and one carried to the owner through the machine's connection", async () => {
		const owner = await ts.connect();
		const session = await sessionOn(owner, "box", sshd.home);

		const ports = await owner.open(portsContract, { session });
		const state = await waitForState(ports, (s) => s.ports.some((p) => p.port === web.port));
		expect(state).toMatchObject({ env: "box", error: null });
		// sshd's user is this test's: the machine may name the process that holds the port.
		expect(state.ports.find((p) => p.port === web.port)).toMatchObject({ address: "127.0.0.1", pid: process.pid });

		const url = `${ts.server.origin.replace(/^http/, "ws")}/ports/relay?session=${session}&port=${web.port}`;
		const socket = new WebSocket(url, {
			headers: { [DEVICE_TOKEN_HEADER]: ts.server.deviceToken },
		} as unknown as string[]);
		socket.binaryType = "arraybuffer";
		let received = "";
		const answered = new Promise<void>((resolve) => {
			socket.addEventListener("message", (e) => {
				received += new TextDecoder().decode(e.data as ArrayBuffer);
				if (received.includes("hello from the machine")) resolve();
			});
		});
		await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
		socket.send(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
		await answered;
		expect(received).toStartWith("HTTP/1.1 200");
		socket.close();

		// A full guest the owner lets forward sees the ports, never which machine they are on.
		const cookie = await joinAsGuest(ts.server, owner, session, "full");
		const sharing = await owner.open(sharingContract, { session });
		await sharing.call("setGuestForwards", { on: true });
		const guest = await ts.connect({ cookie, origin: ts.server.origin });
		const theirs = await guest.open(portsContract, { session });
		const seen = await waitForState(theirs, (s) => s.ports.some((p) => p.port === web.port));
		expect(seen.env).toBe("the session's machine");
		expect(JSON.stringify(seen)).not.toContain("box");
	});
});
