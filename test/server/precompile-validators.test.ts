import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type } from "../../src/protocol/ark.ts";
import { ROLES } from "../../src/protocol/roles.ts";
import { SERVER_FRAME_KEY, SNAPSHOT_KEY } from "../../src/protocol/schema-checks.ts";
import { guestSchemas, pluginContracts, pluginEntries } from "../../src/server/guest-schemas.ts";
import { PrecompileError, precompiledValidatorsModule } from "../../src/server/precompile-validators.ts";
import { corpusFor, VALID } from "../support/validator-corpus.ts";

const ROOT = join(import.meta.dir, "..", "..");

type Validators = Record<string, (data: unknown) => boolean>;

let dir: string;
let schemas: Map<string, unknown>;
let validators: Validators;
let source: string;

/** The generated module, imported as the bundle would import it. */
async function load(text: string, name: string): Promise<Validators> {
	const path = join(dir, `${name}.js`);
	writeFileSync(path, text);
	return ((await import(path)) as { precompiledValidators: Validators }).precompiledValidators;
}

beforeAll(async () => {
	dir = mkdtempSync(join(tmpdir(), "p2-precompiled-"));
	schemas = await guestSchemas();
	source = precompiledValidatorsModule(schemas);
	validators = await load(source, "all");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("validators precompiled from arktype's schemas", () => {
	for (const key of Object.keys(VALID)) {
		test(`agree with arktype on hostile variants: ${key}`, () => {
			const schema = schemas.get(key) as (data: unknown) => unknown;
			const validate = validators[key]!;
			const corpus = corpusFor(key);
			const disagreements = corpus.filter((value) => validate(value) !== !(schema(value) instanceof type.errors));
			expect(disagreements.map((d) => JSON.stringify(d)?.slice(0, 300))).toEqual([]);
			// The corpus must test both answers: every valid value passes, and most variants do not.
			for (const valid of VALID[key]!) expect(validate(valid)).toBe(true);
			const refused = corpus.filter((value) => !validate(value)).length;
			expect(refused).toBeGreaterThan(corpus.length / 2);
		});
	}

	test("every plugin contract's states (per role) and results have one, and the frames and snapshot too", async () => {
		const contracts = await pluginContracts();
		expect(contracts.map((c) => c.name)).toContain("chat");
		expect(contracts.length).toBeGreaterThanOrEqual(10);
		for (const contract of contracts) {
			for (const role of ROLES) {
				const key = `${contract.name}@${contract.version}/state/${role}`;
				expect(Object.hasOwn(validators, key)).toBe(contract.variants[role] !== null);
			}
			for (const method of Object.keys(contract.methods)) {
				expect(typeof validators[`${contract.name}@${contract.version}/result/${method}`]).toBe("function");
			}
		}
		expect(typeof validators[SERVER_FRAME_KEY]).toBe("function");
		expect(typeof validators[SNAPSHOT_KEY]).toBe("function");
	});

	test("every transcript entry type a plugin declares has one for its data", async () => {
		const entries = await pluginEntries();
		expect(entries.map((e) => e.type)).toEqual(expect.arrayContaining(["chat-mode.message", "chat-mode.switch"]));
		for (const entry of entries) expect(typeof validators[`entry/${entry.type}`]).toBe("function");
	});

	test("the module carries no arktype: no registry, no error messages, no traversal context", () => {
		expect(source).not.toMatch(/\$ark|ctx|errorFromNodeContext|Apply\(/);
		expect(source).not.toContain("import");
	});

	test("the module depends on the schemas only, not on what the process built before", async () => {
		// This process built every guest schema and more before; a fresh one builds only the frames.
		type({ a: "string", b: "number[]", "+": "reject" }).or({ c: "'x' | 'y'" });
		const here = precompiledValidatorsModule(new Map([[SERVER_FRAME_KEY, schemas.get(SERVER_FRAME_KEY)]]));
		const script = `
			const { ServerFrame } = await import(${JSON.stringify(join(ROOT, "src/protocol/frames.ts"))});
			const { precompiledValidatorsModule } = await import(${JSON.stringify(join(ROOT, "src/server/precompile-validators.ts"))});
			process.stdout.write(precompiledValidatorsModule(new Map([["frame/server", ServerFrame]])));`;
		const fresh = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
		const text = await new Response(fresh.stdout).text();
		expect(await fresh.exited).toBe(0);
		expect(text).toBe(here);
	});

	test("patterns and undeclared-key sets are written into the module as literals", async () => {
		const strict = type({ id: "/^[a-z]{2}$/", "n?": "1 <= number.integer <= 5", "+": "reject" });
		const text = precompiledValidatorsModule(new Map([["strict", strict]]));
		expect(text).toMatch(/const r0 = Object\.freeze\(\{ __proto__: null, \["id"\]: 1, \["n"\]: 1 \}\)/);
		const check = (await load(text, "strict")).strict!;
		const cases = [{ id: "ab" }, { id: "ab", n: 5 }, { id: "abc" }, { id: "ab", n: 6 }, { id: "ab", x: 1 }];
		expect(cases.map(check)).toEqual(cases.map((c) => strict.allows(c)));
		expect(cases.map(check)).toEqual([true, true, false, false, false]);
	});

	test("a schema whose check cannot be precompiled fails the build with a clear error", () => {
		class Thing {}
		const cases: [unknown, RegExp][] = [
			[type("string").pipe((s) => s.length), /transforms values/],
			[type({ a: "string", "+": "delete" }), /transforms values/],
			// arktype calls a narrow with the context whether or not it reads it.
			[type("number").narrow((n) => n > 1), /traversal context/],
			[type("number").narrow((n, ctx) => n > 1 || ctx.mustBe("big")), /traversal context/],
			[{ kind: "not a schema" }, /not an arktype schema/],
			[type("instanceof", Thing), /reads \$ark\.Thing, a function \(Thing\), which cannot be written/],
		];
		for (const [schema, message] of cases) {
			const run = () => precompiledValidatorsModule(new Map([["bad", schema]]));
			expect(run).toThrow(PrecompileError);
			expect(run).toThrow(message);
		}
	});
});
