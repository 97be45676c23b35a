import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type } from "../../src/protocol/ark.ts";
import { CLOSE_CODES } from "../../src/protocol/codes.ts";
import { defineContract } from "../../src/protocol/contract.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { LiveState } from "../../src/server/objects/live-state.ts";
import { startServer } from "../../src/server/server.ts";
import { connectClient } from "../support/p2-server.ts";
import { connectRaw } from "../support/raw-ws.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
	for (const f of cleanups.splice(0).reverse()) await f();
});

const FeedState = type({ n: "number.integer", blob: "string" });
const feed = defineContract({
	name: "feed",
	version: 1,
	input: type({}),
	methods: {},
	variants: {
		deviceOwner: { state: FeedState, methods: [] },
		owner: { state: FeedState, methods: [] },
		full: null,
		view: null,
	},
});

const LIMIT = 1024 * 1024;
const FRAMES = 256;
const BLOB = "x".repeat(256 * 1024);

test("a client that stops reading is closed as too slow after every frame before the cut, and a reconnect rehydrates", async () => {
	const dataDir = mkdtempSync(join(tmpdir(), "p2-slow-"));
	cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
	const server = await startServer({ dataDir, plugins: [], env: {}, socketBufferLimit: LIMIT });
	cleanups.push(() => server.stop());
	const live = new LiveState({ n: 0, blob: "" });
	server.ctx.host.serve(feed, { open: () => ({ state: live, methods: {} }) });

	const slow = await connectRaw(server.origin, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
	cleanups.push(() => slow.destroy());
	slow.send(JSON.stringify({ t: "open", h: 1, object: "feed", version: 1, input: {} }));
	await slow.next((text) => text.startsWith('{"t":"snapshot"'));
	slow.pause();
	// 64 MiB of patches, far more than the kernel's buffers and the limit together can hold.
	for (let n = 1; n <= FRAMES; n++) {
		live.update([
			{ op: "set", path: ["n"], value: n },
			{ op: "set", path: ["blob"], value: BLOB },
		]);
	}
	// The server let go of the slow client instead of queueing (or dropping) the rest for it.
	expect(live.subscribers).toBe(0);

	slow.resume();
	const { code, reason } = await slow.closed;
	expect(code).toBe(CLOSE_CODES.tooSlow);
	expect(reason).toStartWith("too slow");
	// What arrived is every patch up to the cut, in order, none missing.
	const seen = slow.texts.filter((t) => t.startsWith('{"t":"patch"')).map((t) => JSON.parse(t).ops[0].value);
	expect(seen.length).toBeGreaterThan(0);
	expect(seen.length).toBeLessThan(FRAMES);
	expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));

	// Reconnecting (as the launcher does after any close) brings the whole state back in one snapshot.
	const again = await connectClient(server, { [DEVICE_TOKEN_HEADER]: server.deviceToken });
	cleanups.push(() => again.close());
	const ref = await again.open(feed, {});
	expect(ref.state?.n).toBe(FRAMES);
}, 60_000);
