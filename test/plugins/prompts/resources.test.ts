import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PromptResources } from "../../../src/plugins/prompts/server.ts";
import type { ServerContext } from "../../../src/server/plugin.ts";
import { waitUntil } from "../../support/wait.ts";
import { type ResourceMachine, resourceMachine } from "./fixture.ts";

const m: ResourceMachine = resourceMachine();
afterAll(() => rmSync(m.root, { recursive: true, force: true }));

/** What PromptResources reads of the server: the person's HOME and the data directory. */
const ctx = { env: { HOME: m.home }, dataDir: m.dataDir } as unknown as ServerContext;

describe("a place's templates, held", () => {
	test("a template written just after the place was first read is still seen, and later ones too", async () => {
		const all = new PromptResources(ctx);
		try {
			const { watched, release } = all.hold({ cwd: m.cwd });
			const names = () => watched.live.state.templates.map((t) => t.name);
			expect(names()).toContain("review");
			// Written before the directories are watched (the watch starts just after the first read).
			writeFileSync(join(m.cwd, ".pi/prompts/early.md"), "Early\n");
			await waitUntil(() => names().includes("early"), "the template written before the watch");
			writeFileSync(join(m.cwd, ".pi/prompts/later.md"), "Later\n");
			await waitUntil(() => names().includes("later"), "the template written once watched");
			release();
		} finally {
			all.close();
		}
	});
});
