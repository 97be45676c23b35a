import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServerSettings } from "../../src/server/settings.ts";

let dir = "";
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
	dir = "";
});

describe("the server's settings.json", () => {
	test("a problem names the file with its path and what is wrong; the defaults apply meanwhile", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-settings-"));
		const path = join(dir, "settings.json");
		const label = `settings.json (${path})`;
		expect(new ServerSettings(dir).problem).toBeNull();
		writeFileSync(path, '{\n  "defaultModel": \n');
		const broken = new ServerSettings(dir);
		expect(broken.problem).toBe(`${label}: not valid JSON at line 3, column 1 (unexpected end of file)`);
		expect(broken.value).toEqual({});
		writeFileSync(path, "");
		expect(new ServerSettings(dir).problem).toBe(`${label}: is empty`);
		writeFileSync(path, JSON.stringify({ defaultModel: { provider: "x", id: 3 }, defaultThinkingLevel: "loud" }));
		expect(new ServerSettings(dir).problem).toBe(
			`${label}: defaultModel.id must be a string (was a number); defaultThinkingLevel must be "high", "low", "max", "medium", "minimal", "off" or "xhigh" (was "loud")`,
		);
	});

	test("a file that could not be used is never overwritten by a change: the person fixes it", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-settings-"));
		const path = join(dir, "settings.json");
		writeFileSync(path, '{"enabledModels": ["a/b",]}');
		const settings = new ServerSettings(dir);
		expect(() => settings.update({ defaultThinkingLevel: "high" })).toThrow(
			`settings.json (${path}): not valid JSON at line 1, column 26 (unexpected "]"). Fix the file, then try again.`,
		);
		expect(readFileSync(path, "utf8")).toBe('{"enabledModels": ["a/b",]}');
	});
});
