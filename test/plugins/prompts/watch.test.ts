import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchDirs, watchTargets } from "../../../src/plugins/prompts/watch.ts";
import { waitUntil } from "../../support/wait.ts";

describe("watching template and skill directories", () => {
	test("a directory that does not exist yet is watched through its nearest parent, for its own name only", () => {
		const root = realpathSync(mkdtempSync(join(tmpdir(), "p2-watch-")));
		try {
			mkdirSync(join(root, "skills"));
			const targets = watchTargets([join(root, "prompts"), join(root, "a", "b", "skills"), join(root, "skills")]);
			// The data directory's missing prompts/: changes to the stores beside it (written all the time) do not count.
			expect(targets.get(root)).toEqual({ recursive: false, names: new Set(["prompts", "a"]) });
			expect(targets.get(join(root, "skills"))).toEqual({ recursive: true, names: null });
			expect(targets.size).toBe(2);
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});

	test("the directory appearing is a change; files written beside it are not", async () => {
		const root = realpathSync(mkdtempSync(join(tmpdir(), "p2-watch-")));
		const changes: string[] = [];
		const stop = watchDirs([join(root, "prompts")], () => changes.push("change"), 0);
		try {
			writeFileSync(join(root, "catalog.sqlite-wal"), "x");
			mkdirSync(join(root, "prompts"));
			await waitUntil(() => changes.length > 0, "the new directory seen");
			// A later write beside it is not a change: only the directory's own name counts. A second watcher of the
			// same directory, told of a directory made after the write, shows the write's event was delivered.
			const seen = changes.length;
			const beside = watchDirs([join(root, "other")], () => changes.push("other"), 0);
			try {
				writeFileSync(join(root, "catalog.sqlite-wal"), "y");
				mkdirSync(join(root, "other"));
				await waitUntil(() => changes.includes("other"), "a second watcher saw its own directory");
				expect(changes.filter((c) => c === "change").length).toBe(seen);
			} finally {
				beside();
			}
		} finally {
			stop();
			rmSync(root, { recursive: true, force: true });
		}
	});
});
