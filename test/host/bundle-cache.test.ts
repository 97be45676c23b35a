import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BundleCache, cachedFetch } from "../../src/host/bundle-cache.ts";
import { sourcesStamp } from "../../src/server/build-id.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
	const dir = mkdtempSync(join(tmpdir(), "p2-bundle-cache-"));
	dirs.push(dir);
	return dir;
};
const bundle = (source: string) => ({ source, hash: new Bun.CryptoHasher("sha256").update(source).digest("hex") });

describe("the launcher's kept bundles", () => {
	test("the first start fetches and keeps it; the next asks with its hash and uses it on a 304; a new one replaces it", async () => {
		const cache = new BundleCache(temp());
		let served = bundle("ui v1");
		const asked: (string | undefined)[] = [];
		const server = async (running?: string) => {
			asked.push(running);
			return running === served.hash ? undefined : served;
		};
		expect(cache.read("https://p2.example")).toBeUndefined();
		expect(await cachedFetch(cache, "https://p2.example", server)()).toEqual(served);
		expect(cache.read("https://p2.example")).toEqual(served);
		// Next start: the kept one, confirmed by the server.
		expect(await cachedFetch(cache, "https://p2.example", server)()).toEqual(served);
		expect(asked).toEqual([undefined, served.hash]);
		served = bundle("ui v2");
		expect(await cachedFetch(cache, "https://p2.example", server)()).toEqual(served);
		expect(cache.read("https://p2.example")).toEqual(served);
		// Other servers keep their own; later checks in a run go straight to the server.
		expect(cache.read("https://other.example")).toBeUndefined();
		expect(await cachedFetch(cache, "https://p2.example", server)(served.hash)).toBeUndefined();
	});

	test("a bundle the launcher already read is offered instead of the kept one, and used only if the server still serves it", async () => {
		const cache = new BundleCache(temp());
		const embedded = bundle("ui in the executable");
		const served = bundle("ui v3");
		const asked: (string | undefined)[] = [];
		const server = (current: typeof served) => async (running?: string) => {
			asked.push(running);
			return running === current.hash ? undefined : current;
		};
		expect(await cachedFetch(cache, "device:/data", server(embedded), embedded)()).toBe(embedded);
		expect(await cachedFetch(cache, "device:/data", server(served), embedded)()).toEqual(served);
		expect(asked).toEqual([embedded.hash, embedded.hash]);
		// The server's own is kept for next time.
		expect(cache.read("device:/data")).toEqual(served);
	});

	test("kept privately (0600 in a 0700 directory)", async () => {
		const dir = temp();
		await cachedFetch(new BundleCache(dir), "device:/data", async () => bundle("ui"))();
		const files = readdirSync(join(dir, "bundles"));
		expect(files.length).toBe(1);
		expect(statSync(join(dir, "bundles", files[0]!)).mode & 0o777).toBe(0o600);
		expect(statSync(join(dir, "bundles")).mode & 0o777).toBe(0o700);
	});
});

describe("the development bundle's inputs", () => {
	test("any change to a source file or the lockfile changes the stamp the cached bundle is kept under", () => {
		const root = temp();
		mkdirSync(join(root, "src", "guest"), { recursive: true });
		// Each write a second after the one before, as edits come (files are stamped by size and time, to the
		// millisecond: two writes of one size within a millisecond are not told apart).
		let second = 0;
		const write = (path: string, text: string) => {
			writeFileSync(path, text);
			second++;
			utimesSync(path, 1_700_000_000 + second, 1_700_000_000 + second);
		};
		write(join(root, "src", "guest", "a.ts"), "export const a = 1;\n");
		write(join(root, "package-lock.json"), "{}");
		const first = sourcesStamp(root);
		expect(sourcesStamp(root)).toBe(first);
		write(join(root, "src", "guest", "a.ts"), "export const a = 2;\n");
		const edited = sourcesStamp(root);
		expect(edited).not.toBe(first);
		write(join(root, "src", "guest", "b.ts"), "");
		const added = sourcesStamp(root);
		expect(added).not.toBe(edited);
		write(join(root, "package-lock.json"), '{"v":2}');
		expect(sourcesStamp(root)).not.toBe(added);
	});
});
