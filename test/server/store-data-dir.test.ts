import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Catalog } from "../../src/server/store/catalog.ts";
import {
	ensurePrivateDir,
	readPrivateFile,
	resolveDataDir,
	writePrivateFile,
} from "../../src/server/store/data-dir.ts";
import { SessionStore } from "../../src/server/store/session-store.ts";

const mode = (path: string) => statSync(path).mode & 0o777;

let root: string;
let umask: number;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "p2-store-"));
	// The loosest umask there is: every mode below must come from our code, not the environment.
	umask = process.umask(0);
});
afterEach(() => {
	process.umask(umask);
	rmSync(root, { recursive: true, force: true });
});

describe("resolveDataDir", () => {
	test("P2_DATA_DIR wins and is made absolute", () => {
		expect(resolveDataDir({ P2_DATA_DIR: "/srv/p2", HOME: "/home/x" })).toBe("/srv/p2");
		expect(resolveDataDir({ P2_DATA_DIR: "rel/dir" })).toBe(join(process.cwd(), "rel/dir"));
	});
	test("defaults to ~/.pi/p2", () => {
		expect(resolveDataDir({ HOME: "/home/x" })).toBe("/home/x/.pi/p2");
		expect(resolveDataDir({ P2_DATA_DIR: "  ", HOME: "/home/x" })).toBe("/home/x/.pi/p2");
	});
});

describe("private files and folders", () => {
	test("ensurePrivateDir creates 0700 folders and tightens loose ones", () => {
		const dir = join(root, "a", "b");
		ensurePrivateDir(dir);
		expect(mode(dir)).toBe(0o700);
		chmodSync(dir, 0o755);
		ensurePrivateDir(dir);
		expect(mode(dir)).toBe(0o700);
	});

	test("writePrivateFile replaces atomically with a 0600 file and leaves no temp files", () => {
		const file = join(root, "server.json");
		writePrivateFile(file, "one");
		expect(mode(file)).toBe(0o600);
		chmodSync(file, 0o644);
		writePrivateFile(file, new TextEncoder().encode("two"));
		expect(mode(file)).toBe(0o600);
		expect(readPrivateFile(file)).toBe("two");
		expect(readdirSync(root)).toEqual(["server.json"]);
		expect(readPrivateFile(join(root, "missing"))).toBeUndefined();
	});

	test("catalog and session databases, with their -wal and -shm files, are 0600 in 0700 folders", () => {
		const data = join(root, "data");
		const catalog = Catalog.open(data);
		const session = catalog.create({ cwd: "/tmp" });
		const store = SessionStore.open(data, session.id);
		store.append("main", { kind: "message", data: { text: "hi" } });
		expect(mode(data)).toBe(0o700);
		expect(mode(join(data, "sessions"))).toBe(0o700);
		const files = [join(data, "catalog.sqlite"), store.path];
		for (const file of files) {
			for (const suffix of ["", "-wal", "-shm"])
				expect({ file: file + suffix, mode: mode(file + suffix) }).toEqual({
					file: file + suffix,
					mode: 0o600,
				});
		}
		store.close();
		catalog.close();
	});

	test("a loose database file is tightened on open", () => {
		const data = join(root, "data");
		Catalog.open(data).close();
		chmodSync(join(data, "catalog.sqlite"), 0o644);
		const catalog = Catalog.open(data);
		expect(mode(join(data, "catalog.sqlite"))).toBe(0o600);
		catalog.close();
	});
});
