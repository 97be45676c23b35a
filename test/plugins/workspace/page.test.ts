/**
 * A page of a file for the viewer, cut out on the session's machine (one script, the same on this device and
 * over SSH): the expected pages are what p2's former in-process reader showed for these files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_LINE_CHARS, type ReadResult } from "../../../src/plugins/workspace/contract.ts";
import { SessionDirectory } from "../../../src/plugins/workspace/directory.ts";
import { parsePage } from "../../../src/plugins/workspace/page.ts";
import type { Environment } from "../../../src/server/env/environment.ts";
import { LocalEnvironment } from "../../../src/server/env/local.ts";

/** The bytes the page script sends back, counted (over SSH, they travel). */
function counted(env: Environment): { env: Environment; bytes: () => number } {
	let bytes = 0;
	const wrapped = Object.create(env) as Environment;
	Object.defineProperty(wrapped, "exec", {
		value: (request: Parameters<Environment["exec"]>[0]) =>
			env.exec({
				...request,
				onData: (chunk) => {
					bytes += chunk.byteLength;
					request.onData(chunk);
				},
			}),
	});
	return { env: wrapped, bytes: () => bytes };
}

let root: string;
beforeAll(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "p2-remote-page-")));
	const numbered = Array.from({ length: 50 }, (_, i) => `line ${i + 1}${i === 30 ? " Needle here" : ""}`);
	writeFileSync(join(root, "plain.txt"), `${numbered.join("\n")}\n`);
	writeFileSync(join(root, "no-newline.txt"), "first\nsecond");
	writeFileSync(join(root, "crlf.txt"), "one\r\ntwo\r\nthree\r\n");
	writeFileSync(join(root, "empty.txt"), "");
	writeFileSync(join(root, "long.txt"), `short\n${"é".repeat(MAX_LINE_CHARS + 50)}\nafter\n`);
	writeFileSync(join(root, "unicode.txt"), "naïve café\n日本語の行\nplain\n");
	writeFileSync(join(root, "nul.bin"), Buffer.from([104, 105, 0, 10, 1, 2]));
	writeFileSync(join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 10, 0x61, 10]));
	writeFileSync(
		join(root, "big.txt"),
		`${Array.from({ length: 120_000 }, (_, i) => `row ${i} ${"x".repeat(40)}`).join("\n")}\n`,
	);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Page = Pick<ReadResult, "line" | "lines" | "more">;
const cases: [path: string, line: number, limit: number, find: string | undefined, page: Page][] = [
	["plain.txt", 1, 3, undefined, { line: 1, lines: ["line 1", "line 2", "line 3"], more: true }],
	["plain.txt", 49, 2, undefined, { line: 49, lines: ["line 49", "line 50"], more: false }],
	["plain.txt", 50, 1, undefined, { line: 50, lines: ["line 50"], more: false }],
	["plain.txt", 60, 10, undefined, { line: 60, lines: [], more: false }],
	["plain.txt", 1, 2, "needle", { line: 31, lines: ["line 31 Needle here", "line 32"], more: true }],
	["plain.txt", 32, 5, "needle", { line: null, lines: [], more: false }],
	["plain.txt", 1, 5, "absent", { line: null, lines: [], more: false }],
	["plain.txt", 1, 2, "line 4", { line: 4, lines: ["line 4", "line 5"], more: true }],
	["no-newline.txt", 1, 10, undefined, { line: 1, lines: ["first", "second"], more: false }],
	["no-newline.txt", 2, 1, undefined, { line: 2, lines: ["second"], more: false }],
	["crlf.txt", 1, 10, undefined, { line: 1, lines: ["one", "two", "three"], more: false }],
	["empty.txt", 1, 10, undefined, { line: 1, lines: [], more: false }],
	["unicode.txt", 1, 10, "café", { line: 1, lines: ["naïve café", "日本語の行", "plain"], more: false }],
	["unicode.txt", 1, 10, "語の", { line: 2, lines: ["日本語の行", "plain"], more: false }],
	["latin1.txt", 1, 10, undefined, { line: 1, lines: ["caf\uFFFD", "a"], more: false }],
	[
		"big.txt",
		100_000,
		2,
		undefined,
		{ line: 100_000, lines: [`row 99999 ${"x".repeat(40)}`, `row 100000 ${"x".repeat(40)}`], more: true },
	],
	["big.txt", 1, 3, "row 119999 ", { line: 120_000, lines: [`row 119999 ${"x".repeat(40)}`], more: false }],
];

describe("a page of a file", () => {
	const directory = new SessionDirectory(new LocalEnvironment());
	for (const [path, line, limit, find, page] of cases) {
		test(`${path} from ${line}, ${limit} lines${find ? `, finding ${find}` : ""}`, async () => {
			expect(await directory.read(root, path, line, limit, find)).toMatchObject({ path, binary: false, ...page });
		});
	}

	test("a long line is cut at MAX_LINE_CHARS characters; a file with a NUL is binary, its lines not shown", async () => {
		const long = await directory.read(root, "long.txt", 1, 10);
		expect(long.lines.map((l) => l.length)).toEqual([5, MAX_LINE_CHARS, 5]);
		expect(await directory.read(root, "nul.bin", 1, 10)).toEqual({
			path: "nul.bin",
			size: 6,
			binary: true,
			line: null,
			lines: [],
			more: false,
		});
	});

	test("only the page travels, not the file", async () => {
		const { env, bytes } = counted(new LocalEnvironment());
		const page = await new SessionDirectory(env).read(root, "big.txt", 60_000, 20);
		expect(page.lines[0]).toStartWith("row 59999 ");
		expect(page.more).toBe(true);
		// The file is 6 MB; the page, its size and the 8 KiB probe (hex) are some 20 KB.
		expect(bytes()).toBeLessThan(64 * 1024);
	});

	test("an answer cut short is an error, not a wrong page", () => {
		expect(() => parsePage("a.txt", Buffer.from("12\n"))).toThrow("cut short");
		expect(() => parsePage("a.txt", Buffer.from("12\n6869\nhi\n"))).toThrow("cut short");
		expect(parsePage("a.txt", Buffer.from("3\n6869\nhi\n1 0\n"))).toEqual({
			path: "a.txt",
			size: 3,
			binary: false,
			line: 1,
			lines: ["hi"],
			more: false,
		});
	});
});
