import { describe, expect, test } from "bun:test";
import { type } from "../../src/protocol/ark.ts";
import { ProtocolError } from "../../src/protocol/codes.ts";
import { defineContract, method } from "../../src/protocol/contract.ts";
import { ObjectClient } from "../../src/protocol/object-client.ts";
import { ObjectHost } from "../../src/server/objects/host.ts";
import { LiveState } from "../../src/server/objects/live-state.ts";
import type { Principal } from "../../src/server/objects/principal.ts";
import { waitForState } from "../support/p2-server.ts";
import { waitUntil } from "../support/wait.ts";

const CounterState = type({ count: "number.integer", log: "string" });
const counter = defineContract({
	name: "counter",
	version: 2,
	accepts: [1],
	input: type({ name: "string" }),
	methods: {
		add: method(type({ by: "1 <= number.integer <= 10" }), type({ count: "number.integer" })),
		fail: method(type("null"), type("null")),
	},
	variants: {
		deviceOwner: { state: CounterState, methods: ["add", "fail"] },
		owner: { state: CounterState, methods: ["add", "fail"] },
		full: { state: CounterState, methods: ["add"] },
		view: { state: CounterState, methods: [] },
	},
});
const secret = defineContract({
	name: "secret",
	version: 1,
	input: type({}),
	methods: {},
	variants: { deviceOwner: { state: type({}), methods: [] }, owner: null, full: null, view: null },
});

function setup() {
	const host = new ObjectHost();
	const live = new LiveState({ count: 0, log: "" });
	host.serve(counter, {
		open: () => ({
			state: live,
			methods: {
				add({ by }) {
					live.update([
						{ op: "set", path: ["count"], value: live.state.count + by },
						{ op: "append", path: ["log"], text: `+${by}` },
					]);
					return { count: live.state.count };
				},
				fail() {
					throw new Error("boom: internal detail");
				},
			},
		}),
	});
	host.serve(secret, { open: () => ({ state: new LiveState({}), methods: {} }) });
	return { host, live };
}

function wire(host: ObjectHost, principal: Principal) {
	const sent: unknown[] = [];
	const problems: string[] = [];
	const client = new ObjectClient({ onProtocolError: (m) => problems.push(m) });
	const connection = host.connect(principal, {
		send: (text) => {
			sent.push(JSON.parse(text));
			client.receive(text);
		},
	});
	client.attach((text) => void connection.receive(text));
	return { client, connection, sent, problems };
}

const owner: Principal = { role: "owner", id: "owner:1", name: "owner" };
const viewer: Principal = { role: "view", id: "guest:1", name: "Ann", session: "s" };
const full: Principal = { role: "full", id: "guest:2", name: "Bo", session: "s" };

describe("object host and client", () => {
	test("open gives a snapshot; calls patch every replica", async () => {
		const { host } = setup();
		const a = wire(host, owner);
		const b = wire(host, full);
		const ra = a.client.open(counter, { name: "x" });
		const rb = b.client.open(counter, { name: "x" });
		await Promise.all([ra.ready, rb.ready]);
		expect(await ra.call("add", { by: 2 })).toEqual({ count: 2 });
		expect(await rb.call("add", { by: 3 })).toEqual({ count: 5 });
		// Patches reach each replica after the answers; the log shows both calls in order.
		await waitForState(ra, (s) => s.count === 5);
		await waitForState(rb, (s) => s.count === 5);
		expect(ra.state).toEqual({ count: 5, log: "+2+3" });
		expect(rb.state).toEqual({ count: 5, log: "+2+3" });
		expect(a.client.hello).toEqual({ role: "owner", name: "owner" });
	});

	test("an older declared version is accepted, an unknown one refused", async () => {
		const { host } = setup();
		const { connection, sent } = wire(host, owner);
		await connection.receive(JSON.stringify({ t: "open", h: 1, object: "counter", version: 1, input: { name: "x" } }));
		await connection.receive(JSON.stringify({ t: "open", h: 2, object: "counter", version: 3, input: { name: "x" } }));
		expect(sent).toContainEqual(expect.objectContaining({ t: "snapshot", h: 1, version: 2 }));
		expect(sent).toContainEqual(expect.objectContaining({ t: "refused", h: 2, code: "unsupported_version" }));
	});

	test("hostile frames are refused, change nothing, and the connection survives", async () => {
		const { host, live } = setup();
		const { connection, sent, client } = wire(host, owner);
		const ref = client.open(counter, { name: "x" });
		await ref.ready;
		const hostile = [
			"not json",
			"{}",
			"[1,2,3]",
			JSON.stringify({ t: "call", h: 1, id: 1, method: "add", args: { by: "2" } }),
			JSON.stringify({ t: "call", h: 1, id: 2, method: "add", args: { by: 1000 } }),
			JSON.stringify({ t: "call", h: 1, id: 3, method: "nope", args: null }),
			JSON.stringify({ t: "call", h: 1, id: 4, method: "__proto__", args: null }),
			JSON.stringify({ t: "call", h: 1, id: 5, method: "constructor", args: null }),
			JSON.stringify({ t: "call", h: 99, id: 6, method: "add", args: { by: 1 } }),
			JSON.stringify({ t: "open", h: 2, object: "nothing", version: 1, input: {} }),
			JSON.stringify({ t: "open", h: 3, object: "counter", version: 2, input: { name: 5 } }),
			JSON.stringify({ t: "open", h: 1, object: "counter", version: 2, input: { name: "again" } }),
			JSON.stringify({ t: "open", h: -1, object: "counter", version: 2, input: { name: "x" } }),
			JSON.stringify({ t: "call", h: 1, id: 7, method: "add", args: { by: 1 }, extra: "x".repeat(2 * 1024 * 1024) }),
		];
		for (const frame of hostile) await connection.receive(frame);
		const answers = sent.filter((f) => (f as { t: string }).t === "refused" || (f as { ok?: boolean }).ok === false);
		expect(answers.length).toBe(hostile.length);
		expect(answers.map((f) => (f as { code: string }).code)).toEqual([
			"bad_frame",
			"bad_frame",
			"bad_frame",
			"bad_args",
			"bad_args",
			"unknown_method",
			"bad_frame",
			"unknown_method",
			"unknown_handle",
			"unknown_object",
			"bad_input",
			"handle_in_use",
			"bad_frame",
			"too_large",
		]);
		expect(live.state).toEqual({ count: 0, log: "" });
		expect(await ref.call("add", { by: 1 })).toEqual({ count: 1 });
	});

	test("internal errors reach the client as a bare code, never their text", async () => {
		const { host } = setup();
		const { client } = wire(host, owner);
		const ref = client.open(counter, { name: "x" });
		await ref.ready;
		const error = await ref.call("fail", null).catch((e) => e);
		expect(error).toBeInstanceOf(ProtocolError);
		expect(error.code).toBe("internal");
		expect(error.message).not.toContain("boom");
	});

	test("roles: a viewer sees the state but may call nothing; owner-only objects refuse guests", async () => {
		const { host, live } = setup();
		const { client } = wire(host, viewer);
		const ref = client.open(counter, { name: "x" });
		await ref.ready;
		expect(ref.state).toEqual({ count: 0, log: "" });
		const error = await ref.call("add", { by: 1 }).catch((e) => e);
		expect(error.code).toBe("forbidden");
		expect(live.state.count).toBe(0);
		const hidden = client.open(secret, {});
		expect(await hidden.ready.catch((e) => e.code)).toBe("forbidden");
	});

	test("a demoted principal loses objects its new role may not hold, at once", async () => {
		const { host } = setup();
		const { client, connection } = wire(host, { role: "deviceOwner", id: "device", name: "owner" });
		const ref = client.open(secret, {});
		const kept = client.open(counter, { name: "x" });
		await Promise.all([ref.ready, kept.ready]);
		host.reprincipal(
			(p) => p.id === "device",
			() => viewer,
		);
		expect(ref.status.kind).toBe("refused");
		expect(kept.status.kind).toBe("live");
		expect(connection.principal.role).toBe("view");
		expect((await kept.call("add", { by: 1 }).catch((e) => e)).code).toBe("forbidden");
	});

	test("the client refuses server frames that break the contract and keeps its state", async () => {
		const problems: string[] = [];
		const client = new ObjectClient({ onProtocolError: (m) => problems.push(m) });
		const sent: string[] = [];
		client.attach((t) => sent.push(t));
		const ref = client.open(counter, { name: "x" });
		client.receive(JSON.stringify({ t: "snapshot", h: ref.h, version: 2, role: "owner", state: { count: "x" } }));
		expect(ref.state).toBeUndefined();
		client.receive(
			JSON.stringify({ t: "snapshot", h: ref.h, version: 2, role: "owner", state: { count: 1, log: "" } }),
		);
		expect(ref.state).toEqual({ count: 1, log: "" });
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path: ["count"], value: "many" }] }));
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "append", path: ["count"], text: "1" }] }));
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path: ["__proto__"], value: {} }] }));
		client.receive("{ nope");
		expect(ref.state).toEqual({ count: 1, log: "" });
		expect(problems.length).toBe(5);
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "append", path: ["log"], text: "ok" }] }));
		expect(ref.state).toEqual({ count: 1, log: "ok" });
	});

	test("a call on an object still opening goes out at once; a refusal, a close or a lost connection fails it", async () => {
		const client = new ObjectClient();
		const sent: { t: string; h?: number; id?: number; method?: string }[] = [];
		client.attach((t) => sent.push(JSON.parse(t)));
		const snapshot = (h: number) =>
			JSON.stringify({ t: "snapshot", h, version: 2, role: "owner", state: { count: 0, log: "" } });

		// Asked for right after the object (a start's `create`, a `!` command right after /new): it does not wait
		// a round trip for the snapshot; the server holds it until the object opened.
		const ref = client.open(counter, { name: "x" });
		const answer = ref.call("add", { by: 2 });
		expect(sent.map((f) => f.t)).toEqual(["open", "call"]);
		const call = sent.find((f) => f.t === "call");
		expect(call).toMatchObject({ h: ref.h, method: "add" });
		client.receive(snapshot(ref.h));
		client.receive(JSON.stringify({ t: "result", h: ref.h, id: call!.id, ok: true, value: { count: 2 } }));
		expect(await answer).toEqual({ count: 2 });

		// The server refuses the object: the call fails with its words.
		const refused = client.open(counter, { name: "y" });
		const never = refused.call("add", { by: 1 });
		client.receive(JSON.stringify({ t: "refused", h: refused.h, code: "forbidden", message: "not yours" }));
		expect(await never.catch((e: ProtocolError) => `${e.code}: ${e.message}`)).toBe("forbidden: not yours");

		// The connection goes first: the call fails now and is not sent again when the next connection opens it.
		const later = client.open(counter, { name: "z" });
		const lost = later.call("add", { by: 1 });
		client.detach();
		expect(await lost.catch((e: Error) => e.name)).toBe("ConnectionLost");
		sent.length = 0;
		client.attach((t) => sent.push(JSON.parse(t)));
		client.receive(snapshot(later.h));
		expect(sent.filter((f) => f.t === "call")).toEqual([]);

		// Closed before it opened: the call fails.
		const closed = client.open(counter, { name: "w" });
		const gone = closed.call("add", { by: 1 });
		closed.close();
		expect(await gone.catch((e: ProtocolError) => e.code)).toBe("unknown_handle");

		// Not connected at all: nothing is sent.
		client.detach();
		const offline = client.open(counter, { name: "v" });
		expect(await offline.call("add", { by: 1 }).catch((e: Error) => e.name)).toBe("ConnectionLost");
	});

	test("the server holds a call that came before its object opened, and answers it after the snapshot", async () => {
		const host = new ObjectHost();
		const live = new LiveState({ count: 0, log: "" });
		const opened: { resolve(): void; reject(error: Error): void }[] = [];
		host.serve(counter, {
			open: (input) =>
				new Promise((resolve, reject) => {
					opened.push({
						resolve: () =>
							resolve({
								state: live,
								methods: {
									add({ by }) {
										live.update([{ op: "set", path: ["count"], value: live.state.count + by }]);
										return { count: live.state.count };
									},
									fail: () => null,
								},
							}),
						reject: () => reject(new ProtocolError("not_found", `no counter ${input.name}`)),
					});
				}),
		});
		const sent: { t: string; h?: number; id?: number; ok?: boolean; code?: string }[] = [];
		const connection = host.connect(owner, { send: (text) => sent.push(JSON.parse(text)) });
		const frame = (f: object) => void connection.receive(JSON.stringify(f));
		frame({ t: "open", h: 1, object: "counter", version: 2, input: { name: "x" } });
		frame({ t: "call", h: 1, id: 1, method: "add", args: { by: 2 } });
		frame({ t: "call", h: 1, id: 2, method: "add", args: { by: 3 } });
		await Promise.resolve();
		expect(sent.filter((f) => f.t !== "hello")).toEqual([]);
		opened[0]!.resolve();
		await waitUntil(() => sent.filter((f) => f.t === "result").length === 2, "both answers");
		const order = sent.filter((f) => f.t !== "hello" && f.t !== "patch").map((f) => `${f.t}${f.id ?? ""}`);
		expect(order).toEqual(["snapshot", "result1", "result2"]);
		expect(live.state.count).toBe(5);

		// An object that is refused: the call held for it fails instead of reaching a handle.
		frame({ t: "open", h: 2, object: "counter", version: 2, input: { name: "gone" } });
		frame({ t: "call", h: 2, id: 3, method: "add", args: { by: 1 } });
		opened[1]!.reject(new Error("unused"));
		await waitUntil(() => sent.some((f) => f.t === "result" && f.id === 3), "the held call's failure");
		expect(sent.find((f) => f.t === "refused" && f.h === 2)).toMatchObject({ code: "not_found" });
		expect(sent.find((f) => f.t === "result" && f.id === 3)).toMatchObject({ ok: false, code: "unknown_handle" });
		expect(live.state.count).toBe(5);
	});

	test("a flood is rate limited without closing the connection", async () => {
		const { host } = setup();
		const { connection, sent } = wire(host, owner);
		for (let i = 0; i < 1000; i++) await connection.receive("{}");
		const codes = sent.map((f) => (f as { code?: string }).code);
		expect(codes).toContain("rate_limited");
		expect(codes.filter((c) => c === "bad_frame").length).toBeLessThan(1000);
	});
});

test("a connection whose send fails is closed with its socket, so the client reconnects instead of waiting", () => {
	const host = new ObjectHost();
	const problems: string[] = [];
	host.problem = (text) => problems.push(text);
	const closes: ({ code: number; reason: string } | undefined)[] = [];
	const owner: Principal = { role: "owner", id: "owner:1", name: "owner" } as Principal;
	host.connect(owner, {
		send() {
			throw new Error("the socket is gone");
		},
		close: (why) => closes.push(why),
	});
	expect(closes).toEqual([{ code: 1011, reason: "the server could not send" }]);
	expect(problems).toEqual(["send failed; closing the connection"]);
	expect(host.connectedPrincipals()).toEqual([]);
});
