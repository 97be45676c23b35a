import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const module = (path: string) => JSON.stringify(join(ROOT, "src", ...path.split("/")));

test("a server from source has its UI bundle and validators made by a process of its own, and kept: it never loads arktype", async () => {
	const dir = mkdtempSync(join(tmpdir(), "p2-made-from-sources-"));
	try {
		const bundles = join(dir, "bundle");
		const validators = join(dir, "validators");
		const script = join(dir, "server.ts");
		writeFileSync(
			script,
			[
				`import { cachedGuestBundle } from ${module("server/bundle.ts")};`,
				`import { loadServerValidators } from ${module("server/server-validators.ts")};`,
				`import { arktypeLoaded } from ${module("protocol/ark.ts")};`,
				`const bundle = await cachedGuestBundle(${JSON.stringify(bundles)});`,
				`const checks = await loadServerValidators(${JSON.stringify(validators)});`,
				"console.log(JSON.stringify({ hash: bundle.hash, length: bundle.source.length, checks: Object.keys(checks).length, arktype: arktypeLoaded() }));",
			].join("\n"),
		);
		const server = Bun.spawnSync([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
		expect(server.stderr.toString()).toBe("");
		const answer = JSON.parse(server.stdout.toString()) as {
			hash: string;
			length: number;
			checks: number;
			arktype: boolean;
		};
		expect(answer.arktype).toBe(false);

		const keptBundles = readdirSync(bundles).filter((name) => name.endsWith(".js"));
		expect(keptBundles.length).toBe(1);
		const source = readFileSync(join(bundles, keptBundles[0]!), "utf8");
		expect(source.length).toBe(answer.length);
		expect(new Bun.CryptoHasher("sha256").update(source).digest("hex")).toBe(answer.hash);
		// It is the UI: its entry puts the guest where the bootstrap looks for it.
		expect(source).toContain("p2Guest");

		expect(readdirSync(validators).filter((name) => name.endsWith(".js")).length).toBe(1);
		expect(answer.checks).toBeGreaterThan(10);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}, 120_000);

test("the maker refuses what it does not make", () => {
	const made = Bun.spawnSync([process.execPath, join(ROOT, "src", "server", "make-from-sources.ts"), "secrets"], {
		stdout: "pipe",
		stderr: "pipe",
	});
	expect(made.exitCode).toBe(2);
	expect(made.stdout.toString()).toBe("");
	expect(made.stderr.toString()).toContain('expected "bundle" or "validators", got "secrets"');
});
