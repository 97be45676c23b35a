import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLE_PATH, GUEST_COOKIE, OWNER_COOKIE } from "../../src/protocol/server-info.ts";
import { EventBus } from "../../src/server/events.ts";
import type { ServerContext, ServerPlugin } from "../../src/server/plugin.ts";
import { Routes } from "../../src/server/routes.ts";
import { type P2Server, startServer } from "../../src/server/server.ts";
import { Services } from "../../src/server/services.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serverWith(plugins: ServerPlugin[], options: { behindProxy?: boolean } = {}): Promise<P2Server> {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-surface-"));
	cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
	const server = await startServer({
		dataDir,
		plugins,
		env: {},
		...(options.behindProxy ? { behindProxy: true, publicOrigin: "https://p2.example" } : {}),
	});
	cleanups.push(() => server.stop());
	return server;
}

/** A plugin with a route of its own, and guests admitted by a fixed cookie to one session it makes. */
function probePlugin(seen: { ctx?: ServerContext; session?: string }): ServerPlugin {
	return {
		name: "probe",
		register(ctx) {
			seen.ctx = ctx;
			const session = ctx.catalog.create({ cwd: tmpdir() }).id;
			seen.session = session;
			ctx.admitGuests((cookie) =>
				cookie === "letmein" ? { role: "view", id: "guest:probe", name: "probe", session } : null,
			);
			ctx.routes.add("/probe", { POST: (_req, request) => Response.json({ sameOrigin: request.sameOrigin }) });
			ctx.routes.add("/probe/:name", (req) => new Response(new URL(req.url).pathname));
		},
	};
}

describe("a plugin's HTTP routes", () => {
	test("are answered only after the core's Host check, and a method they lack is 405 naming the ones they have", async () => {
		const server = await serverWith([probePlugin({})]);
		const post = (headers: Record<string, string>) =>
			fetch(`${server.origin}/probe`, { method: "POST", headers }).then((r) => r.status);
		expect(await post({ host: `rebind.example:${server.port}` })).toBe(403);
		expect(await post({ origin: server.origin })).toBe(200);
		const get = await fetch(`${server.origin}/probe`);
		expect(get.status).toBe(405);
		expect(await get.json()).toEqual({ error: "POST" });
		expect(await fetch(`${server.origin}/probe/x`).then((r) => r.text())).toBe("/probe/x");
		expect((await fetch(`${server.origin}/probe/x`, { headers: { host: "rebind.example" } })).status).toBe(403);
		expect((await fetch(`${server.origin}/nothing`)).status).toBe(404);
		expect((await fetch(`${server.origin}/nothing`, { headers: { host: "rebind.example" } })).status).toBe(403);
	});

	test("a path is routed once: a plugin cannot take the core's or another plugin's", async () => {
		const routes = new Routes();
		routes.add("/a", () => new Response());
		expect(() => routes.add("/a", () => new Response())).toThrow(/twice/);
		expect(() => routes.add("b", () => new Response())).toThrow(/does not start with/);
		const thief: ServerPlugin = {
			name: "thief",
			register: (ctx) => ctx.routes.add("/owner/redeem", () => new Response("mine")),
		};
		await expect(serverWith([thief])).rejects.toThrow(/twice/);
	});
});

describe("the core's hooks and services", () => {
	test("a guest cookie admits whom the admitting plugin says, never to an archived session", async () => {
		const seen: { ctx?: ServerContext; session?: string } = {};
		const server = await serverWith([probePlugin(seen)]);
		const head = (cookie: string) =>
			fetch(`${server.origin}${BUNDLE_PATH}`, { method: "HEAD", headers: { cookie } }).then((r) => r.status);
		expect(await head(`${GUEST_COOKIE}=letmein`)).toBe(200);
		expect(await head(`${GUEST_COOKIE}=wrong`)).toBe(401);
		seen.ctx?.catalog.update(seen.session ?? "", { archived: true });
		expect(await head(`${GUEST_COOKIE}=letmein`)).toBe(401);
	});

	test("without a plugin that admits guests, a guest cookie admits nobody; a second admitting plugin is refused", async () => {
		const server = await serverWith([]);
		const status = await fetch(`${server.origin}${BUNDLE_PATH}`, {
			method: "HEAD",
			headers: { cookie: `${GUEST_COOKIE}=letmein` },
		}).then((r) => r.status);
		expect(status).toBe(401);
		await expect(serverWith([probePlugin({}), { ...probePlugin({}), name: "second" }])).rejects.toThrow(
			/one plugin only/,
		);
	});

	test("services: one provider per name; an absent one is undefined", () => {
		const services = new Services();
		const named = services as unknown as {
			provide(name: string, service: unknown): void;
			get(name: string): unknown;
		};
		expect(named.get("probe")).toBeUndefined();
		named.provide("probe", { n: 1 });
		expect(named.get("probe")).toEqual({ n: 1 });
		expect(() => named.provide("probe", { n: 2 })).toThrow(/already provided/);
	});

	test("events reach the handlers of their name only, and a failing handler does not stop the others", () => {
		const bus = new EventBus();
		const got: string[] = [];
		bus.on("session.busy", () => {
			throw new Error("handler bug");
		});
		bus.on("session.busy", (e) => got.push(`busy ${e.session} ${e.busy}`));
		bus.on("session.activity", (e) => got.push(`activity ${e.session}`));
		const error = console.error;
		console.error = () => {};
		try {
			bus.emit({ type: "session.busy", session: "s", busy: true });
		} finally {
			console.error = error;
		}
		expect(got).toEqual(["busy s true"]);
	});
});

describe("sign-in cookies", () => {
	test("an owner's cookie is HttpOnly, SameSite=Strict, for the whole server, kept a year, and Secure behind TLS", async () => {
		const server = await serverWith([], { behindProxy: true });
		const token = server.mintOwnerLink().split("#")[1] ?? "";
		const local = `http://127.0.0.1:${server.port}`;
		const redeemed = await fetch(`${local}/owner/redeem`, {
			method: "POST",
			headers: { "content-type": "application/json", origin: "https://p2.example" },
			body: JSON.stringify({ token }),
		});
		expect(redeemed.status).toBe(200);
		const cookie = redeemed.headers.get("set-cookie") ?? "";
		expect(cookie).toStartWith(`${OWNER_COOKIE}=`);
		for (const attribute of ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=31536000", "Secure"]) {
			expect(cookie.split("; ")).toContain(attribute);
		}
		const value = cookie.split(";")[0] ?? "";
		const out = await fetch(`${local}/owner/logout`, {
			method: "POST",
			headers: { origin: "https://p2.example", cookie: value },
		});
		expect(out.status).toBe(200);
		const cleared = (out.headers.get("set-cookie") ?? "").split("; ");
		for (const attribute of [`${OWNER_COOKIE}=`, "Max-Age=0", "HttpOnly", "SameSite=Strict", "Path=/", "Secure"]) {
			expect(cleared).toContain(attribute);
		}
	});

	test("on plain loopback HTTP the cookie is not marked Secure", async () => {
		const server = await serverWith([]);
		const token = server.mintOwnerLink().split("#")[1] ?? "";
		const redeemed = await fetch(`${server.origin}/owner/redeem`, {
			method: "POST",
			headers: { "content-type": "application/json", origin: server.origin },
			body: JSON.stringify({ token }),
		});
		expect(redeemed.headers.get("set-cookie")?.split("; ")).not.toContain("Secure");
	});
});
