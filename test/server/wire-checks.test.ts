import { describe, expect, test } from "bun:test";
import { type } from "../../src/protocol/ark.ts";
import { defineContract, method } from "../../src/protocol/contract.ts";
import { MAX_FRAME_DEPTH, parseClientFrame } from "../../src/protocol/frames.ts";
import { checkWire, DESCRIBED_PARTS, partsOver } from "../../src/server/checks.ts";
import { ObjectHost } from "../../src/server/objects/host.ts";
import { LiveState } from "../../src/server/objects/live-state.ts";
import type { Principal } from "../../src/server/objects/principal.ts";

const note = defineContract({
	name: "note",
	version: 1,
	input: type({ name: "string" }).narrow((input) => {
		if (input.name === "explode") throw new RangeError("a check that throws");
		return true;
	}),
	methods: { peek: method(type("null | undefined"), type("null")) },
	variants: {
		deviceOwner: { state: type({ n: "number" }), methods: ["peek"] },
		owner: { state: type({ n: "number" }), methods: ["peek"] },
		full: { state: type({ n: "number" }), methods: ["peek"] },
		view: { state: type({ n: "number" }), methods: ["peek"] },
	},
});

const viewer: Principal = { role: "view", id: "guest:1", name: "Ann", session: "s" };

function wire() {
	const host = new ObjectHost();
	const problems: string[] = [];
	host.problem = (text) => problems.push(text);
	host.serve(note, { open: () => ({ state: new LiveState({ n: 0 }), methods: { peek: () => null } }) });
	const sent: Record<string, unknown>[] = [];
	const connection = host.connect(viewer, { send: (text) => sent.push(JSON.parse(text)) });
	return { connection, sent, problems };
}

const open = (h: number, name = "n") => JSON.stringify({ t: "open", h, object: "note", version: 1, input: { name } });
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const wide = (items: number) => `[${Array(items).fill('{"k":[1,"x"]}').join(",")}]`;

describe("values a client sends", () => {
	test("a frame nested deeper than the bound is refused before it is parsed", () => {
		const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
		const frame = (levels: number) => `{"t":"open","h":1,"object":"note","version":1,"input":${nested(levels)}}`;
		expect(parseClientFrame(frame(MAX_FRAME_DEPTH - 1)).ok).toBe(true);
		expect(parseClientFrame(frame(MAX_FRAME_DEPTH))).toMatchObject({ ok: false, code: "bad_frame" });
		// Brackets inside strings are text, not nesting.
		const quoted = JSON.stringify({ t: "open", h: 1, object: "note", version: 1, input: { name: nested(500) } });
		expect(parseClientFrame(quoted).ok).toBe(true);
	});

	test("deep and wide values where a word was expected are refused in few words, and the connection goes on", async () => {
		const { connection, sent } = wire();
		// Each of these once took arktype seconds to describe, or ran it out of stack (which ended the server).
		await connection.receive(`{"t":${deep(60_000)}}`);
		await connection.receive(`{"t":${wide(20_000)}}`);
		await connection.receive(open(1));
		await connection.receive(`{"t":"call","h":1,"id":1,"method":"peek","args":${deep(60_000)}}`);
		await connection.receive(`{"t":"call","h":1,"id":2,"method":"peek","args":${wide(20_000)}}`);
		await connection.receive(`{"t":"call","h":1,"id":3,"method":"peek","args":null}`);
		const answers = sent.filter((f) => f.t !== "hello");
		expect(answers).toEqual([
			{ t: "refused", code: "bad_frame", message: `frame nests deeper than ${MAX_FRAME_DEPTH} levels` },
			{ t: "refused", code: "bad_frame", message: expect.stringContaining(`over ${DESCRIBED_PARTS} parts`) },
			expect.objectContaining({ t: "snapshot", h: 1 }),
			{ t: "refused", code: "bad_frame", message: `frame nests deeper than ${MAX_FRAME_DEPTH} levels` },
			expect.objectContaining({ t: "result", id: 2, ok: false, code: "bad_args" }),
			{ t: "result", h: 1, id: 3, ok: true, value: null },
		]);
		expect(JSON.stringify(answers).length).toBeLessThan(2000);
	});

	test("a check that throws is refused as internal and the frame's promise resolves", async () => {
		const { connection, sent, problems } = wire();
		await connection.receive(open(1, "explode"));
		expect(sent.at(-1)).toMatchObject({ t: "refused", code: "internal" });
		expect(problems).toContain("handling a frame failed");
		await connection.receive(open(2));
		expect(sent.at(-1)).toMatchObject({ t: "snapshot", h: 2 });
	});

	test("a large refused value gets short words without arktype's part-by-part account; a small one keeps them", () => {
		const large = checkWire("test/null", type("null"), JSON.parse(wide(100_000)));
		expect(large).toEqual({ ok: false, why: expect.stringContaining(`over ${DESCRIBED_PARTS} parts`) });
		expect(checkWire("test/null", type("null"), [1, 2])).toEqual({ ok: false, why: "must be null (was [1,2])" });
		// A large value that fits is checked as usual.
		expect(checkWire("test/strings", type("string[]"), Array(5000).fill("a"))).toMatchObject({ ok: true });
	});

	test("parts are counted up to the bound and no further", () => {
		expect(partsOver([1, [2, 3], { a: 4 }], 7)).toBe(false);
		expect(partsOver([1, [2, 3], { a: 4 }], 6)).toBe(true);
		expect(partsOver("x".repeat(100_000), 1)).toBe(false);
	});
});
