import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type } from "../../src/protocol/ark.ts";
import { parseJsonText, readJsonFile, shapeProblems } from "../../src/server/json-file.ts";
import { findJsonSyntaxError } from "../../src/server/json-syntax.ts";

let dir = "";
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
	dir = "";
});

describe("where JSON breaks", () => {
	test("valid documents have no error, whatever JSON.parse accepts", () => {
		for (const text of [
			"{}",
			"[]",
			' {"a": [1, -2.5e+3, 0, true, false, null, "x\\n\\u00e9\\"", {}]} \n',
			"0",
			'"s"',
			"[[[[]]]]",
		]) {
			expect(() => JSON.parse(text)).not.toThrow();
			expect(findJsonSyntaxError(text)).toBeUndefined();
		}
	});

	test("each error at the line and column where it is, with what was found there", () => {
		const cases: [string, number, number, string][] = [
			['{\n "providers": {\n  "x": ,\n }\n}\n', 3, 8, 'unexpected ","'],
			['{"a": 1,}', 1, 9, 'unexpected "}"'],
			['{"a": 1', 1, 8, "unexpected end of file"],
			["{'a': 1}", 1, 2, `unexpected "'"`],
			['{"a": tru}', 1, 10, 'unexpected "}"'],
			["[1, 2]\n[3]", 2, 1, 'unexpected "["'],
			['{"a": 01}', 1, 8, 'unexpected "1"'],
			['{"a": "tab\there"}', 1, 11, "unexpected control character U+0009"],
			['{"a": "\\x"}', 1, 9, 'unexpected "x"'],
			["// comment\n{}", 1, 1, 'unexpected "/"'],
		];
		for (const [text, line, column, reason] of cases) {
			expect(() => JSON.parse(text)).toThrow();
			expect({ text, at: findJsonSyntaxError(text) }).toEqual({ text, at: { line, column, reason } });
		}
	});
});

describe("the server's JSON files", () => {
	test("a missing file is no problem; an empty one, a broken one and a directory are named with their path", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-json-file-"));
		const path = join(dir, "models.json");
		expect(readJsonFile(path)).toEqual({ missing: true });
		writeFileSync(path, "  \n");
		expect(readJsonFile(path)).toEqual({ problem: `models.json (${path}): is empty` });
		writeFileSync(path, '\uFEFF{\n  "providers": {\n    "x": ,\n');
		expect(readJsonFile(path)).toEqual({
			problem: `models.json (${path}): not valid JSON at line 3, column 10 (unexpected ",")`,
		});
		writeFileSync(path, '\uFEFF{"providers": {}}');
		expect(readJsonFile(path)).toEqual({ value: { providers: {} } });
		const folder = join(dir, "tui.json");
		mkdirSync(folder);
		expect(readJsonFile(folder, { label: "the server's tui.json" })).toEqual({
			problem: "the server's tui.json: is not a regular file",
		});
		writeFileSync(path, `[${"1,".repeat(1024)}1]`);
		expect(readJsonFile(path, { maxBytes: 1024 })).toEqual({ problem: `models.json (${path}): is larger than 1 KiB` });
		expect(parseJsonText("{")).toEqual({ problem: "not valid JSON at line 1, column 2 (unexpected end of file)" });
	});

	test("a wrong shape is said with its place in the whole file", () => {
		const Model = type({ id: "string > 0", "input?": "('text' | 'image')[]", "cost?": { "input?": "number" } });
		const checked = Model({ id: 5, input: ["x"], cost: { input: "a" } });
		if (!(checked instanceof type.errors)) throw new Error("expected errors");
		expect(shapeProblems(checked, ["providers", "x", "models", 0]).sort()).toEqual([
			"providers.x.models[0].cost.input must be a number (was a string)",
			"providers.x.models[0].id must be a string (was a number)",
			'providers.x.models[0].input[0] must be "image" or "text" (was "x")',
		]);
		const root = type({ providers: "Record<string, unknown>" })(3);
		if (!(root instanceof type.errors)) throw new Error("expected errors");
		expect(shapeProblems(root)).toEqual(["the file must be an object (was a number)"]);
	});
});
