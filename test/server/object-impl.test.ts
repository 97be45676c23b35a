import { describe, expect, test } from "bun:test";
import { type } from "../../src/protocol/ark.ts";
import { defineContract, method } from "../../src/protocol/contract.ts";
import { ObjectClient } from "../../src/protocol/object-client.ts";
import { ObjectHost } from "../../src/server/objects/host.ts";
import { LiveState } from "../../src/server/objects/live-state.ts";
import { type Handlers, type OpenedObject, refuseEvery } from "../../src/server/objects/object-impl.ts";
import type { Principal } from "../../src/server/objects/principal.ts";

const notes = defineContract({
	name: "notes",
	version: 1,
	input: type({ book: "string" }),
	methods: {
		add: method(type({ text: "string <= 20" }), type({ count: "number.integer" })),
		clear: method(type("null | undefined"), type("null")),
	},
	variants: {
		deviceOwner: { state: type({ texts: "string[]" }), methods: ["add", "clear"] },
		owner: { state: type({ texts: "string[]" }), methods: ["add", "clear"] },
		full: { state: type({ texts: "string[]" }), methods: ["add"] },
		view: { state: type({ texts: "string[]" }), methods: [] },
	},
});

const owner: Principal = { role: "owner", id: "owner:1", name: "owner" };

function serve(open: (live: LiveState<{ texts: string[] }>) => OpenedObject<typeof notes>) {
	const host = new ObjectHost();
	const live = new LiveState<{ texts: string[] }>({ texts: [] });
	host.serve(notes, { open: () => open(live) });
	const client = new ObjectClient();
	const connection = host.connect(owner, { send: (text) => client.receive(text) });
	client.attach((text) => void connection.receive(text));
	return { ref: client.open(notes, { book: "b" }), live };
}

describe("a plugin's typed handlers", () => {
	test("each handler gets its method's validated arguments and its result is sent as typed", async () => {
		const seen: unknown[] = [];
		const { ref, live } = serve((live) => ({
			state: live,
			methods: {
				add: ({ text }, { principal }) => {
					seen.push([text, principal.id]);
					live.update([{ op: "push", path: ["texts"], items: [text] }]);
					return { count: live.state.texts.length };
				},
				clear: () => {
					live.update([{ op: "set", path: ["texts"], value: [] }]);
					return null;
				},
			},
		}));
		await ref.ready;
		expect(await ref.call("add", { text: "one" })).toEqual({ count: 1 });
		expect(seen).toEqual([["one", "owner:1"]]);
		const tooLong = await ref.call("add", { text: "x".repeat(21) }).catch((e) => e.code);
		expect(tooLong).toBe("bad_args");
		expect(seen.length).toBe(1);
		expect(await ref.call("clear", null)).toBeNull();
		expect(live.state.texts).toEqual([]);
	});

	test("a result that breaks the contract is never sent: the caller gets internal", async () => {
		const { ref } = serve((live) => ({
			state: live,
			methods: {
				// The contract's schema is the last word even where a cast got past the compiler.
				add: () => ({ count: "many" }) as unknown as { count: number },
				clear: () => null,
			},
		}));
		await ref.ready;
		expect(await ref.call("add", { text: "a" }).catch((e) => e.code)).toBe("internal");
	});

	test("a handle without a handler for a method answers internal, not a crash", async () => {
		const { ref } = serve((live) => ({
			state: live,
			methods: { add: () => ({ count: 0 }) } as unknown as Handlers<typeof notes>,
		}));
		await ref.ready;
		expect(await ref.call("clear", null).catch((e) => e.code)).toBe("internal");
		expect(await ref.call("add", { text: "a" })).toEqual({ count: 0 });
	});

	test("refuseEvery refuses each method with the code given", async () => {
		const { ref } = serve((live) => ({ state: live, methods: refuseEvery(notes, "forbidden") }));
		await ref.ready;
		expect(await ref.call("add", { text: "a" }).catch((e) => e.code)).toBe("forbidden");
		expect(await ref.call("clear", null).catch((e) => e.code)).toBe("forbidden");
	});

	test("the compiler holds a plugin to its contract", () => {
		const live = new LiveState<{ texts: string[] }>({ texts: [] });
		// @ts-expect-error: `clear` has no handler.
		const missing: OpenedObject<typeof notes> = { state: live, methods: { add: () => ({ count: 0 }) } };
		const wrongArgs: OpenedObject<typeof notes> = {
			state: live,
			methods: {
				// @ts-expect-error: `add` takes {text}, not {name}.
				add: ({ name }: { name: string }) => ({ count: name.length }),
				clear: () => null,
			},
		};
		const wrongResult: OpenedObject<typeof notes> = {
			state: live,
			methods: {
				// @ts-expect-error: `add` answers {count: integer}.
				add: () => ({ total: 1 }),
				clear: () => null,
			},
		};
		expect([missing, wrongArgs, wrongResult].length).toBe(3);
	});
});
