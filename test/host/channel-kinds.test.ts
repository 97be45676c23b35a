import { expect, test } from "bun:test";
import { LauncherMessage, WorkerMessage } from "../../src/protocol/channel.ts";
import { LAUNCHER_MESSAGE_KINDS, WORKER_MESSAGE_KINDS } from "../../src/protocol/channel-kinds.ts";

/** The `kind` of every branch of a message union, read from the schema itself. */
function kinds(schema: { json: unknown }): string[] {
	const branches = schema.json as { required: { key: string; value: { unit?: string } }[] }[];
	return [...new Set(branches.map((b) => b.required.find((r) => r.key === "kind")!.value.unit!))].sort();
}

test("the bootstrap's plain lists of kinds are the schemas' kinds", () => {
	expect(kinds(WorkerMessage)).toEqual([...WORKER_MESSAGE_KINDS].sort());
	expect(kinds(LauncherMessage)).toEqual([...LAUNCHER_MESSAGE_KINDS].sort());
});
