import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatEntry, chatContract } from "../../../src/plugins/chat/contract.ts";
import { chatModeContract, REPLY_FIELD } from "../../../src/plugins/chat-mode/contract.ts";
import { sharingContract } from "../../../src/plugins/sharing/contract.ts";
import { GUEST_COOKIE } from "../../../src/protocol/server-info.ts";
import { chatFixture, requestId } from "../../support/chat-fixture.ts";
import { connectClient, type TestClient, type TestServer, waitForState } from "../../support/p2-server.ts";

const fixture = chatFixture();
const rid = requestId;
const guests: TestClient[] = [];
let ts: TestServer | undefined;

afterEach(() => {
	for (const g of guests.splice(0)) g.close();
});

async function joinAs(access: "full" | "view", name: string, session: string, sharing: SharingRef) {
	const origin = ts!.server.origin;
	const { path } = (await sharing.call("link", access === "full" ? { access, confirm: true } : { access })) as {
		path: string;
	};
	const answer = await fetch(`${origin}/join`, {
		method: "POST",
		headers: { origin, "content-type": "application/json" },
		body: JSON.stringify({ token: path.replace("/join/", ""), name }),
	});
	const cookie = new RegExp(`${GUEST_COOKIE}=([A-Za-z0-9_-]+)`).exec(answer.headers.get("set-cookie") ?? "")?.[1];
	const client = await connectClient(ts!.server, { cookie: `${GUEST_COOKIE}=${cookie}` });
	guests.push(client);
	return {
		client,
		chat: await openChat(client, session),
		mode: await client.open(chatModeContract, { session }),
	};
}

async function setup() {
	ts = await fixture.start();
	const owner = await ts.connect();
	const { id: session } = await fixture.session(owner);
	const sharing = await openSharing(owner, session);
	const chat = await openChat(owner, session);
	const mode = await owner.open(chatModeContract, { session });
	const dee = await joinAs("full", "dee", session, sharing);
	return { server: ts, owner, session, sharing, chat, mode, dee };
}

type SharingRef = Awaited<ReturnType<typeof openSharing>>;
const openSharing = (client: TestClient, session: string) => client.open(sharingContract, { session });

interface FakeRequest {
	messages: { role: string; content: unknown }[];
}

const openChat = (client: TestClient, session: string) => client.open(chatContract, { session, conversation: "main" });
type ChatRef = Awaited<ReturnType<typeof openChat>>;

const send = (chat: ChatRef, text: string, extra?: Record<string, number>) =>
	chat.call("send", { text, mode: "steer", requestId: rid(), ...(extra ? { extra } : {}) });

const chatMessages = (entries: readonly ChatEntry[]) =>
	entries.flatMap((e) => (e.kind === "plugin" && e.type === "chat-mode.message" ? [e] : []));

describe("chat mode on the server", () => {
	test("off, every message runs the agent as before; the owner turns it on and everyone sees the switch", async () => {
		const { server, chat, mode, dee } = await setup();
		expect(mode.state).toMatchObject({ on: false, waiting: 0 });
		server.fake.enqueue({ text: "ran" });
		expect(await send(chat, "hello")).toEqual({ status: "started" });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		await mode.call("set", { on: true });
		await waitForState(dee.mode, (s) => s.on);
		const seen = await waitForState(dee.chat, (s) => s.entries.some((e) => e.kind === "plugin"));
		const sw = seen.entries.find((e) => e.kind === "plugin");
		expect(sw).toMatchObject({ type: "chat-mode.switch", data: { on: true }, author: { role: "deviceOwner" } });
		// Both people are here.
		expect(mode.state?.people.map((p) => p.name).sort()).toEqual(["dee", "owner"]);
	});

	test("chat messages never start a run; @pi runs the agent with the chat since its last run, attributed", async () => {
		const { server, chat, mode, dee } = await setup();
		await mode.call("set", { on: true });
		expect(await send(chat, "wait, don't touch the migration")).toEqual({ status: "kept" });
		expect(await send(dee.chat, "ok, I won't")).toEqual({ status: "kept" });
		const waiting = await waitForState(mode, (s) => s.waiting === 2);
		expect(waiting.on).toBe(true);
		const state = await waitForState(chat, (s) => chatMessages(s.entries).length === 2);
		expect(chatMessages(state.entries).map((e) => [e.author?.name, e.data.text])).toEqual([
			["owner", "wait, don't touch the migration"],
			["dee", "ok, I won't"],
		]);
		expect(state.live).toBeNull();
		expect(server.fake.requests.length).toBe(0);

		server.fake.enqueue({ text: "Trying the other approach." });
		expect(await send(dee.chat, "@pi try the other approach")).toEqual({ status: "started" });
		const ran = await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		expect(ran.entries.find((e) => e.kind === "user")).toMatchObject({ text: "@pi try the other approach" });
		const last = (server.fake.requests[0] as FakeRequest).messages.at(-1);
		const content = String(last?.content);
		expect(content).toContain("[owner]: wait, don't touch the migration");
		expect(content).toContain("[dee]: ok, I won't");
		expect(content).toContain("The message below is from dee");
		expect(content.endsWith("@pi try the other approach")).toBe(true);
		await waitForState(mode, (s) => s.waiting === 0);

		// The next mention takes only what came after the last run.
		expect(await send(chat, "nice")).toEqual({ status: "kept" });
		server.fake.enqueue({ text: "Thanks." });
		await send(chat, "thanks @PI");
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		const second = String((server.fake.requests[1] as FakeRequest).messages.at(-1)?.content);
		expect(second).toContain("[owner]: nice");
		expect(second).not.toContain("migration");
		// The model's history keeps what it read (the first message's chat stays attributed after a rebuild too).
		const firstAgain = (server.fake.requests[1] as FakeRequest).messages.find((m) =>
			String(m.content).includes("@pi try the other approach"),
		);
		expect(String(firstAgain?.content)).toContain("[dee]: ok, I won't");
	});

	test("a mention sent while the agent works reads the chat as it is when it reaches the agent", async () => {
		const { server, chat, mode, dee } = await setup();
		await mode.call("set", { on: true });
		const gate = join(mkdtempSync(join(tmpdir(), "p2-gate-")), "open");
		server.fake.enqueue(
			{ toolCalls: [{ name: "bash", args: { command: `while [ ! -e ${gate} ]; do sleep 0.02; done` } }] },
			{ text: "Looked and tidied." },
		);
		expect(await send(chat, "@pi look around")).toEqual({ status: "started" });
		await waitForState(chat, (s) => (s.live?.tools.length ?? 0) > 0);
		expect(await send(dee.chat, "before the mention")).toEqual({ status: "kept" });
		expect(await send(dee.chat, "@pi and then tidy up")).toEqual({ status: "queued" });
		expect(await send(chat, "after the mention, while it waited")).toEqual({ status: "kept" });
		await waitForState(chat, (s) => chatMessages(s.entries).length === 2);
		writeFileSync(gate, "");
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 2);
		// The model read the queued mention with all the chat since it last ran, the chat sent after it included.
		const asked = (server.fake.requests[1] as FakeRequest).messages.at(-1);
		expect(String(asked?.content)).toContain("[dee]: before the mention");
		expect(String(asked?.content)).toContain("[owner]: after the mention, while it waited");
		expect(String(asked?.content).endsWith("@pi and then tidy up")).toBe(true);
		// What is stored with it is what the model read, so the next run's history reads the same.
		server.fake.enqueue({ text: "Again." });
		await send(chat, "@pi once more");
		await waitForState(chat, (s) => s.live === null && s.entries.filter((e) => e.kind === "assistant").length === 3);
		const history = (server.fake.requests[2] as FakeRequest).messages;
		expect(history.map((m) => String(m.content))).toContain(String(asked?.content));
	});

	test("a long chat before a mention reaches the model whole, in order", async () => {
		const { server, chat, mode } = await setup();
		await mode.call("set", { on: true });
		for (let i = 1; i <= 40; i++) await send(chat, `line ${i}`);
		await waitForState(mode, (s) => s.waiting === 40);
		server.fake.enqueue({ text: "read it" });
		await send(chat, "@pi sum up");
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		const asked = String((server.fake.requests[0] as FakeRequest).messages.at(-1)?.content);
		const lines = asked.split("\n").filter((l) => l.startsWith("[owner]: line "));
		expect(lines).toEqual(Array.from({ length: 40 }, (_, i) => `[owner]: line ${i + 1}`));
	});

	test("a reply quotes the message it answers: in a chat message's data, and above a mention as its lead", async () => {
		const { server, chat, mode, dee } = await setup();
		await mode.call("set", { on: true });
		await send(chat, "who has the migration?\nsecond line");
		const first = chatMessages((await waitForState(dee.chat, (s) => chatMessages(s.entries).length === 1)).entries)[0]!;
		expect(await send(dee.chat, "me", { [REPLY_FIELD]: first.seq })).toEqual({ status: "kept" });
		const reply = chatMessages((await waitForState(chat, (s) => chatMessages(s.entries).length === 2)).entries)[1]!;
		expect(reply.data).toEqual({
			text: "me",
			quote: { seq: first.seq, author: "owner", line: "who has the migration?" },
		});

		server.fake.enqueue({ text: "ok" });
		await send(dee.chat, "@pi look at it", { [REPLY_FIELD]: first.seq });
		const ran = await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		expect(ran.entries.find((e) => e.kind === "user")).toMatchObject({
			lead: "↪ Replying to owner: who has the migration?",
		});
		await expect(send(dee.chat, "to nothing", { [REPLY_FIELD]: 99999 })).rejects.toMatchObject({ code: "conflict" });
	});

	test("approval mode holds a guest's @pi message but never a chat message", async () => {
		const { server, sharing, chat, mode, dee } = await setup();
		await sharing.call("setApproval", { on: true });
		await mode.call("set", { on: true });
		expect(await send(dee.chat, "just talking")).toEqual({ status: "kept" });
		expect(await send(dee.chat, "@pi do the thing")).toEqual({ status: "queued" });
		const held = await waitForState(chat, (s) => s.queue.length === 1);
		expect(held.queue[0]).toMatchObject({ waiting: true, text: "@pi do the thing" });
		expect(chatMessages(held.entries).length).toBe(1);
		server.fake.enqueue({ text: "done" });
		await chat.call("approve", { id: held.queue[0]!.id });
		await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		expect(String((server.fake.requests[0] as FakeRequest).messages.at(-1)?.content)).toContain("[dee]: just talking");
	});

	test("roles: only an owner switches it; a view-only guest reads it and cannot chat", async () => {
		const { owner, session, sharing, mode, dee } = await setup();
		await expect(dee.mode.call("set", { on: true })).rejects.toMatchObject({ code: "forbidden" });
		// Another session's chat mode is not a guest's to see.
		const { id: other } = await fixture.session(owner);
		await expect(dee.client.open(chatModeContract, { session: other })).rejects.toMatchObject({ code: "forbidden" });
		await mode.call("set", { on: true });
		const viewer = await joinAs("view", "vic", session, sharing);
		expect(viewer.mode.state).toMatchObject({ on: true });
		await expect(viewer.mode.call("set", { on: false })).rejects.toMatchObject({ code: "forbidden" });
		await expect(send(viewer.chat, "hi all")).rejects.toMatchObject({ code: "forbidden" });
		// A chat message with a file is refused (files go to the agent), and nothing is lost.
		await expect(
			dee.chat.call("send", { text: "see this", mode: "steer", requestId: rid(), attachments: ["nope"] }),
		).rejects.toMatchObject({ code: "conflict" });
	});

	test("turned off, messages run the agent again and the switch is in the transcript", async () => {
		const { server, chat, mode } = await setup();
		await mode.call("set", { on: true });
		await send(chat, "chat");
		await mode.call("set", { on: false });
		server.fake.enqueue({ text: "ran" });
		expect(await send(chat, "now run")).toEqual({ status: "started" });
		const state = await waitForState(chat, (s) => s.live === null && s.entries.some((e) => e.kind === "assistant"));
		const switches = state.entries.flatMap((e) =>
			e.kind === "plugin" && e.type === "chat-mode.switch" ? [e.data.on] : [],
		);
		expect(switches).toEqual([true, false]);
		expect(mode.state?.on).toBe(false);
	});

	test("it stays on across a restart; a damaged file starts it off everywhere, said in the server's log", async () => {
		const { server, session, mode } = await setup();
		await mode.call("set", { on: true });
		await server.restart();
		const owner = await server.connect();
		const again = await owner.open(chatModeContract, { session });
		expect(again.state?.on).toBe(true);
		const chat = await openChat(owner, session);
		expect(await send(chat, "still chat")).toEqual({ status: "kept" });

		writeFileSync(join(server.dataDir, "chat-mode.json"), "{ not json");
		await server.restart();
		const third = await (await server.connect()).open(chatModeContract, { session });
		expect(third.state?.on).toBe(false);
		const log = readFileSync(join(server.dataDir, "logs", "server.jsonl"), "utf8");
		expect(log).toContain("chat-mode.json is not chat mode's list of sessions");
	});

	test("its file is written privately: a file planted where a temporary copy might go is never written through", async () => {
		const { server, mode } = await setup();
		// The name the file's temporary copy had before (process id based), planted as a link to another file.
		const outside = join(server.dataDir, "..", `outside-${process.pid}.txt`);
		writeFileSync(outside, "untouched");
		symlinkSync(outside, join(server.dataDir, `chat-mode.json.${process.pid}.tmp`));
		await mode.call("set", { on: true });
		expect(readFileSync(outside, "utf8")).toBe("untouched");
		const file = join(server.dataDir, "chat-mode.json");
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(file, "utf8")).on).toHaveLength(1);
		rmSync(outside);
	});
});
