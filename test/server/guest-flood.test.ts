import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { CLOSE_CODES } from "../../src/protocol/codes.ts";
import { type AnyContract, isContract } from "../../src/protocol/contract.ts";
import { MAX_FRAME_BYTES } from "../../src/protocol/frames.ts";
import { DEVICE_TOKEN_HEADER, SOCKET_PATH } from "../../src/protocol/server-info.ts";
import type { P2Server } from "../../src/server/server.ts";
import { joinAsGuest, signInOwner } from "../support/guests.ts";
import { connectClient } from "../support/p2-server.ts";
import { connectRaw } from "../support/raw-ws.ts";
import { asServer, startServe } from "../support/serve-process.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

/** Every contract the default plugins serve, read from their contract files. */
async function everyContract(): Promise<AnyContract[]> {
	const root = join(import.meta.dir, "..", "..");
	const contracts: AnyContract[] = [];
	for await (const file of new Bun.Glob("src/plugins/*/contract.ts").scan(root)) {
		const module = (await import(join(root, file))) as Record<string, unknown>;
		for (const value of Object.values(module)) if (isContract(value)) contracts.push(value);
	}
	return contracts;
}

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const wide = (items: number) => `[${Array(items).fill('{"k":[1,"x"]}').join(",")}]`;

/** What a hostile view guest sends: nothing a real client would, all of it at once. */
function hostileFrames(contracts: AnyContract[], session: string): string[] {
	const garbage = [deep(60_000), wide(20_000), JSON.stringify("z".repeat(200_000))];
	const frames = [
		"{not json",
		"[1,2,3]",
		`{"t":${deep(60_000)}}`,
		`{"t":"open","h":1,"object":${wide(20_000)},"version":1,"input":{}}`,
		"x".repeat(MAX_FRAME_BYTES + 1),
		JSON.stringify({ t: "call", h: 1, id: 1, method: "send", args: "y".repeat(MAX_FRAME_BYTES - 100) }),
		`${"[".repeat(200_000)}${"]".repeat(200_000)}`,
	];
	contracts.forEach((contract, i) => {
		const h = i + 1;
		for (const input of garbage) {
			frames.push(`{"t":"open","h":${h},"object":"${contract.name}","version":${contract.version},"input":${input}}`);
		}
		const input = { session, conversation: "main" };
		frames.push(JSON.stringify({ t: "open", h, object: contract.name, version: contract.version, input }));
		let id = 0;
		for (const method of Object.keys(contract.methods)) {
			for (const args of garbage) frames.push(`{"t":"call","h":${h},"id":${++id},"method":"${method}","args":${args}}`);
		}
	});
	for (let h = 1000; h < 1300; h++)
		frames.push(JSON.stringify({ t: "open", h, object: "access", version: 1, input: {} }));
	return frames;
}

test("a view guest flooding hostile frames is closed for its own frames; the owner, the device owner and another guest are served at once", async () => {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-flood-"));
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-flood-cwd-")));
	cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
	cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
	const serve = await startServe(dataDir, (proc) => cleanups.push(() => proc.kill(9)));
	const origin = serve.info.origin;
	const server = { ...asServer(serve.info), mintOwnerLink: () => serve.link } as P2Server;
	const device = { [DEVICE_TOKEN_HEADER]: serve.info.deviceToken };

	const setup = await connectClient(server, device);
	cleanups.push(() => setup.close());
	const sessions = await setup.open(sessionsContract, {});
	const { id: session } = await sessions.call("create", { cwd });
	const ownerCookie = await signInOwner(server);
	const viewCookie = await joinAsGuest(server, setup, session, "view", "flooder");
	const fullCookie = await joinAsGuest(server, setup, session, "full", "bystander");

	const flooder = await connectRaw(origin, { cookie: viewCookie, origin });
	cleanups.push(() => flooder.destroy());
	const binary = new WebSocket(`${origin.replace(/^http/, "ws")}${SOCKET_PATH}`, {
		headers: { cookie: viewCookie, origin },
	} as unknown as string[]);
	cleanups.push(() => binary.close());
	await new Promise((resolve) => binary.addEventListener("open", resolve, { once: true }));

	for (const frame of hostileFrames(await everyContract(), session)) flooder.send(frame);
	for (let i = 0; i < 64; i++) binary.send(new Uint8Array(64 * 1024));

	// Each of the others connects, opens the session's chat, has its snapshot and makes a call.
	const works = async (headers: Record<string, string>) => {
		const client = await connectClient(server, headers);
		cleanups.push(() => client.close());
		const chat = await client.open(chatContract, { session, conversation: "main" });
		expect(chat.state?.entries).toEqual([]);
		expect(await chat.call("page", { beforeSeq: 1, limit: 10 })).toMatchObject({ entries: [] });
	};
	const others = [{ cookie: ownerCookie, origin }, device, { cookie: fullCookie, origin }];

	// At once, without waiting for the flood to be answered.
	for (const headers of others) await works(headers);

	// The flooder's own connection is closed, saying why and whose frames it counted.
	const closed = await flooder.closed;
	expect(closed.code).toBe(CLOSE_CODES.tooManyFrames);
	expect(closed.reason).toContain("this guest");
	expect(flooder.texts.some((t) => t.includes('"internal"'))).toBe(false);

	// And after it, everyone else is still served.
	for (const headers of others) await works(headers);
}, 60_000);
