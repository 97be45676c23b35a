import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { sharingContract } from "../../src/plugins/sharing/contract.ts";
import { DEVICE_TOKEN_HEADER, SOCKET_PATH } from "../../src/protocol/server-info.ts";
import { ownOrigins, primaryOrigin } from "../../src/server/auth/own-origins.ts";
import { startServer } from "../../src/server/server.ts";
import { connectClient, startTestServer, type TestServer } from "../support/p2-server.ts";

/**
 * DNS rebinding: a page on rebind.example whose name now points at this server sends a Host and an Origin
 * that both name rebind.example. Neither is the server's own, so nothing is answered.
 */
let ts: TestServer;
let session = "";
let port = 0;
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-origin-")));
beforeAll(async () => {
	ts = await startTestServer();
	port = ts.server.port;
	const c = await ts.connect();
	const sessions = await c.open(sessionsContract, {});
	session = (await sessions.call("create", { cwd })).id;
	c.close();
});
afterAll(async () => {
	await ts.stop();
	rmSync(cwd, { recursive: true, force: true });
});

const rebound = () => ({ host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` });
const device = () => ({ [DEVICE_TOKEN_HEADER]: ts.server.deviceToken });

async function shareToken(): Promise<string> {
	const c = await ts.connect();
	try {
		const sharing = await c.open(sharingContract, { session });
		return (await sharing.call("link", { access: "full", confirm: true })).path.slice("/join/".length);
	} finally {
		c.close();
	}
}

const postJoin = (headers: Record<string, string>, token: string) =>
	fetch(`${ts.server.origin}/join`, {
		method: "POST",
		headers: { "content-type": "application/json", ...headers },
		body: JSON.stringify({ token, name: "ana" }),
	});

const upload = (headers: Record<string, string>) =>
	fetch(`${ts.server.origin}/upload?session=${session}&name=a.txt`, { method: "POST", body: "x", headers });

describe("same-origin checks never trust the Host header", () => {
	test("POST /join with a forged Host and a matching Origin is refused; the server's own origin joins", async () => {
		const token = await shareToken();
		expect((await postJoin(rebound(), token)).status).toBe(403);
		// The forged Origin alone, with this server's Host, is refused too.
		expect((await postJoin({ origin: rebound().origin }, token)).status).toBe(403);
		expect((await postJoin({ origin: ts.server.origin }, token)).status).toBe(200);
	});

	test("POST /upload with a forged Host and a matching Origin is refused; the server's own origin uploads", async () => {
		expect((await upload({ ...device(), ...rebound() })).status).toBe(403);
		expect((await upload({ ...device(), origin: rebound().origin })).status).toBe(403);
		expect((await upload({ ...device(), origin: ts.server.origin })).status).toBe(200);
		// localhost is this loopback server's own name too.
		expect((await upload({ ...device(), host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(
			200,
		);
	});

	test("the WebSocket upgrade with a forged Host and a matching Origin is refused; the own origin connects", async () => {
		const plain = (headers: Record<string, string>) =>
			fetch(`${ts.server.origin}${SOCKET_PATH}`, { headers: { ...device(), ...headers } }).then((r) => r.status);
		expect(await plain(rebound())).toBe(403);
		expect(await plain({ origin: rebound().origin })).toBe(403);
		// The own origin passes every check and then asks for an upgrade this plain request does not make.
		expect(await plain({ origin: ts.server.origin })).toBe(400);
		await expect(connectClient(ts.server, { ...device(), ...rebound() })).rejects.toThrow();
		const genuine = await connectClient(ts.server, { ...device(), origin: ts.server.origin });
		expect(genuine.socket.readyState).toBe(WebSocket.OPEN);
		genuine.close();
	});

	test("a loopback server answers only to its own host names", async () => {
		const status = (host: string) =>
			fetch(`${ts.server.origin}/owner/check`, { headers: { host } }).then((r) => r.status);
		expect(await status(`rebind.example:${port}`)).toBe(403);
		expect(await status(`127.0.0.1:${port + 1}`)).toBe(403);
		for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
			expect(await status(host)).toBe(401);
		}
		// Another loopback address is another server's.
		expect(await status(`[::1]:${port}`)).toBe(403);
	});
});

describe("the server's own origins", () => {
	test("a loopback bind: its own address (and localhost for it) and the public origin; Host names one of them", () => {
		const own = ownOrigins({ scheme: "http", hostname: "127.0.0.1", port: 4300, publicOrigin: "https://p2.example" });
		for (const o of ["http://127.0.0.1:4300", "http://localhost:4300", "https://p2.example"]) {
			expect(own.isOwnOrigin(o)).toBe(true);
		}
		const other = ownOrigins({ scheme: "http", hostname: "127.0.0.2", port: 4300 });
		expect(other.isOwnOrigin("http://127.0.0.2:4300")).toBe(true);
		expect(other.isOwnOrigin("http://127.0.0.1:4300")).toBe(false);
		expect(primaryOrigin({ scheme: "http", hostname: "127.0.0.2", port: 4300 })).toBe("http://127.0.0.2:4300");
		expect(primaryOrigin({ scheme: "http", hostname: "localhost", port: 4300 })).toBe("http://127.0.0.1:4300");
		for (const o of [
			"http://rebind.example:4300",
			"https://127.0.0.1:4300",
			"http://127.0.0.1:4301",
			"http://[::1]:4300",
			"null",
		]) {
			expect(own.isOwnOrigin(o)).toBe(false);
		}
		expect(own.isOwnOrigin(null)).toBe(false);
		for (const h of ["127.0.0.1:4300", "p2.example", "p2.example:443"]) expect(own.acceptsHost(h)).toBe(true);
		for (const h of ["rebind.example:4300", "127.0.0.1", "p2.example:4300", ""]) expect(own.acceptsHost(h)).toBe(false);
		expect(own.acceptsHost(null)).toBe(false);
	});

	test("a TLS bind on a host name: that name's https origin, whatever the Host header says", () => {
		const own = ownOrigins({ scheme: "https", hostname: "p2.example.com", port: 8443 });
		expect(own.isOwnOrigin("https://p2.example.com:8443")).toBe(true);
		expect(own.isOwnOrigin("https://rebind.example:8443")).toBe(false);
		expect(own.isOwnOrigin("http://p2.example.com:8443")).toBe(false);
		// Not on loopback: the Origin check holds; every Host is answered.
		expect(own.acceptsHost("rebind.example:8443")).toBe(true);
	});

	test("a wildcard bind has no name of its own: only the public origin", () => {
		const own = ownOrigins({ scheme: "https", hostname: "0.0.0.0", port: 443, publicOrigin: "https://p2.example" });
		expect(own.isOwnOrigin("https://p2.example")).toBe(true);
		expect(own.isOwnOrigin("https://0.0.0.0")).toBe(false);
	});

	test("a wildcard bind or a proxy in front without --public-origin is refused at start", async () => {
		const tls = { cert: "/nonexistent/cert.pem", key: "/nonexistent/key.pem" };
		await expect(startServer({ dataDir: "/nonexistent", hostname: "0.0.0.0", tls, plugins: [] })).rejects.toThrow(
			/--public-origin/,
		);
		await expect(
			startServer({ dataDir: "/nonexistent", hostname: "127.0.0.1", behindProxy: true, plugins: [] }),
		).rejects.toThrow(/--public-origin/);
	});
});
