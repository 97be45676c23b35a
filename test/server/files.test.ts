import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { completePath, findFiles } from "../../src/plugins/files/server.ts";

let dir = "";
beforeAll(() => {
	dir = realpathSync(mkdtempSync(join(tmpdir(), "p2-files-")));
	for (const d of ["src/deep", "node_modules/x", ".git", "docs"]) mkdirSync(join(dir, d), { recursive: true });
	for (const f of [
		"README.md",
		"src/main.ts",
		"src/deep/helper.ts",
		"node_modules/x/index.js",
		".env",
		"docs/guide.md",
	])
		writeFileSync(join(dir, f), "");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("completing paths (Tab)", () => {
	test("the typed directory's entries that start with the typed name, folders first, hidden ones only when asked", () => {
		expect(completePath(dir, "").items.map((i) => i.path)).toEqual(["docs/", "node_modules/", "src/", "README.md"]);
		expect(completePath(dir, "src/").items.map((i) => i.path)).toEqual(["src/deep/", "src/main.ts"]);
		expect(completePath(dir, "src/m").items).toEqual([{ path: "src/main.ts", dir: false }]);
		expect(completePath(dir, ".e").items.map((i) => i.path)).toEqual([".env"]);
		expect(completePath(dir, `${dir}/do`).items.map((i) => i.path)).toEqual([`${dir}/docs/`]);
		expect(completePath(dir, "nothing/here").items).toEqual([]);
	});
});

describe("finding files (@)", () => {
	test("a fuzzy query over the relative paths, never into node_modules or .git", () => {
		const found = findFiles(dir, "helper").items.map((i) => i.path);
		expect(found[0]).toBe("src/deep/helper.ts");
		expect(findFiles(dir, "index").items.map((i) => i.path)).not.toContain("node_modules/x/index.js");
		expect(findFiles(dir, "").items.map((i) => i.path)).not.toContain(".env");
	});
});
