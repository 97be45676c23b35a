import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { sessionsPlugin } from "../../../src/plugins/sessions/server.ts";
import { sharingContract } from "../../../src/plugins/sharing/contract.ts";
import { joinLimiter } from "../../../src/plugins/sharing/join-routes.ts";
import { sharingPlugin } from "../../../src/plugins/sharing/server.ts";
import { DEVICE_TOKEN_HEADER, GUEST_COOKIE } from "../../../src/protocol/server-info.ts";
import { startServer } from "../../../src/server/server.ts";
import { connectClient } from "../../support/p2-server.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the join limiter", () => {
	test("20 attempts per address in a window, counted from the start; the next window is whole again", () => {
		let now = 5_000;
		const limiter = joinLimiter(() => now);
		for (let i = 0; i < 20; i++) expect(limiter.take("10.0.0.1", 1, 20)).toBe(true);
		expect(limiter.take("10.0.0.1", 1, 20)).toBe(false);
		expect(limiter.take("10.0.0.2", 1, 20)).toBe(true);
		now += 59_999;
		expect(limiter.take("10.0.0.1", 1, 20)).toBe(false);
		now += 1;
		expect(limiter.take("10.0.0.1", 1, 20)).toBe(true);
	});
});

describe("the guest cookie", () => {
	test("is HttpOnly, SameSite=Strict, for the whole server, kept 30 days, and Secure behind TLS", async () => {
		const dataDir = mkdtempSync(join(tmpdir(), "p2-join-"));
		cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
		const server = await startServer({
			dataDir,
			plugins: [sessionsPlugin, sharingPlugin()],
			env: {},
			behindProxy: true,
			publicOrigin: "https://p2.example",
		});
		cleanups.push(() => server.stop());
		const local = `http://127.0.0.1:${server.port}`;
		const owner = await connectClient({ ...server, origin: local }, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
		cleanups.push(() => owner.close());
		const sessions = await owner.open(sessionsContract, {});
		const session = (await sessions.call("create", { cwd: dataDir })).id;
		const sharing = await owner.open(sharingContract, { session });
		const { path } = await sharing.call("link", { access: "view" });
		const joined = await fetch(`${local}/join`, {
			method: "POST",
			headers: { origin: "https://p2.example", "content-type": "application/json" },
			body: JSON.stringify({ token: path.slice("/join/".length), name: "ann" }),
		});
		expect(joined.status).toBe(200);
		const attributes = (joined.headers.get("set-cookie") ?? "").split("; ");
		expect(attributes[0]).toMatch(new RegExp(`^${GUEST_COOKIE}=[A-Za-z0-9_-]{43}$`));
		for (const attribute of ["HttpOnly", "SameSite=Strict", "Path=/", `Max-Age=${30 * 24 * 60 * 60}`, "Secure"]) {
			expect(attributes).toContain(attribute);
		}
		// A share link opened in a browser says how to use it; a path that is no share link is not found.
		const page = await fetch(`${local}${path}`);
		expect(page.status).toBe(200);
		expect(await page.text()).toContain("p2 --join");
		expect((await fetch(`${local}/join/short`)).status).toBe(404);
	});
});
