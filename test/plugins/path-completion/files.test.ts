import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { pathCompletionContract } from "../../../src/plugins/path-completion/contract.ts";
import { walkFiles } from "../../../src/plugins/path-completion/file-index.ts";
import { completePath, findFiles, type Reach } from "../../../src/plugins/path-completion/server.ts";
import { sessionsContract } from "../../../src/plugins/sessions/contract.ts";
import { LocalEnvironment } from "../../../src/server/env/local.ts";
import { joinAsGuest, signInOwner } from "../../support/guests.ts";
import { connectClient, startTestServer, type TestClient, type TestServer } from "../../support/p2-server.ts";

const local = new LocalEnvironment();
/** Tab on this machine, as the server lists it (through the session's Environment). */
const complete = (cwd: string, prefix: string, reach: Reach) => completePath(local, cwd, prefix, reach);

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
	test("the typed directory's entries that start with the typed name (any case), folders first, hidden ones too, as pi", async () => {
		expect((await complete(dir, "", "server")).items.map((i) => i.path)).toEqual([
			".git/",
			"docs/",
			"node_modules/",
			"src/",
			".env",
			"README.md",
		]);
		expect((await complete(dir, "src/", "server")).items.map((i) => i.path)).toEqual(["src/deep/", "src/main.ts"]);
		expect((await complete(dir, "src/M", "server")).items).toEqual([{ path: "src/main.ts", dir: false }]);
		expect((await complete(dir, ".e", "server")).items.map((i) => i.path)).toEqual([".env"]);
		expect((await complete(dir, `${dir}/do`, "server")).items.map((i) => i.path)).toEqual([`${dir}/docs/`]);
		expect((await complete(dir, "nothing/here", "server")).items).toEqual([]);
	});
});

describe("finding files (@)", () => {
	test("a fuzzy query over the relative paths, hidden files too, never into node_modules or .git", async () => {
		const index = await walkFiles(new LocalEnvironment(), dir);
		const found = findFiles(index, "helper").items.map((i) => i.path);
		expect(found[0]).toBe("src/deep/helper.ts");
		expect(findFiles(index, "index").items.map((i) => i.path)).not.toContain("node_modules/x/index.js");
		const all = findFiles(index, "").items.map((i) => i.path);
		expect(all).toContain(".env");
		expect(all.some((p) => p.startsWith(".git"))).toBe(false);
	});
});

describe("completion by role: owners reach the server as pi does, guests only the session's directory", () => {
	let ts: TestServer;
	let session = "";
	let cwd = "";
	let outside = "";
	const clients: TestClient[] = [];

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-reach-")));
		outside = realpathSync(mkdtempSync(join(tmpdir(), "p2-outside-")));
		mkdirSync(join(cwd, "src"));
		writeFileSync(join(cwd, "src", "main.ts"), "");
		writeFileSync(join(outside, "secret.txt"), "");
		mkdirSync(join(outside, "private"));
		symlinkSync(outside, join(cwd, "out"));
		symlinkSync(join(cwd, "src"), join(cwd, "alias"));
		ts = await startTestServer();
		const device = await ts.connect();
		clients.push(device);
		const sessions = await device.open(sessionsContract, {});
		session = (await sessions.call("create", { cwd })).id;
	});
	afterAll(async () => {
		for (const c of clients.splice(0)) c.close();
		await ts.stop();
		rmSync(cwd, { recursive: true, force: true });
		rmSync(outside, { recursive: true, force: true });
	});

	async function connectWith(cookie: string): Promise<TestClient> {
		const client = await connectClient(ts.server, { cookie });
		clients.push(client);
		return client;
	}
	const guest = async (access: "full" | "view") =>
		connectWith(await joinAsGuest(ts.server, clients[0]!, session, access));
	const signedInOwner = async () => connectWith(await signInOwner(ts.server));
	async function completer(client: TestClient) {
		const files = await client.open(pathCompletionContract, { session });
		return async (prefix: string, mode: "path" | "fuzzy" = "path") =>
			(await files.call("complete", { prefix, mode })).items.map((i) => i.path);
	}
	// pi lists hidden entries too.
	const visibleHome = (hidden: boolean) =>
		readdirSync(homedir()).filter((name) => !hidden || name.startsWith(".")).length > 0;

	test("the device owner and a signed-in owner keep ~/, absolute paths and symlinks out", async () => {
		for (const client of [clients[0]!, await signedInOwner()]) {
			const complete = await completer(client);
			expect(await complete(`${outside}/sec`)).toEqual([`${outside}/secret.txt`]);
			expect(await complete("/etc/")).not.toEqual([]);
			expect(await complete("out/")).toEqual(["out/private/", "out/secret.txt"]);
			expect(await complete("../")).not.toEqual([]);
			expect((await complete("~/")).length > 0).toBe(visibleHome(false));
			expect((await complete("~/.")).length > 0).toBe(visibleHome(true));
		}
	});

	test("a full guest completes inside the session's directory and nothing outside it", async () => {
		const complete = await completer(await guest("full"));
		expect(await complete("")).toEqual(["src/", "alias", "out"]);
		expect(await complete("src/m")).toEqual(["src/main.ts"]);
		expect(await complete("src/../s")).toEqual(["src/../src/"]);
		// A symlink that stays inside may be followed; one that leads out lists nothing.
		expect(await complete("alias/")).toEqual(["alias/main.ts"]);
		for (const prefix of [
			"/etc/hostn",
			"/etc/",
			`${outside}/sec`,
			`${cwd}/src/`,
			"~/",
			"~/.",
			"../",
			"out/",
			"out/sec",
		]) {
			expect({ prefix, items: await complete(prefix) }).toEqual({ prefix, items: [] });
		}
		// The `@` search lists a symlink and never walks through it.
		expect(await complete("secret", "fuzzy")).toEqual([]);
		expect(await complete("out", "fuzzy")).toContain("out");
	});

	test("a view guest has no editor and gets no completion at all", async () => {
		const viewer = await guest("view");
		await expect(viewer.open(pathCompletionContract, { session })).rejects.toMatchObject({ code: "forbidden" });
	});
});
