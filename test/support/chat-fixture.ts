import { afterEach } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatContract } from "../../src/plugins/chat/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { startTestServer, type TestClient, type TestServer } from "./p2-server.ts";

let counter = 0;
/** A fresh request id for `send` (the server runs a retried id once). */
export function requestId(): string {
	return `req-${Date.now().toString(36)}-${(counter++).toString(36)}`;
}

/**
 * One test server per test, and session directories made for it; all of it is removed after each test.
 * Call at the top of a test file.
 */
export function chatFixture(options: Parameters<typeof startTestServer>[0] = {}) {
	let server: TestServer | undefined;
	const dirs: string[] = [];
	afterEach(async () => {
		await server?.stop();
		server = undefined;
		for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
	});
	const workDir = (prefix = "p2-cwd-"): string => {
		const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
		dirs.push(dir);
		return dir;
	};
	const start = async (): Promise<TestServer> => {
		server = await startTestServer(options);
		return server;
	};
	const session = async (client: TestClient, cwd = workDir()): Promise<{ id: string; cwd: string }> => {
		const sessions = await client.open(sessionsContract, {});
		return { id: (await sessions.call("create", { cwd })).id, cwd };
	};
	/** A server, the device owner connected, one session and its main conversation open. */
	const openChat = async () => {
		const started = await start();
		const owner = await started.connect();
		const { id, cwd } = await session(owner);
		const chat = await owner.open(chatContract, { session: id, conversation: "main" });
		return { server: started, owner, session: id, cwd, chat };
	};
	const fixture = { start, workDir, session, openChat };
	return fixture;
}
