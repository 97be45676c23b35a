import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLaunchArgs } from "../../src/host/args.ts";
import { fetchGuestBundle } from "../../src/host/bundle-fetch.ts";
import { runLauncher } from "../../src/host/launcher.ts";
import { DEVICE_TOKEN_HEADER } from "../../src/protocol/server-info.ts";
import { type P2Server, startServer } from "../../src/server/server.ts";
import { FakeTerminal } from "../support/fake-terminal.ts";

const sha256 = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
const source = "globalThis.version = 1;";
let server: P2Server;
let dataDir: string;

beforeAll(async () => {
	dataDir = mkdtempSync(join(tmpdir(), "p2-bundle-"));
	server = await startServer({
		dataDir,
		plugins: [],
		bundle: async () => ({ source, hash: sha256(source) }),
	});
});
afterAll(async () => {
	await server.stop();
	rmSync(dataDir, { recursive: true, force: true });
});

const device = () => ({ [DEVICE_TOKEN_HEADER]: server.deviceToken });

describe("bundle fetch", () => {
	test("the hash is the server's; asking with the running hash answers unchanged", async () => {
		const first = await fetchGuestBundle(server.origin, device());
		expect(first).toEqual({ source, hash: sha256(source) });
		expect(await fetchGuestBundle(server.origin, device(), first!.hash)).toBeUndefined();
		expect(await fetchGuestBundle(server.origin, device(), "0".repeat(64))).toEqual(first);
	});

	test("a refused bundle is an error that names the origin", async () => {
		await expect(fetchGuestBundle(server.origin, { [DEVICE_TOKEN_HEADER]: "wrong" })).rejects.toThrow(
			`${server.origin}: the UI bundle was refused (401`,
		);
	});
});

describe("signed out", () => {
	test("a remote that refuses the owner's cookie ends the run as signed out, confirmed by the launcher", async () => {
		const bundle = `globalThis.p2Guest = { start(host) { host.post({ kind: "output", data: "UP" }); host.post({ kind: "ready" }); } };`;
		const terminal = new FakeTerminal();
		const result = await runLauncher({
			args: parseLaunchArgs([]),
			target: { kind: "owner", origin: () => server.origin, credentials: () => ({ cookie: "p2_owner=revoked" }) },
			env: { TERM: "xterm-256color" },
			fetchBundle: async () => ({ source: bundle, hash: "b" }),
			terminal: terminal as never,
		});
		expect(result.signedOut).toBe(true);
		// The terminal was put back: mouse modes off, the cursor shown (no UI ever took the alternate screen).
		expect(terminal.output).not.toContain("\x1b[?1049h");
		expect(terminal.output).toContain("\x1b[?25h");
		expect(terminal.output).toContain("\x1b[?1000l");
	}, 20000);
});
