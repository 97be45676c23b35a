import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portsContract } from "../../../src/plugins/ports/contract.ts";
import { parseProcNetTcp } from "../../../src/plugins/ports/listening.ts";
import { sharingContract } from "../../../src/plugins/sharing/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:D2A4 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5151 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5252 1 0000000000000000 100 0 0 10 0
`;

describe("/ports", () => {
	test("/proc's tables are read for listening sockets only, with their addresses", () => {
		expect(parseProcNetTcp(TCP, false)).toEqual([
			{ port: 8080, address: "127.0.0.1", inode: "4242" },
			{ port: 22, address: "0.0.0.0", inode: "99" },
		]);
		expect(parseProcNetTcp(TCP6, true)).toEqual([
			{ port: 3000, address: "::", inode: "5151" },
			{ port: 8081, address: "::1", inode: "5252" },
		]);
	});

	let ts: TestServer | undefined;
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-ports-")));
	afterEach(async () => {
		await ts?.stop();
		ts = undefined;
	});

	test.if(process.platform === "linux")(
		"a port opened on the server's machine is listed with the process that holds it, after Ctrl+R's refresh",
		async () => {
			ts = await startTestServer();
			const owner = await ts.connect();
			const session = ts.server.ctx.catalog.create({ cwd }).id;
			const ports = await owner.open(portsContract, { session });
			expect(ports.state).toMatchObject({ env: "local", error: null });
			const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
			try {
				expect(ports.state?.ports.some((p) => p.port === listener.port)).toBe(false);
				await ports.call("refresh", {});
				const state = await waitForState(ports, (s) => s.ports.some((p) => p.port === listener.port));
				expect(state.ports.find((p) => p.port === listener.port)).toEqual({
					port: listener.port,
					address: "127.0.0.1",
					pid: process.pid,
					process: expect.any(String),
				});
				// The server's own port is there too: everything listening, not only what the agent started.
				expect(state.ports.some((p) => p.port === ts?.server.port)).toBe(true);
			} finally {
				listener.stop(true);
			}
			rmSync(cwd, { recursive: true, force: true });
		},
	);
});

describe("a port relayed to an owner's machine", () => {
	let ts: TestServer | undefined;
	let web: ReturnType<typeof Bun.serve> | undefined;
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-relay-")));
	afterEach(async () => {
		web?.stop(true);
		await ts?.stop();
		ts = undefined;
	});

	function relay(session: string, port: number, headers: Record<string, string>) {
		const url = `${ts?.server.origin.replace(/^http/, "ws")}/ports/relay?session=${session}&port=${port}`;
		return new WebSocket(url, { headers } as unknown as string[]);
	}

	test.if(process.platform === "linux")(
		"an owner's relay carries an HTTP request to a port listening on the server's machine",
		async () => {
			ts = await startTestServer();
			const session = ts.server.ctx.catalog.create({ cwd }).id;
			web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello through the relay") });
			const socket = relay(session, web.port ?? 0, { [DEVICE_TOKEN_HEADER]: ts.server.deviceToken });
			socket.binaryType = "arraybuffer";
			let received = "";
			const done = new Promise<void>((resolve) => {
				socket.addEventListener("message", (e) => {
					received += new TextDecoder().decode(e.data as ArrayBuffer);
					if (received.includes("hello through the relay")) resolve();
				});
			});
			await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
			socket.send(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
			await done;
			expect(received).toStartWith("HTTP/1.1 200");
			socket.close();
		},
	);

	test("a guest and a missing sign-in are refused; a relay to a port nothing listens on ends at once", async () => {
		ts = await startTestServer();
		const owner = await ts.connect();
		const session = ts.server.ctx.catalog.create({ cwd }).id;
		const cookie = await joinAsGuest(ts.server, owner, session, "full");
		const refused = async (headers: Record<string, string>, port: number) => {
			const url = `${ts?.server.origin}/ports/relay?session=${session}&port=${port}`;
			return (await fetch(url, { headers: { ...headers, upgrade: "websocket", connection: "upgrade" } })).status;
		};
		expect(await refused({ cookie }, ts.server.port)).toBe(403);
		expect(await refused({}, ts.server.port)).toBe(401);
		const free = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
		const port = free.port;
		free.stop(true);
		const socket = relay(session, port, { [DEVICE_TOKEN_HEADER]: ts.server.deviceToken });
		let received = 0;
		socket.addEventListener("message", () => received++);
		await new Promise<void>((resolve) => socket.addEventListener("close", () => resolve(), { once: true }));
		expect(received).toBe(0);
	});

	test.if(process.platform === "linux")(
		"a full guest forwards only while the owner allows it in /share; stopping it closes what they have open",
		async () => {
			ts = await startTestServer();
			const owner = await ts.connect();
			const session = ts.server.ctx.catalog.create({ cwd }).id;
			const other = ts.server.ctx.catalog.create({ cwd }).id;
			web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello, guest") });
			const port = web.port ?? 0;
			const cookie = await joinAsGuest(ts.server, owner, session, "full");
			const viewer = await joinAsGuest(ts.server, owner, session, "view");
			const guest = await ts.connect({ cookie, origin: ts.server.origin });
			await expect(guest.open(portsContract, { session })).rejects.toMatchObject({ code: "forbidden" });

			const sharing = await owner.open(sharingContract, { session });
			expect(sharing.state?.guestForwards).toBe(false);
			await sharing.call("setGuestForwards", { on: true });
			await waitForState(sharing, (s) => s.guestForwards);
			const ports = await guest.open(portsContract, { session });
			expect(ports.state?.env).toBe("local");

			const status = async (headers: Record<string, string>, forSession: string) => {
				const url = `${ts?.server.origin}/ports/relay?session=${forSession}&port=${port}`;
				return (await fetch(url, { headers: { ...headers, upgrade: "websocket", connection: "upgrade" } })).status;
			};
			// Only for their own session, and never for a view-only guest.
			expect(await status({ cookie }, other)).toBe(403);
			expect(await status({ cookie: viewer }, session)).toBe(403);

			const socket = relay(session, port, { cookie, origin: ts.server.origin });
			socket.binaryType = "arraybuffer";
			let received = "";
			const answered = new Promise<void>((resolve) => {
				socket.addEventListener("message", (e) => {
					received += new TextDecoder().decode(e.data as ArrayBuffer);
					if (received.includes("hello, guest")) resolve();
				});
			});
			const closed = new Promise<void>((resolve) => socket.addEventListener("close", () => resolve()));
			await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
			socket.send(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
			await answered;

			await sharing.call("setGuestForwards", { on: false });
			await closed;
			expect(await status({ cookie }, session)).toBe(403);
			await expect(guest.open(portsContract, { session })).rejects.toMatchObject({ code: "forbidden" });
		},
	);

	test.if(process.platform === "linux")(
		"a guest's open forward closes when the owner makes them view-only (and, removed, they cannot open another)",
		async () => {
			ts = await startTestServer();
			const owner = await ts.connect();
			const session = ts.server.ctx.catalog.create({ cwd }).id;
			web = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello") });
			const port = web.port ?? 0;
			const cookie = await joinAsGuest(ts.server, owner, session, "full");
			const sharing = await owner.open(sharingContract, { session });
			await sharing.call("setGuestForwards", { on: true });
			await waitForState(sharing, (s) => s.guestForwards && s.guests.length === 1);
			const socket = relay(session, port, { cookie, origin: ts.server.origin });
			const closed = new Promise<void>((resolve) => socket.addEventListener("close", () => resolve()));
			await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));

			await sharing.call("setAccess", { guest: sharing.state!.guests[0]!.id, access: "view" });
			await closed;
			const url = `${ts.server.origin}/ports/relay?session=${session}&port=${port}`;
			const again = await fetch(url, { headers: { cookie, upgrade: "websocket", connection: "upgrade" } });
			expect(again.status).toBe(403);
		},
	);
});
