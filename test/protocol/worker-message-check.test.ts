import { describe, expect, test } from "bun:test";
import { type } from "../../src/protocol/ark.ts";
import { WorkerMessage } from "../../src/protocol/channel.ts";
import {
	MAX_COPY_CHARS,
	MAX_EXIT_TEXT_CHARS,
	MAX_IMAGE_BASE64_CHARS,
	MAX_IMAGE_PLACEMENTS,
	MAX_LOG_CHARS,
	MAX_OUTPUT_CHARS,
} from "../../src/protocol/channel-kinds.ts";
import { checkWorkerMessage } from "../../src/protocol/worker-message-check.ts";

/** Valid messages of every kind, and for each a way to break every field. */
const VALID: Record<string, unknown>[] = [
	{ kind: "ready" },
	{ kind: "reload" },
	{ kind: "output", data: "\x1b[1mhi" },
	{ kind: "frame", text: "{}" },
	{ kind: "status", action: { kind: "title", text: "t" } },
	{ kind: "status", action: { kind: "progress", active: true } },
	{ kind: "status", action: { kind: "programStatus", status: "working" } },
	{ kind: "log", level: "warn", text: "x" },
	{ kind: "snapshot", data: "{}" },
	{ kind: "exit", code: 0 },
	{ kind: "exit", code: 255 },
	{ kind: "exitOutput", text: "\x1b[1mhi\x1b[0m\nthere", resumable: true },
	{ kind: "exitOutput", text: "", resumable: false },
	{ kind: "pong", n: 3 },
	{ kind: "pong", n: 3, heapBytes: 1024.5 },
	{ kind: "error", message: "boom" },
	{ kind: "navigation", session: "0a0a0a0a-0000-4000-8000-000000000001" },
	{ kind: "request", id: "r1", action: "savePrefs", payload: { patch: { theme: "dark" } } },
	{ kind: "request", id: "r1", action: "savePrefs", payload: { patch: [] } },
	{ kind: "request", id: "r1", action: "copy", payload: { text: "t" } },
	{ kind: "request", id: "r1", action: "copy", payload: { text: "t", label: "l" } },
	{ kind: "request", id: "r1", action: "openUrl", payload: { url: "https://x" } },
	{ kind: "request", id: "r1", action: "attach", payload: { path: "" } },
	{ kind: "request", id: "r1", action: "download", payload: { session: "s", id: "i", name: "n", size: 12 } },
	{ kind: "request", id: "r1", action: "signOut", payload: { all: false } },
	{ kind: "request", id: "r1", action: "forward", payload: { port: 8080 } },
	{ kind: "request", id: "r1", action: "copy.selection", payload: { text: "sel" } },
	{ kind: "keyContext", suspendPrivileged: true },
	{ kind: "answer", id: "q1", text: "x" },
	{ kind: "answer", id: "q1", text: null },
	{ kind: "image", id: "s:main:3:0", png: "iVBORw0KGgo=" },
	{ kind: "imagePlacements", placements: [] },
	{ kind: "imagePlacements", placements: [{ id: "a", row: 0, col: 2, columns: 10, rows: 5 }] },
];

const WRONG_VALUES: unknown[] = [
	undefined,
	null,
	0,
	-1,
	1.5,
	256,
	Number.NaN,
	Number.POSITIVE_INFINITY,
	"",
	"x".repeat(65),
	"x".repeat(4097),
	"x".repeat(MAX_LOG_CHARS + 1),
	"x".repeat(MAX_OUTPUT_CHARS + 1),
	"x".repeat(MAX_COPY_CHARS + 1),
	"x".repeat(MAX_EXIT_TEXT_CHARS + 1),
	"x".repeat(MAX_IMAGE_BASE64_CHARS + 1),
	Array.from({ length: MAX_IMAGE_PLACEMENTS + 1 }, () => ({ id: "a", row: 0, col: 0, columns: 1, rows: 1 })),
	[{ id: "a", row: 0, col: 0, columns: 0, rows: 1 }],
	[{ id: "a", row: -1, col: 0, columns: 1, rows: 1 }],
	true,
	[],
	{},
	{ kind: "title", text: 1 },
	"warn",
	"working",
	"copy",
	"request",
];

/** Every valid message with each of its fields (also nested) replaced by each wrong value, or removed. */
function hostileCorpus(): unknown[] {
	const out: unknown[] = [null, undefined, 1, "ready", [], [{ kind: "ready" }], { kind: "nope" }, {}];
	const variants = (value: unknown): unknown[] => {
		if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
		const fields = value as Record<string, unknown>;
		const results: unknown[] = [];
		for (const key of Object.keys(fields)) {
			for (const wrong of WRONG_VALUES) results.push({ ...fields, [key]: wrong });
			const { [key]: _, ...without } = fields;
			results.push(without);
			for (const inner of variants(fields[key])) results.push({ ...fields, [key]: inner });
		}
		// Keys that address prototypes, and keys nobody declared, as a JSON parser makes them.
		results.push(JSON.parse(`{"__proto__": {"kind": "exit"}, ${JSON.stringify(value).slice(1)}`));
		results.push({ ...fields, extra: 1 });
		return results;
	};
	for (const message of VALID) out.push(message, ...variants(message));
	return out;
}

describe("the launcher's hand-written check of worker messages", () => {
	test("accepts every valid message, with its declared fields only", () => {
		for (const message of VALID) {
			const checked = checkWorkerMessage(message);
			expect(checked.ok ? checked.message : checked.error).toEqual(message as never);
		}
		const extra = checkWorkerMessage({ kind: "output", data: "x", sneaky: true });
		expect(extra.ok && Object.keys(extra.message)).toEqual(["kind", "data"]);
	});

	test("accepts and refuses exactly what the schema in channel.ts does, on thousands of hostile variants", () => {
		const corpus = hostileCorpus();
		expect(corpus.length).toBeGreaterThan(2000);
		for (const data of corpus) {
			const schema = !(WorkerMessage(data) instanceof type.errors);
			const hand = checkWorkerMessage(data).ok;
			if (schema !== hand)
				throw new Error(`disagree (schema ${schema}, hand ${hand}) on ${JSON.stringify(data)?.slice(0, 300)}`);
		}
	});

	test("a refusal says what is wrong, in a line", () => {
		expect(checkWorkerMessage({ kind: "exit", code: 300 })).toEqual({
			ok: false,
			error: "code must be an integer from 0 to 255",
		});
		expect(checkWorkerMessage({ kind: "request", id: "r", action: "rm -rf", payload: {} })).toEqual({
			ok: false,
			error: "action is not a launcher action",
		});
	});
});
