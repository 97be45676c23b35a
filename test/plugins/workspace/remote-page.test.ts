import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPage } from "../../../src/plugins/workspace/backend.ts";
import { MAX_LINE_CHARS } from "../../../src/plugins/workspace/contract.ts";
import { RemoteWorkspace, remotePage } from "../../../src/plugins/workspace/remote.ts";
import type { Environment } from "../../../src/server/env/environment.ts";
import { LocalEnvironment } from "../../../src/server/env/local.ts";

/** This machine as a remote one: the same shell scripts run, and what they send back is counted. */
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

describe("a page of a file on another machine", () => {
	const cases: [string, number, number, string?][] = [
		["plain.txt", 1, 10],
		["plain.txt", 45, 10],
		["plain.txt", 49, 2],
		["plain.txt", 50, 1],
		["plain.txt", 60, 10],
		["plain.txt", 1, 5, "needle"],
		["plain.txt", 32, 5, "needle"],
		["plain.txt", 1, 5, "absent"],
		["plain.txt", 1, 5, "line 4"],
		["no-newline.txt", 1, 10],
		["no-newline.txt", 2, 1],
		["crlf.txt", 1, 10],
		["empty.txt", 1, 10],
		["long.txt", 1, 10],
		["unicode.txt", 1, 10, "café"],
		["unicode.txt", 1, 10, "語の"],
		["nul.bin", 1, 10],
		["latin1.txt", 1, 10],
		["big.txt", 100_000, 20],
		["big.txt", 1, 3, "row 119999 "],
	];
	for (const [path, line, limit, find] of cases) {
		test(`is what this device would show: ${path} from ${line}, ${limit} lines${find ? `, finding ${find}` : ""}`, async () => {
			const remote = new RemoteWorkspace(new LocalEnvironment());
			expect(await remote.read(root, path, line, limit, find)).toEqual(readPage(root, path, line, limit, find));
		});
	}

	test("only the page travels, not the file", async () => {
		const { env, bytes } = counted(new LocalEnvironment());
		const remote = new RemoteWorkspace(env);
		const page = await remote.read(root, "big.txt", 60_000, 20);
		expect(page.lines[0]).toStartWith("row 59999 ");
		expect(page.more).toBe(true);
		// The file is 6 MB; the page, its size and the 8 KiB probe (hex) are some 20 KB with the path checks.
		expect(bytes()).toBeLessThan(64 * 1024);
	});

	test("an answer cut short is an error, not a wrong page", () => {
		expect(() => remotePage("a.txt", Buffer.from("12\n"))).toThrow("cut short");
		expect(() => remotePage("a.txt", Buffer.from("12\n6869\nhi\n"))).toThrow("cut short");
		expect(remotePage("a.txt", Buffer.from("3\n6869\nhi\n1 0\n"))).toEqual({
			path: "a.txt",
			size: 3,
			binary: false,
			line: 1,
			lines: ["hi"],
			more: false,
		});
	});
});
