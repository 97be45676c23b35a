import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchRemoteResources } from "../../../src/plugins/prompts/remote.ts";
import type { Environment, ExecRequest } from "../../../src/server/env/environment.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A machine that answers the resource listing with `reply` (what a hostile or broken one could send). */
function machine(reply: string): Environment {
	return {
		name: "evil",
		remote: true,
		home: async () => "/home/x",
		stat: async () => null,
		readFile: async () => Buffer.alloc(0),
		writeFile: async () => {},
		listDirectory: async () => [],
		realPath: async (p) => p,
		directory: async (p) => p,
		run: async () => ({ code: 127, out: "", full: false, timedOut: false }),
		watch: () => null,
		connectTcp: () => ({ write() {}, close() {} }),
		exec: async (request: ExecRequest) => {
			request.onData(Buffer.from(reply, "utf8"));
			return { exitCode: 0, ended: "exit" };
		},
		openTerminal: () => {
			throw new Error("no terminal on this machine");
		},
	};
}

test("what a machine sends names nothing outside the mirror: .. and odd paths are dropped", async () => {
	const base = mkdtempSync(join(tmpdir(), "p2-hostile-"));
	dirs.push(base);
	const mirror = join(base, "mirror");
	const outside = join(base, "outside");
	const reply = [
		"H/home/x/../../..",
		`R/../..${outside}`,
		"C/work",
		`F/work/.pi/prompts/../../../..${outside}/a.md`,
		"pwned",
		"F/work/.pi/prompts//b.md",
		"pwned",
		"F/elsewhere/c.md",
		"pwned",
		"F/work/.pi/prompts/ok.md",
		"fine",
		"",
	].join("\0");
	const found = await fetchRemoteResources(machine(reply), "/work", mirror);
	expect(found).toEqual({ mirror, cwd: "/work", home: "" });
	expect(existsSync(outside)).toBe(false);
	expect(readdirSync(join(mirror, "work", ".pi", "prompts"))).toEqual(["ok.md"]);
	expect(readdirSync(mirror)).toEqual(["work"]);
});

test("a working directory that is not a clean absolute path is refused", async () => {
	const base = mkdtempSync(join(tmpdir(), "p2-hostile-"));
	dirs.push(base);
	await expect(fetchRemoteResources(machine(""), "/work/../..", join(base, "m"))).rejects.toThrow(
		"not a clean absolute path",
	);
});
