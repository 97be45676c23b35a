import { afterEach, describe, expect, test } from "bun:test";
import { accessContract } from "../../../src/plugins/access/contract.ts";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { sharingContract } from "../../../src/plugins/sharing/contract.ts";
import { BUNDLE_PATH, GUEST_COOKIE } from "../../../src/protocol/server-info.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { connectClient, type TestClient, type TestServer, waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();
const rid = requestId;
const guests: TestClient[] = [];
let ts: TestServer | undefined;

afterEach(() => {
	for (const g of guests.splice(0)) g.close();
});

async function setup() {
	ts = await fixture.start();
	const owner = await ts.connect();
	const { id: session } = await fixture.session(owner);
	const sharing = await owner.open(sharingContract, { session });
	return { server: ts, owner, session, sharing };
}

function joinRequest(
	origin: string,
	body: unknown,
	headers: Record<string, string> = {},
): Promise<{ status: number; cookie: string | undefined; body: Record<string, unknown> }> {
	return fetch(`${origin}/join`, {
		method: "POST",
		headers: { origin, "content-type": "application/json", ...headers },
		body: typeof body === "string" ? body : JSON.stringify(body),
	}).then(async (r) => ({
		status: r.status,
		cookie: new RegExp(`${GUEST_COOKIE}=([A-Za-z0-9_-]+)`).exec(r.headers.get("set-cookie") ?? "")?.[1],
		body: (await r.json()) as Record<string, unknown>,
	}));
}

async function joinAs(origin: string, path: string, name: string, prior?: string) {
	const token = path.replace("/join/", "");
	const answer = await joinRequest(origin, { token, name }, prior ? { cookie: `${GUEST_COOKIE}=${prior}` } : {});
	expect(answer.status).toBe(200);
	return answer.cookie!;
}

async function connectGuest(cookie: string): Promise<TestClient> {
	const client = await connectClient(ts!.server, { cookie: `${GUEST_COOKIE}=${cookie}` });
	guests.push(client);
	return client;
}

const bundleStatus = (origin: string, cookie: string) =>
	fetch(`${origin}${BUNDLE_PATH}`, { method: "HEAD", headers: { cookie: `${GUEST_COOKIE}=${cookie}` } }).then(
		(r) => r.status,
	);

function closed(client: TestClient): Promise<number> {
	return new Promise((resolve) => {
		if (client.socket.readyState === WebSocket.CLOSED) resolve(-1);
		client.socket.addEventListener("close", (e) => resolve(e.code), { once: true });
	});
}

describe("share links and /join", () => {
	test("a view link admits a named guest to exactly that session; wrong tokens all get the same answer", async () => {
		const { server, session, sharing } = await setup();
		const origin = server.server.origin;
		const { path } = await sharing.call("link", { access: "view" });
		expect(path).toMatch(/^\/join\/[A-Za-z0-9_-]{43}$/);
		expect((await sharing.call("link", { access: "view" })).path).toBe(path);

		const unknown = await joinRequest(origin, { token: "A".repeat(43), name: "x" });
		expect(unknown.status).toBe(403);
		expect(unknown.cookie).toBeUndefined();
		expect((await joinRequest(origin, { token: "short", name: "x" })).status).toBe(400);
		expect((await joinRequest(origin, "not json")).status).toBe(400);
		expect((await joinRequest(origin, "x".repeat(5000))).status).toBe(400);
		const token = path.slice("/join/".length);
		expect((await joinRequest(origin, { token, name: "  \u0007\u202e " })).status).toBe(400);
		const foreign = await joinRequest(origin, { token, name: "eve" }, { origin: "https://evil.example" });
		expect(foreign.status).toBe(403);

		const answer = await joinRequest(origin, {
			token,
			name: "Ana\u001b[31m Lovelace with a very long name that goes on",
		});
		expect(answer.status).toBe(200);
		expect(answer.body).toMatchObject({ role: "view", session });
		expect(String(answer.body.name).length).toBeLessThanOrEqual(40);
		expect(String(answer.body.name)).not.toContain("\u001b");

		const guest = await connectGuest(answer.cookie!);
		const access = await guest.open(accessContract, {});
		expect(access.state).toMatchObject({ role: "view", session });
		const catalog = await guest.open(sessionsContract, {});
		expect(catalog.state?.sessions.map((s) => s.id)).toEqual([session]);
		const listed = await waitForState(sharing, (s) => s.guests.length === 1 && s.guests[0]!.connected === 1);
		expect(listed.guests[0]).toMatchObject({ access: "view", blocked: false });
		expect(listed.links.view).toBeNumber();
		expect(listed.links.full).toBeNull();

		const chat = await guest.open(chatContract, { session, conversation: "main" });
		await expect(chat.call("send", { text: "hi", mode: "steer", requestId: rid() })).rejects.toMatchObject({
			code: "forbidden",
		});
		guest.close();
		await waitForState(sharing, (s) => s.guests[0]!.connected === 0);
	});

	test("a rejoin with the stored cookie keeps the identity; a full link needs confirming first", async () => {
		const { server, sharing } = await setup();
		const origin = server.server.origin;
		await expect(sharing.call("link", { access: "full" })).rejects.toMatchObject({ code: "conflict" });
		const full = await sharing.call("link", { access: "full", confirm: true });
		const view = await sharing.call("link", { access: "view" });
		const cookie = await joinAs(origin, view.path, "ana");
		const again = await joinAs(origin, full.path, "ana b", cookie);
		expect(again).toBe(cookie);
		// The rejoin's answer may arrive before the sharing state's patch: wait for the rejoin itself.
		const state = await waitForState(sharing, (s) => s.guests.length === 1 && s.guests[0]!.access === "full");
		expect(state.guests[0]).toMatchObject({ name: "ana b", access: "full" });
	});

	test("changing access is live; removing ends the connection at once; a blocked cookie cannot rejoin", async () => {
		const { server, session, sharing } = await setup();
		const origin = server.server.origin;
		const { path } = await sharing.call("link", { access: "view" });
		const cookie = await joinAs(origin, path, "bo");
		const guest = await connectGuest(cookie);
		const access = await guest.open(accessContract, {});
		const chat = await guest.open(chatContract, { session, conversation: "main" });
		const id = (await waitForState(sharing, (s) => s.guests.length === 1)).guests[0]!.id;

		server.fake.enqueue({ hang: true });
		await sharing.call("setAccess", { guest: id, access: "full" });
		await waitForState(access, (s) => s.role === "full");
		expect(await chat.call("send", { text: "from bo", mode: "steer", requestId: rid() })).toEqual({
			status: "started",
		});
		const sent = await waitForState(chat, (s) => s.entries.some((e) => e.kind === "user"));
		const entry = sent.entries.find((e) => e.kind === "user");
		expect(entry).toMatchObject({ text: "from bo", author: { id: `guest:${id}`, name: "bo", role: "full" } });

		await sharing.call("setAccess", { guest: id, access: "view" });
		await waitForState(access, (s) => s.role === "view");
		await expect(chat.call("send", { text: "again", mode: "steer", requestId: rid() })).rejects.toMatchObject({
			code: "forbidden",
		});

		const ended = closed(guest);
		await sharing.call("remove", { guest: id, block: true });
		expect(await ended).toBe(4401);
		expect(await bundleStatus(origin, cookie)).toBe(401);
		const back = await joinRequest(
			origin,
			{ token: path.slice(6), name: "bo" },
			{ cookie: `${GUEST_COOKIE}=${cookie}` },
		);
		expect(back.status).toBe(403);
		const state = await waitForState(sharing, (s) => s.guests.length === 1 && s.guests[0]!.blocked);
		expect(state.guests[0]!.connected).toBe(0);
	});

	test("a reset kills the old link and the guests it admitted", async () => {
		const { server, sharing } = await setup();
		const origin = server.server.origin;
		const old = await sharing.call("link", { access: "view" });
		const cookie = await joinAs(origin, old.path, "cy");
		const guest = await connectGuest(cookie);
		const ended = closed(guest);
		const fresh = await sharing.call("reset", { access: "view" });
		expect(fresh.path).not.toBe(old.path);
		expect(await ended).toBe(4401);
		expect(await bundleStatus(origin, cookie)).toBe(401);
		expect((await joinRequest(origin, { token: old.path.slice(6), name: "cy" })).status).toBe(403);
		await joinAs(origin, fresh.path, "cy");
	});

	test("/join is rate limited per address", async () => {
		const { server } = await setup();
		const origin = server.server.origin;
		const statuses: number[] = [];
		for (let i = 0; i < 22; i++)
			statuses.push((await joinRequest(origin, { token: "B".repeat(43), name: "x" })).status);
		expect(statuses.slice(0, 20).every((s) => s === 403)).toBe(true);
		expect(statuses.at(-1)).toBe(429);
	});
});

describe("authors and approval", () => {
	async function fullGuest() {
		const ctx = await setup();
		const { path } = await ctx.sharing.call("link", { access: "full", confirm: true });
		const cookie = await joinAs(ctx.server.server.origin, path, "dee");
		const guest = await connectGuest(cookie);
		const guestChat = await guest.open(chatContract, { session: ctx.session, conversation: "main" });
		const ownerChat = await ctx.owner.open(chatContract, { session: ctx.session, conversation: "main" });
		return { ...ctx, cookie, guest, guestChat, ownerChat };
	}

	test("approval mode holds a guest's message until the owner accepts it; a rejected one goes back", async () => {
		const { server, sharing, guestChat, ownerChat } = await fullGuest();
		await sharing.call("setApproval", { on: true });
		expect(await guestChat.call("send", { text: "please run", mode: "steer", requestId: rid() })).toEqual({
			status: "queued",
		});
		const held = await waitForState(ownerChat, (s) => s.queue.length === 1);
		expect(held.queue[0]).toMatchObject({ text: "please run", waiting: true, author: { name: "dee" } });
		expect(held.live).toBeNull();
		expect(server.fake.requests.length).toBe(0);

		server.fake.enqueue({ text: "done" });
		await ownerChat.call("approve", { id: held.queue[0]!.id });
		const ran = await waitForState(
			ownerChat,
			(s) => s.live === null && s.queue.length === 0 && s.entries.some((e) => e.kind === "assistant"),
		);
		expect(ran.entries.find((e) => e.kind === "user")).toMatchObject({ text: "please run", author: { name: "dee" } });

		await guestChat.call("send", { text: "no thanks", mode: "steer", requestId: rid() });
		const second = await waitForState(ownerChat, (s) => s.queue.length === 1);
		await ownerChat.call("reject", { id: second.queue[0]!.id });
		const back = await waitForState(guestChat, (s) => s.queue.length === 0 && s.returned.length === 1);
		expect(back.returned[0]!.texts).toEqual(["no thanks"]);
		expect(back.returned[0]!.authorId).toStartWith("guest:");
	});

	test("turning approval off releases what waits, in order", async () => {
		const { server, sharing, guestChat, ownerChat } = await fullGuest();
		await sharing.call("setApproval", { on: true });
		await guestChat.call("send", { text: "first", mode: "steer", requestId: rid() });
		await waitForState(ownerChat, (s) => s.queue.length === 1);
		server.fake.enqueue({ text: "ok" });
		await sharing.call("setApproval", { on: false });
		const state = await waitForState(
			ownerChat,
			(s) => s.live === null && s.entries.some((e) => e.kind === "assistant"),
		);
		expect(state.entries.filter((e) => e.kind === "user").map((e) => (e.kind === "user" ? e.text : ""))).toEqual([
			"first",
		]);
	});

	test("a full guest's stop stops anyone's run: their own queued texts come back to them, others' to their authors", async () => {
		const { server, guestChat, ownerChat } = await fullGuest();
		server.fake.enqueue({ hang: true });
		await ownerChat.call("send", { text: "owner's job", mode: "steer", requestId: rid() });
		await waitForState(ownerChat, (s) => s.live !== null);
		await guestChat.call("send", { text: "guest later", mode: "followUp", requestId: rid() });
		await ownerChat.call("send", { text: "owner later", mode: "followUp", requestId: rid() });
		await waitForState(ownerChat, (s) => s.queue.length === 2);
		expect(await guestChat.call("stop", null)).toEqual({ stopped: true, texts: ["guest later"] });
		const after = await waitForState(ownerChat, (s) => s.live === null && s.queue.length === 0);
		expect(after.returned.map((r) => r.texts)).toEqual([["owner later"]]);

		server.fake.enqueue({ hang: true });
		await guestChat.call("send", { text: "guest's job", mode: "steer", requestId: rid() });
		await waitForState(ownerChat, (s) => s.live !== null);
		expect(await ownerChat.call("stop", null)).toMatchObject({ stopped: true });
		await waitForState(ownerChat, (s) => s.live === null);
	});

	test("a full guest may not cancel someone else's ! command; its author or an owner may", async () => {
		const { guestChat, ownerChat } = await fullGuest();
		const running = ownerChat.call("shell", {
			command: "echo owners; sleep 30",
			includeInContext: false,
			requestId: rid(),
		});
		await waitForState(guestChat, (s) => s.shell?.output.includes("owners") === true);
		expect(await guestChat.call("stop", null)).toEqual({ stopped: false, texts: [] });
		expect(await ownerChat.call("stop", null)).toMatchObject({ stopped: true });
		expect(await running).toMatchObject({ cancelled: true });
	});

	test("archiving a session ends its guests' connections and their cookies' access", async () => {
		const { server, session, guest, owner, cookie } = await fullGuest();
		const ended = closed(guest);
		const sessions = await owner.open(sessionsContract, {});
		await sessions.call("archive", { id: session });
		expect(await ended).toBe(4401);
		expect(await bundleStatus(server.server.origin, cookie)).toBe(401);
	});

	test("a guest's uploads to a session are capped in all; the owner's are not", async () => {
		const { server, session, cookie } = await fullGuest();
		const { readdirSync, readFileSync, writeFileSync } = await import("node:fs");
		const { join } = await import("node:path");
		const { GUEST_UPLOAD_QUOTA } = await import("../../../src/plugins/chat/uploads.ts");
		const origin = server.server.origin;
		const upload = (headers: Record<string, string>) =>
			fetch(`${origin}/upload?session=${session}&name=a.txt`, {
				method: "POST",
				headers: { origin, ...headers },
				body: "hello",
			});
		const guest = { cookie: `${GUEST_COOKIE}=${cookie}` };
		expect((await upload(guest)).status).toBe(200);
		// What the guest has sent, as the server recorded it, brought close to the cap.
		const dir = join(server.dataDir, "uploads", session);
		const first = readdirSync(dir).find((n) => n.endsWith(".json"))!;
		const sent = JSON.parse(readFileSync(join(dir, first), "utf8"));
		const id = crypto.randomUUID();
		writeFileSync(join(dir, `${id}.bin`), "");
		writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...sent, id, size: GUEST_UPLOAD_QUOTA - 2 }));
		const refused = await upload(guest);
		expect(refused.status).toBe(413);
		expect(await refused.text()).toContain("a guest may send at most 100 MiB");
		const { DEVICE_TOKEN_HEADER } = await import("../../../src/protocol/server-info.ts");
		expect((await upload({ [DEVICE_TOKEN_HEADER]: server.server.deviceToken })).status).toBe(200);
	});

	test("the owner's dequeue of a guest's message sends it back to the guest, not to the owner", async () => {
		const { server, guestChat, ownerChat } = await fullGuest();
		server.fake.enqueue({ hang: true });
		await ownerChat.call("send", { text: "long job", mode: "steer", requestId: rid() });
		await waitForState(ownerChat, (s) => s.live !== null);
		await guestChat.call("send", { text: "mine", mode: "followUp", requestId: rid() });
		const queued = await waitForState(ownerChat, (s) => s.queue.length === 1);
		expect(await ownerChat.call("dequeue", { id: queued.queue[0]!.id })).toEqual({ text: null });
		const back = await waitForState(guestChat, (s) => s.returned.length === 1);
		expect(back.returned[0]!.texts).toEqual(["mine"]);
		await ownerChat.call("stop", null);
	});
});
