import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDeviceServer } from "./device-server.ts";
import { type FakeOpenAI, startFakeOpenAI, writeFakeModelsJson } from "./fake-openai.ts";

/** `src/main.ts`, as the end-to-end tests start it. */
export const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

export interface FakeHome {
	/** A fresh HOME with a private data directory whose models.json points at the fake provider. */
	readonly home: string;
	readonly data: string;
	readonly fake: FakeOpenAI;
	/** The environment p2 runs with: nothing of the person's own but PATH. */
	readonly env: Record<string, string>;
	remove(): Promise<void>;
}

export async function fakeHome(prefix: string): Promise<FakeHome> {
	const home = mkdtempSync(join(tmpdir(), prefix));
	const data = join(home, "data");
	mkdirSync(data, { mode: 0o700 });
	const fake = await startFakeOpenAI();
	writeFakeModelsJson(data, fake.baseUrl);
	return {
		home,
		data,
		fake,
		env: { PATH: process.env.PATH ?? "", HOME: home, P2_DATA_DIR: data, TERM: "xterm-256color" },
		async remove() {
			await stopDeviceServer(data);
			await fake.stop();
			rmSync(home, { recursive: true, force: true });
		},
	};
}

/**
 * One fake home for the tests of a file: made before the first, removed after the last. Call at the top of
 * the file; its fields are there once the tests run.
 */
export function fakeHomeForFile(prefix: string): Omit<FakeHome, "remove"> {
	let home: FakeHome | undefined;
	beforeAll(async () => {
		home = await fakeHome(prefix);
	});
	afterAll(() => home?.remove());
	const current = () => {
		if (!home) throw new Error("the fake home is made before the tests run");
		return home;
	};
	return {
		get home() {
			return current().home;
		},
		get data() {
			return current().data;
		},
		get fake() {
			return current().fake;
		},
		get env() {
			return current().env;
		},
	};
}
