import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildGuestScript } from "../../src/server/bundle.ts";

const ROOT = join(import.meta.dir, "..", "..");

describe("the guest bundle", () => {
	test("carries no arktype: no module of it is an input, and none of its code is in the text", async () => {
		const { source, inputs } = await buildGuestScript();
		expect(inputs.filter((path) => /node_modules\/(arktype|@ark)\//.test(path))).toEqual([]);
		// Its validators come from the module precompiled at build time; `arktype` is the inert shim.
		expect(inputs.some((path) => path.endsWith("src/guest/arktype-shim.ts"))).toBe(true);
		expect(inputs.some((path) => path.includes("precompiled-validators"))).toBe(true);
		expect(inputs.some((path) => path.endsWith("src/plugins/chat/contract.ts"))).toBe(true);
		// Markers of arktype's own code: its registry, its node kinds, its jitless mode, its compiled traversal.
		for (const marker of ["$ark", "arkKind", "jitless", "precompilation", "errorFromNodeContext"]) {
			expect({ marker, found: source.includes(marker) }).toEqual({ marker, found: false });
		}
	}, 60_000);
});

describe("the bundle of a server from source", () => {
	test("is built by a process of its own and kept: the server's process loads neither the bundler's work nor arktype", async () => {
		const dir = mkdtempSync(join(tmpdir(), "p2-bundle-cache-"));
		try {
			const cacheDir = join(dir, "cache");
			const script = join(dir, "ask.ts");
			writeFileSync(
				script,
				[
					`import { cachedGuestBundle } from ${JSON.stringify(join(ROOT, "src", "server", "bundle.ts"))};`,
					`import { arktypeLoaded } from ${JSON.stringify(join(ROOT, "src", "protocol", "ark.ts"))};`,
					`const bundle = await cachedGuestBundle(${JSON.stringify(cacheDir)});`,
					"console.log(JSON.stringify({ hash: bundle.hash, length: bundle.source.length, arktype: arktypeLoaded() }));",
				].join("\n"),
			);
			const asked = Bun.spawnSync([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
			expect(asked.stderr.toString()).toBe("");
			const answer = JSON.parse(asked.stdout.toString()) as { hash: string; length: number; arktype: boolean };
			expect(answer.arktype).toBe(false);
			const kept = readdirSync(cacheDir).filter((name) => name.endsWith(".js"));
			expect(kept.length).toBe(1);
			const source = readFileSync(join(cacheDir, kept[0]!), "utf8");
			expect(source.length).toBe(answer.length);
			expect(new Bun.CryptoHasher("sha256").update(source).digest("hex")).toBe(answer.hash);
			// It is the UI: its entry puts the guest where the bootstrap looks for it.
			expect(source).toContain("p2Guest");
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 120_000);
});
