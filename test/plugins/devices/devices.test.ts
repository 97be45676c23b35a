import { afterEach, describe, expect, test } from "bun:test";
import { devicesContract } from "../../../src/plugins/devices/contract.ts";
import { OWNER_COOKIE } from "../../../src/protocol/server-info.ts";
import { connectClient, startTestServer, type TestServer, waitForState } from "../../support/p2-server.ts";

let ts: TestServer | undefined;
afterEach(async () => {
	await ts?.stop();
	ts = undefined;
});

/** An owner link redeemed by a client that names itself `agent`; its cookie header. */
async function signIn(server: TestServer, agent: string, path = server.server.mintOwnerLink()): Promise<Response> {
	return fetch(`${server.server.origin}/owner/redeem`, {
		method: "POST",
		headers: { origin: server.server.origin, "content-type": "application/json", "user-agent": agent },
		body: JSON.stringify({ token: path.slice(path.indexOf("#") + 1) }),
	});
}
function cookieOf(response: Response): string {
	const value = new RegExp(`${OWNER_COOKIE}=([^;]+)`).exec(response.headers.get("set-cookie") ?? "")?.[1];
	if (!value) throw new Error(`no owner cookie (${response.status})`);
	return `${OWNER_COOKIE}=${value}`;
}

describe("/devices on the server", () => {
	test("lists owner sign-ins with where and when, marks this one, and signs another out at once", async () => {
		ts = await startTestServer();
		const laptop = cookieOf(await signIn(ts, "p2 laptop"));
		const phone = cookieOf(await signIn(ts, "p2 phone"));
		const a = await connectClient(ts.server, { cookie: laptop });
		const b = await connectClient(ts.server, { cookie: phone });
		const devices = await a.open(devicesContract, {});
		const state = await waitForState(devices, (s) => s.signIns.length === 2);
		const mine = state.signIns.find((s) => s.current);
		const other = state.signIns.find((s) => !s.current);
		expect(mine).toMatchObject({ agent: "p2 laptop", address: "127.0.0.1" });
		expect(other).toMatchObject({ agent: "p2 phone", current: false });
		expect(mine?.lastUsedAt).toBeGreaterThanOrEqual(mine?.createdAt ?? Number.POSITIVE_INFINITY);
		// No cookie, no hash, in what the UI is given.
		expect(JSON.stringify(state)).not.toContain(laptop.split("=")[1] ?? "x");

		await expect(devices.call("signOut", { id: mine?.id ?? "" })).rejects.toThrow("/signout");
		const closed = new Promise<number>((resolve) => b.socket.addEventListener("close", (e) => resolve(e.code)));
		expect(await devices.call("signOut", { id: other?.id ?? "" })).toBeNull();
		await closed;
		await waitForState(devices, (s) => s.signIns.length === 1);
		const check = await fetch(`${ts.server.origin}/owner/check`, { headers: { cookie: phone } });
		expect(check.status).toBe(401);
		await expect(devices.call("signOut", { id: other?.id ?? "" })).rejects.toThrow("gone");
	});

	test("a one-time owner link for a new device works once; signing out all others keeps this one", async () => {
		ts = await startTestServer();
		const laptop = cookieOf(await signIn(ts, "p2 laptop"));
		const a = await connectClient(ts.server, { cookie: laptop });
		const devices = await a.open(devicesContract, {});
		const { path } = await devices.call("link", {});
		expect(path).toMatch(/^\/owner#[A-Za-z0-9_-]{43}$/);
		const tablet = await signIn(ts, "p2 tablet", path);
		expect(tablet.status).toBe(200);
		expect((await signIn(ts, "p2 thief", path)).status).toBe(403);
		// The new device connects, as p2 does after redeeming: the list is read again.
		await connectClient(ts.server, { cookie: cookieOf(tablet) });
		await waitForState(devices, (s) => s.signIns.some((x) => x.agent === "p2 tablet"));
		expect(await devices.call("signOutAll", {})).toEqual({ ended: 1 });
		const left = await waitForState(devices, (s) => s.signIns.length === 1);
		expect(left.signIns[0]).toMatchObject({ current: true, agent: "p2 laptop" });
		expect((await fetch(`${ts.server.origin}/owner/check`, { headers: { cookie: cookieOf(tablet) } })).status).toBe(
			401,
		);
	});

	test("this device's owner (no sign-in of its own) sees every sign-in, none marked, and may end them all", async () => {
		ts = await startTestServer();
		cookieOf(await signIn(ts, "p2 laptop"));
		const device = await ts.connect();
		const devices = await device.open(devicesContract, {});
		const state = await waitForState(devices, (s) => s.signIns.length === 1);
		expect(state.signIns.some((s) => s.current)).toBe(false);
		expect(await devices.call("signOutAll", {})).toEqual({ ended: 1 });
		await waitForState(devices, (s) => s.signIns.length === 0);
	});
});
