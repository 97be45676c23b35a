import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type } from "../../src/protocol/ark.ts";
import { arktypeChecks } from "../../src/protocol/arktype-checks.ts";
import { precompiledFirst } from "../../src/protocol/schema-checks.ts";
import { loadServerValidators, serverSchemas } from "../../src/server/server-validators.ts";
import { variantsOf } from "../support/validator-corpus.ts";

type Validators = Readonly<Record<string, (data: unknown) => boolean>>;

let cacheDir: string;
let schemas: Map<string, unknown>;
let validators: Validators;

beforeAll(async () => {
	cacheDir = mkdtempSync(join(tmpdir(), "p2-server-validators-"));
	schemas = await serverSchemas();
	validators = await loadServerValidators(cacheDir);
});
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

test("every schema the server checks on its hot paths has a precompiled validator, kept on disk by its sources", async () => {
	expect(Object.keys(validators).sort()).toEqual([...schemas.keys()].sort());
	expect(readdirSync(cacheDir).filter((n) => n.endsWith(".js"))).toHaveLength(1);
	// The next start reads the same file instead of making it again.
	expect(Object.keys(await loadServerValidators(cacheDir))).toEqual(Object.keys(validators));
	expect(readdirSync(cacheDir).filter((n) => n.endsWith(".js"))).toHaveLength(1);
});

const VALID: Record<string, unknown[]> = {
	"frame/client": [
		{ t: "open", h: 1, object: "chat", version: 1, input: { session: "s" } },
		{ t: "call", h: 2, id: 7, method: "send", args: {} },
		{ t: "close", h: 3 },
	],
	"chat@1/args/send": [
		{ text: "hi", mode: "steer", requestId: "request-1" },
		{ text: "", mode: "followUp", requestId: "request-2", attachments: ["a"], extra: { replyTo: 3 } },
	],
	"sessions@1/args/create": [{ cwd: "/tmp" }],
	"models.json/provider": [
		{ baseUrl: "http://x", apiKey: "$KEY", api: "openai-completions", models: [{}], headers: { a: "b" } },
	],
	"models.json/model": [{ id: "m", reasoning: true, input: ["text", "image"], cost: { input: 1 }, contextWindow: 5 }],
	"chat/stored/user": [{ kind: "user", text: "hi", images: [{ type: "image", data: "x", mimeType: "image/png" }] }],
	"chat/stored/tool": [
		{
			kind: "tool",
			callId: "c",
			name: "bash",
			args: {},
			result: { content: [{ type: "text", text: "ok" }], isError: false },
			durationMs: null,
		},
	],
};

for (const [key, valid] of Object.entries(VALID)) {
	test(`the server's precompiled check agrees with arktype on hostile variants: ${key}`, () => {
		const schema = schemas.get(key) as (data: unknown) => unknown;
		const validate = validators[key]!;
		const corpus = [null, undefined, 1, "x", [], {}, ...valid.flatMap((v) => [v, ...variantsOf(v, 0)])];
		const disagreements = corpus.filter((value) => validate(value) !== !(schema(value) instanceof type.errors));
		expect(disagreements.map((d) => JSON.stringify(d)?.slice(0, 300))).toEqual([]);
		for (const v of valid) expect(validate(v)).toBe(true);
		expect(corpus.filter((value) => !validate(value)).length).toBeGreaterThan(corpus.length / 2);
	});
}

test("a value the precompiled check refuses is refused in arktype's words; one it accepts is passed on as is", () => {
	const checks = precompiledFirst(validators, arktypeChecks);
	const schema = schemas.get("chat@1/args/send") as (data: unknown) => unknown;
	const args = { text: "hi", mode: "steer", requestId: "request-1" };
	const fine = checks.check("chat@1/args/send", schema, args);
	expect(fine).toEqual({ ok: true, value: args });
	expect(fine.ok && fine.value).toBe(args);
	expect(checks.check("chat@1/args/send", schema, { ...args, mode: "later" })).toEqual({
		ok: false,
		why: expect.stringContaining("mode must be"),
	});
	// A key without a validator is checked by the schema itself.
	expect(checks.check("no/such/key", type("string"), 5)).toEqual({ ok: false, why: "must be a string (was a number)" });
});
