import { afterEach, describe, expect, test } from "bun:test";
import { OWNER_COOKIE } from "../../src/protocol/server-info.ts";
import { connectClient, startTestServer, type TestServer } from "../support/p2-server.ts";

let ts: TestServer | undefined;
afterEach(async () => {
	await ts?.stop();
	ts = undefined;
});

function tokenOf(link: string): string {
	return link.slice(link.indexOf("#") + 1);
}

async function redeem(origin: string, token: string, headerOrigin: string | null = origin) {
	return fetch(`${origin}/owner/redeem`, {
		method: "POST",
		headers: { "content-type": "application/json", ...(headerOrigin === null ? {} : { origin: headerOrigin }) },
		body: JSON.stringify({ token }),
	});
}

function cookieFrom(response: Response): string {
	const header = response.headers.get("set-cookie") ?? "";
	const match = new RegExp(`${OWNER_COOKIE}=([^;]+)`).exec(header);
	if (!match?.[1]) throw new Error(`no owner cookie in ${header}`);
	return `${OWNER_COOKIE}=${match[1]}`;
}

describe("owner sign-in", () => {
	test("an owner link is redeemed once, with the exact Origin, for an HttpOnly cookie", async () => {
		ts = await startTestServer();
		const { origin } = ts.server;
		const token = tokenOf(ts.server.mintOwnerLink());
		expect((await redeem(origin, token, "https://evil.example")).status).toBe(403);
		expect((await redeem(origin, token, null)).status).toBe(403);
		const ok = await redeem(origin, token);
		expect(ok.status).toBe(200);
		expect(ok.headers.get("set-cookie")).toContain("HttpOnly");
		expect(ok.headers.get("set-cookie")).toContain("SameSite=Strict");
		const cookie = cookieFrom(ok);
		expect((await redeem(origin, token)).status).toBe(403);

		expect((await fetch(`${origin}/owner/check`, { headers: { cookie } })).status).toBe(200);
		expect((await fetch(`${origin}/owner/check`)).status).toBe(401);
		const c = await connectClient(ts.server, { cookie });
		const access = await c.raw(JSON.stringify({ t: "open", h: 1, object: "access", version: 1, input: {} }));
		expect(access).toMatchObject({ t: "snapshot", state: { role: "owner" } });
		c.close();
	});

	test("logout ends that login and its open sockets; logout-all ends every login", async () => {
		ts = await startTestServer();
		const { origin } = ts.server;
		const a = cookieFrom(await redeem(origin, tokenOf(ts.server.mintOwnerLink())));
		const b = cookieFrom(await redeem(origin, tokenOf(ts.server.mintOwnerLink())));
		const socketA = await connectClient(ts.server, { cookie: a });
		const closed = new Promise<number>((resolve) => socketA.socket.addEventListener("close", (e) => resolve(e.code)));
		expect(
			(
				await fetch(`${origin}/owner/logout`, {
					method: "POST",
					headers: { cookie: a, origin: "https://evil.example" },
				})
			).status,
		).toBe(403);
		expect((await fetch(`${origin}/owner/logout`, { method: "POST", headers: { cookie: a, origin } })).status).toBe(
			200,
		);
		expect(await closed).toBe(4401);
		expect((await fetch(`${origin}/owner/check`, { headers: { cookie: a } })).status).toBe(401);
		expect((await fetch(`${origin}/owner/check`, { headers: { cookie: b } })).status).toBe(200);
		const c = cookieFrom(await redeem(origin, tokenOf(ts.server.mintOwnerLink())));
		expect((await fetch(`${origin}/owner/logout-all`, { method: "POST", headers: { cookie: b, origin } })).status).toBe(
			200,
		);
		for (const cookie of [b, c]) {
			expect((await fetch(`${origin}/owner/check`, { headers: { cookie } })).status).toBe(401);
		}
	});

	test("the guest bundle route needs a principal; HEAD checks it without a body", async () => {
		ts = await startTestServer();
		const { origin, deviceToken } = ts.server;
		expect((await fetch(`${origin}/__p2_tui`, { method: "HEAD" })).status).toBe(401);
		const head = await fetch(`${origin}/__p2_tui`, { method: "HEAD", headers: { "x-p2-device-token": deviceToken } });
		expect(head.status).toBe(200);
		expect((await fetch(`${origin}/__p2_tui`, { method: "POST" })).status).toBe(405);
	});

	test("a non-loopback address without TLS is refused", async () => {
		const { startServer } = await import("../../src/server/server.ts");
		await expect(startServer({ dataDir: "/nonexistent", hostname: "0.0.0.0", plugins: [] })).rejects.toThrow(
			/refusing to serve plain HTTP/,
		);
	});
});
