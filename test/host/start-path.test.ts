import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "..", "src");

/** The modules a file loads when it starts (static imports only; `import type` and `import()` load nothing then). */
function staticGraph(entry: string): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	const visit = (file: string) => {
		if (graph.has(file)) return;
		const imports: string[] = [];
		graph.set(file, imports);
		const source = readFileSync(file, "utf8");
		for (const match of source.matchAll(/^import\s+(?!type\b)[^;]*?\sfrom\s+"([^"]+)";/gms)) {
			const spec = match[1]!;
			if (!spec.startsWith(".")) imports.push(spec);
			else {
				const path = resolve(dirname(file), spec);
				imports.push(path);
				if (path.endsWith(".ts")) visit(path);
			}
		}
	};
	visit(entry);
	return graph;
}

describe("the launcher's start path", () => {
	test("loads no schema library, and of the server only the data directory's lock and the build's identity", () => {
		const graph = staticGraph(join(SRC, "launch.ts"));
		for (const entry of ["main.ts", "cli.ts", "host/args.ts", "host/worker-spawn.ts"]) {
			for (const [file, imports] of staticGraph(join(SRC, entry))) graph.set(file, imports);
		}
		const loadingArktype = [...graph].filter(([, imports]) => imports.includes("arktype")).map(([file]) => file);
		expect(loadingArktype).toEqual([]);
		const server = [...graph.keys()].filter((file) => file.includes("/src/server/")).map((f) => f.slice(SRC.length));
		expect(server.sort()).toEqual([
			"/server/build-id.ts",
			"/server/files-stamp.ts",
			"/server/store/data-dir-lock.ts",
			"/server/store/data-dir.ts",
			"/server/store/errors.ts",
			"/server/store/sqlite.ts",
		]);
	});

	test("p2's entry loads only what starts the guest worker, before the rest of p2", () => {
		const loaded = [...staticGraph(join(SRC, "main.ts")).keys()].map((f) => f.slice(SRC.length)).sort();
		expect(loaded).toEqual([
			"/dev-bootstrap.ts",
			"/host/embedded-root.ts",
			"/host/harden-intrinsics.ts",
			"/host/is-terminal.ts",
			"/host/worker-spawn.ts",
			"/main.ts",
			"/server/files-stamp.ts",
		]);
	});

	test("the embedded server's bundle, read before the server loads, loads no schema library unless it is built", () => {
		// launch.ts hands the cached bundle to the worker first; precompiling validators is for a build only.
		const graph = staticGraph(join(SRC, "server", "bundle.ts"));
		const loadingArktype = [...graph].filter(([, imports]) => imports.includes("arktype")).map(([file]) => file);
		expect(loadingArktype).toEqual([]);
	});
});
