import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_ATTACH_BYTES, openLocalFile, resolveLocalPath } from "../../src/host/local-file.ts";

let dir = "";
afterEach(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("local files the person sends", () => {
	test("paths as typed or dropped: ~, file://, quotes, escapes, relative to the launcher's directory", () => {
		expect(resolveLocalPath("~/notes.txt", "/work", "/home/me")).toBe("/home/me/notes.txt");
		expect(resolveLocalPath("file:///tmp/My%20File.txt", "/work")).toBe("/tmp/My File.txt");
		expect(resolveLocalPath("'/tmp/a b.txt'", "/work")).toBe("/tmp/a b.txt");
		expect(resolveLocalPath("/tmp/a\\ b.txt", "/work")).toBe("/tmp/a b.txt");
		expect(resolveLocalPath("docs/x.md", "/work")).toBe("/work/docs/x.md");
	});

	test("only a regular file within the limit, checked on the open descriptor", () => {
		dir = mkdtempSync(join(tmpdir(), "p2-local-file-"));
		writeFileSync(join(dir, "ok.txt"), "fine");
		symlinkSync(join(dir, "ok.txt"), join(dir, "link"));
		Bun.spawnSync(["mkfifo", join(dir, "fifo")]);
		writeFileSync(join(dir, "big.bin"), "");
		truncateSync(join(dir, "big.bin"), MAX_ATTACH_BYTES + 1);
		const file = openLocalFile(join(dir, "ok.txt"));
		expect(new TextDecoder().decode(file.read())).toBe("fine");
		file.close();
		expect(() => openLocalFile(join(dir, "link"))).toThrow("is a symbolic link");
		expect(() => openLocalFile(join(dir, "fifo"))).toThrow("is not a regular file");
		expect(() => openLocalFile(dir)).toThrow("is a directory");
		expect(() => openLocalFile("/dev/null")).toThrow("is not a regular file");
		expect(() => openLocalFile(join(dir, "big.bin"))).toThrow("is larger than 25 MiB");
		expect(() => openLocalFile(join(dir, "missing"))).toThrow("does not exist");
	});

	test("a download never replaces a file: name, name (1), name (2); the server's name is cleaned", async () => {
		const { saveName, saveNew } = await import("../../src/host/local-file.ts");
		dir = mkdtempSync(join(tmpdir(), "p2-save-"));
		expect(saveName("../../.bashrc")).toBe("bashrc");
		expect(saveName("a\x1b]0;x\x07:b?.txt")).toBe("a]0;xb.txt");
		expect(saveName("")).toBe("download");
		writeFileSync(join(dir, "r.txt"), "mine");
		expect(saveNew(dir, "r.txt", new TextEncoder().encode("one"))).toBe(join(dir, "r (1).txt"));
		expect(saveNew(dir, "r.txt", new TextEncoder().encode("two"))).toBe(join(dir, "r (2).txt"));
		expect(readFileSync(join(dir, "r.txt"), "utf8")).toBe("mine");
	});
});
