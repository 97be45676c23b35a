import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../../src/plugins/chat/contract.ts";
import { noticesContract } from "../../../src/plugins/notices/contract.ts";
import { noticesPlugin } from "../../../src/plugins/notices/server.ts";
import { providersContract } from "../../../src/plugins/providers/contract.ts";
import { sharingContract } from "../../../src/plugins/sharing/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../../src/protocol/server-info.ts";
import { LOG_DIR, LOG_FILE } from "../../../src/server/log.ts";
import { defaultPlugins } from "../../../src/server/plugins.ts";
import { type P2Server, startServer } from "../../../src/server/server.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { joinAsGuest } from "../../support/guests.ts";
import { connectClient, waitForState } from "../../support/p2-server.ts";

describe("notices raised by real faults", () => {
	const fixture = chatFixture();

	test("a provider answering 401 is a notice (and failing in /providers) until it answers again; nothing secret is logged", async () => {
		const { server, owner, chat } = await fixture.openChat();
		const notices = await owner.open(noticesContract, {});
		const providers = await owner.open(providersContract, {});
		// The server retries a failed answer (FAST_RETRY: 3 times); every attempt is refused.
		const refused = { status: 401, error: "Incorrect API key provided: sk-test-abcdefghijklmnop" };
		server.fake.enqueue(refused, refused, refused, refused);
		const prompt = "my secret prompt text 7f3";
		await chat.call("send", { text: prompt, mode: "steer", requestId: requestId() });
		const state = await waitForState(notices, (s) => s.notices.length > 0);
		expect(state.notices).toHaveLength(1);
		expect(state.notices[0]).toMatchObject({ level: "warn", retry: true });
		expect(state.notices[0]?.text).toContain("fake refused the server's credentials");
		expect(state.notices[0]?.text).toContain("/login");
		const failing = await waitForState(providers, (s) => s.providers.some((p) => p.failing !== null));
		expect(failing.providers.find((p) => p.id === "fake")).toMatchObject({ custom: true, auth: "config" });

		// /retry reads the credentials again and says so.
		const retried = await notices.call("retry", { id: state.notices[0]?.id ?? "" });
		expect(retried.message).toContain("fake's credentials were read again");

		// A run that works ends the notice.
		await waitForState(chat, (s) => s.live === null);
		server.fake.enqueue({ text: "fine" });
		await chat.call("send", { text: "again", mode: "steer", requestId: requestId() });
		await waitForState(notices, (s) => s.notices.length === 0);
		await waitForState(providers, (s) => s.providers.every((p) => p.failing === null));

		const written = readFileSync(join(server.dataDir, LOG_DIR, LOG_FILE), "utf8");
		expect(written).toContain("run ended: error");
		expect(written).not.toContain("sk-test-abcdefghijklmnop");
		expect(written).not.toContain(prompt);
	});

	test("dismissing a notice removes it; an unknown one is refused", async () => {
		const { server, owner, chat } = await fixture.openChat();
		const notices = await owner.open(noticesContract, {});
		const refused = { status: 401, error: "unauthorized" };
		server.fake.enqueue(refused, refused, refused, refused);
		await chat.call("send", { text: "hi", mode: "steer", requestId: requestId() });
		const state = await waitForState(notices, (s) => s.notices.length === 1);
		expect(await notices.call("dismiss", { id: state.notices[0]?.id ?? "" })).toBeNull();
		await waitForState(notices, (s) => s.notices.length === 0);
		await expect(notices.call("dismiss", { id: "n999" })).rejects.toThrow("that notice is gone");
	});
});

describe("guests waiting for approval", () => {
	const fixture = chatFixture();

	test("a guest's message held for approval is a notice for the owner until it is accepted", async () => {
		const { server, owner, chat, session } = await fixture.openChat();
		const notices = await owner.open(noticesContract, {});
		const sharing = await owner.open(sharingContract, { session });
		await sharing.call("setApproval", { on: true });
		const cookie = await joinAsGuest(server.server, owner, session, "full", "dee");
		const guest = await connectClient(server.server, { cookie });
		const guestChat = await guest.open(chatContract, { session, conversation: "main" });
		await guestChat.call("send", { text: "please run", mode: "steer", requestId: requestId() });
		const state = await waitForState(notices, (s) => s.notices.length === 1);
		expect(state.notices[0]?.text).toContain("A guest's message waits for your approval");
		expect(state.notices[0]?.source).toBe(`session:${session}`);
		const held = await waitForState(chat, (s) => s.queue.length === 1);
		server.fake.enqueue({ text: "done" });
		await chat.call("approve", { id: held.queue[0]?.id ?? "" });
		await waitForState(notices, (s) => s.notices.length === 0);
		guest.close();
	});
});

describe("a damaged store and a disk nearly full", () => {
	let server: P2Server | undefined;
	let dir: string | undefined;
	afterEach(async () => {
		await server?.stop();
		server = undefined;
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	test("a damaged sign-in store found at start is moved aside and is a notice for the owner", async () => {
		dir = mkdtempSync(join(tmpdir(), "p2-damaged-"));
		writeFileSync(join(dir, "auth.sqlite"), "this is not a database, it was damaged");
		server = await startServer({ dataDir: dir, plugins: defaultPlugins(), env: {}, log: { echo: false } });
		expect(readdirSync(dir).some((f) => f.startsWith("auth.sqlite.damaged-"))).toBe(true);
		const owner = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
		const notices = await owner.open(noticesContract, {});
		const state = await waitForState(notices, (s) => s.notices.length > 0);
		expect(state.notices[0]?.text).toContain("auth.sqlite could not be read");
		expect(state.notices[0]?.text).toContain("moved to");
		expect(state.notices[0]?.retry).toBe(false);
		await expect(notices.call("retry", { id: state.notices[0]?.id ?? "" })).rejects.toThrow("nothing to retry");
		owner.close();
	});

	test("a session whose store cannot be opened is a notice; /retry opens it again once it can be", async () => {
		dir = mkdtempSync(join(tmpdir(), "p2-open-"));
		const cwd = mkdtempSync(join(tmpdir(), "p2-open-cwd-"));
		const start = () => startServer({ dataDir: dir!, plugins: defaultPlugins(), env: {}, log: { echo: false } });
		server = await start();
		const session = server.ctx.catalog.create({ cwd }).id;
		await server.stop();
		// A store from a newer p2: it is not damaged (never moved aside), it just cannot be opened by this one.
		const path = join(dir, "sessions", `${session}.sqlite`);
		rmSync(path, { force: true });
		mkdirSync(join(dir, "sessions"), { recursive: true });
		const newer = new Database(path);
		newer.exec("PRAGMA user_version = 99");
		newer.close();
		server = await start();
		const owner = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
		const notices = await owner.open(noticesContract, {});
		await expect(owner.open(chatContract, { session, conversation: "main" })).rejects.toThrow();
		const state = await waitForState(notices, (s) => s.notices.length === 1);
		expect(state.notices[0]).toMatchObject({ level: "error", retry: true, source: `session:${session}` });
		expect(state.notices[0]?.text).toContain("could not be opened: schema version 99 is newer");
		const id = state.notices[0]?.id ?? "";
		await expect(notices.call("retry", { id })).rejects.toThrow("Retry failed");
		rmSync(path, { force: true });
		expect((await notices.call("retry", { id })).message).toContain("opens again");
		await waitForState(notices, (s) => s.notices.length === 0);
		expect(await owner.open(chatContract, { session, conversation: "main" })).toBeDefined();
		owner.close();
		rmSync(cwd, { recursive: true, force: true });
	});

	test("a disk nearly full is a notice; /retry checks again and the notice goes once there is room", async () => {
		dir = mkdtempSync(join(tmpdir(), "p2-disk-"));
		let free = 100 * 1024 * 1024;
		const total = 500 * 1024 * 1024 * 1024;
		const plugins = defaultPlugins().map((p) =>
			p.name === "notices" ? noticesPlugin({ disk: () => ({ free, total }) }) : p,
		);
		server = await startServer({ dataDir: dir, plugins, env: {}, log: { echo: false } });
		const owner = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
		const notices = await owner.open(noticesContract, {});
		const state = await waitForState(notices, (s) => s.notices.length === 1);
		expect(state.notices[0]).toMatchObject({ retry: true });
		expect(state.notices[0]?.text).toContain("nearly full: 0.1 GiB of 500.0 GiB left");
		free = 50 * 1024 * 1024 * 1024;
		const { message } = await notices.call("retry", { id: state.notices[0]?.id ?? "" });
		expect(message).toBe("The disk has 50.0 GiB free.");
		await waitForState(notices, (s) => s.notices.length === 0);
		owner.close();
	});
});
