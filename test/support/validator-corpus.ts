/**
 * Valid values of some of the schemas the guest checks, and hostile variants of them: every field (also
 * nested, also list items) replaced by each wrong value or removed, prototype keys, undeclared keys. Used to
 * compare the precompiled validators with arktype, in the test process and inside the sandbox. Pure data:
 * it is bundled into a guest for the sandbox test.
 */

const SESSION = "0a0a0a0a-0000-4000-8000-000000000001";
const AUTHOR = { id: "u1", name: "Ann", role: "owner" };

const ENTRIES: unknown[] = [
	{ seq: 1, at: 10, kind: "user", text: "hi", author: AUTHOR, images: 0 },
	{
		seq: 2,
		at: 11,
		kind: "assistant",
		parts: [
			{ type: "thinking", text: "hm", redacted: false },
			{ type: "text", text: "hello" },
		],
		toolCalls: ["c1"],
		stopReason: "toolUse",
		error: "e",
		provider: "p",
		model: "m",
		usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, cost: 0.5 },
	},
	{
		seq: 3,
		at: 12,
		kind: "tool",
		callId: "c1",
		name: "bash",
		args: { command: "ls" },
		result: { text: "a", isError: false, details: { exitCode: 0 } },
		durationMs: 5,
	},
	{ seq: 4, at: 13, kind: "error", message: "boom" },
	{ seq: 5, at: 14, kind: "compaction", summary: "s", tokensBefore: 100, firstKeptSeq: 3 },
	{
		seq: 6,
		at: 15,
		kind: "shell",
		id: "s1",
		command: "ls",
		output: "x",
		exitCode: null,
		cancelled: false,
		truncated: false,
		includeInContext: true,
		author: AUTHOR,
	},
	{ seq: 7, at: 16, kind: "reset", handoff: null },
	{ seq: 8, at: 17, kind: "interrupted", message: "stopped" },
];

const CHAT_IDLE = {
	entries: [],
	older: false,
	live: null,
	queue: [],
	returned: [],
	model: null,
	thinkingLevel: "off",
	compacting: null,
	shell: null,
};

const CHAT_BUSY = {
	entries: ENTRIES,
	older: true,
	live: {
		runId: "r1",
		startedAt: 1,
		message: { parts: [{ type: "text", text: "streaming" }], toolCalls: [] },
		tools: [{ id: "t1", name: "read", args: { path: "a" }, output: "", startedAt: 2 }],
		retry: { attempt: 1, maxAttempts: 3, until: 5, error: "429" },
	},
	queue: [{ id: "q1", mode: "steer", text: "more", author: AUTHOR, at: 3, waiting: false }],
	returned: [{ id: "x1", authorId: "u2", texts: ["a"], at: 4 }],
	model: { provider: "p", id: "m", name: "M", contextWindow: 1000, reasoning: true, thinkingLevels: ["off", "high"] },
	thinkingLevel: "high",
	compacting: { startedAt: 5, reason: "threshold" },
	shell: {
		id: "s2",
		command: "make",
		author: AUTHOR,
		includeInContext: false,
		output: "o",
		startedAt: 6,
		ended: { exitCode: 1, cancelled: false },
	},
	directoryGone: "/gone",
};

const TUI_DEFAULTS = {
	keybindings: { "app.quit": ["ctrl+q"], "tui.select.up": [] },
	theme: "dark",
	settings: {
		quietStartup: true,
		doubleEscapeAction: "fork",
		terminal: { showImages: false, imageWidthCells: 40 },
		markdown: { mermaid: "off" },
	},
	problems: ["p"],
};

const PATH = ["entries", 0, "text"];

const SERVER_FRAMES: unknown[] = [
	{ t: "hello", protocol: 1, role: "view", name: "Ann" },
	{ t: "snapshot", h: 1, version: 1, role: "owner", state: { anything: [1] } },
	{
		t: "patch",
		h: 2147483647,
		ops: [
			{ op: "set", path: PATH, value: null },
			{ op: "append", path: PATH, text: "x" },
			{ op: "push", path: ["entries"], items: [1, "a"] },
			{ op: "splice", path: ["queue"], start: 0, remove: 1, items: [] },
			{ op: "del", path: ["directoryGone"] },
		],
	},
	{ t: "result", h: 1, id: 0, ok: true, value: { a: 1 } },
	{ t: "result", h: 1, id: 9007199254740991, ok: false, code: "bad_frame", message: "no" },
	{ t: "refused", h: 3, id: 4, code: "forbidden", message: "m" },
	{ t: "refused", code: "too_large", message: "" },
	{ t: "closed", h: 5, code: "forbidden", message: "gone" },
];

const RELOAD_SNAPSHOTS: unknown[] = [
	{ version: 2, draft: "", session: SESSION, drafts: { [SESSION]: "d" }, anchor: { key: "e1", offset: 3 } },
	{ version: 1, draft: "x" },
];

/** Valid values by the key of their precompiled validator (`schema-checks.ts`). */
export const VALID: Readonly<Record<string, readonly unknown[]>> = {
	"chat@1/state/owner": [CHAT_IDLE, CHAT_BUSY],
	"chat@1/state/view": [CHAT_BUSY],
	"chat@1/result/page": [{ entries: ENTRIES, more: true }],
	"tui-defaults@1/state/owner": [TUI_DEFAULTS, { keybindings: {}, settings: {}, problems: [] }],
	"frame/server": SERVER_FRAMES,
	snapshot: RELOAD_SNAPSHOTS,
	"entry/chat-mode.message": [{ text: "hi @Ana" }, { text: "yes", quote: { seq: 3, author: "Ana", line: "ok?" } }],
};

const WRONG_VALUES: unknown[] = [
	undefined,
	null,
	0,
	-1,
	1.5,
	2147483648,
	2 ** 53,
	Number.NaN,
	Number.POSITIVE_INFINITY,
	"",
	"x".repeat(65),
	"x".repeat(201),
	"x".repeat(2001),
	true,
	false,
	[],
	[1],
	{},
	{ t: "hello" },
	"owner",
	"append",
	"off",
	"text",
	"not_a_code",
];

export function variantsOf(value: unknown, depth: number): unknown[] {
	if (typeof value !== "object" || value === null || depth > 6) return [];
	if (Array.isArray(value)) {
		const results: unknown[] = [value.slice(1), [...value, ...value.slice(0, 1)], [...value, null]];
		value.forEach((item, i) => {
			for (const wrong of WRONG_VALUES) results.push(value.map((v, j) => (i === j ? wrong : v)));
			for (const inner of variantsOf(item, depth + 1)) results.push(value.map((v, j) => (i === j ? inner : v)));
		});
		return results;
	}
	const fields = value as Record<string, unknown>;
	const results: unknown[] = [];
	for (const key of Object.keys(fields)) {
		for (const wrong of WRONG_VALUES) results.push({ ...fields, [key]: wrong });
		const { [key]: _, ...without } = fields;
		results.push(without);
		for (const inner of variantsOf(fields[key], depth + 1)) results.push({ ...fields, [key]: inner });
	}
	// Keys that address prototypes, as a JSON parser makes them, and keys nobody declared.
	const rest = JSON.stringify(value).slice(1);
	results.push(JSON.parse(`{"__proto__": {"t": "hello"}${rest === "}" ? "" : ", "}${rest}`));
	results.push(JSON.parse(`{"constructor": 1${rest === "}" ? "" : ", "}${rest}`));
	results.push({ ...fields, extra: 1 });
	results.push(Object.assign(Object.create(null), fields));
	return results;
}

/** The valid values of `key`, each followed by its hostile variants, and values of every kind. */
export function corpusFor(key: string): unknown[] {
	const out: unknown[] = [null, undefined, 1, "x", [], {}, [{}]];
	for (const valid of VALID[key] ?? []) out.push(valid, ...variantsOf(valid, 0));
	return out;
}

/** A short digest of a list of verdicts: how many were accepted, and a hash of which. */
export function verdictDigest(verdicts: readonly boolean[]): string {
	let hash = 2166136261;
	for (const v of verdicts) hash = Math.imul(hash ^ (v ? 1 : 2), 16777619) >>> 0;
	return `${verdicts.filter(Boolean).length}/${verdicts.length}:${hash.toString(16)}`;
}
