import { describe, expect, test } from "bun:test";
import { piDiff } from "../../../src/plugins/workspace/pi-diff.ts";
import { workspacePlugin } from "../../../src/plugins/workspace/tui.ts";
import { testGuest } from "../../support/guest-context.ts";

const SESSION = "0a0a0a0a-0000-4000-8000-000000000000";

describe("the workspace's commands by role", () => {
	test("a view-only guest never opens the workspace object: /files, /changes and /grep say why", async () => {
		const { ctx, opened, notices } = testGuest({
			identity: { role: "view", id: "g1", name: "Guest", session: SESSION },
		});
		ctx.session.open(SESSION);
		const dispose = workspacePlugin.register(ctx);
		for (const [id, args] of [
			["p2.workspace.files", ""],
			["p2.workspace.changes", ""],
			["p2.workspace.grep", "needle"],
		] as const) {
			await ctx.commands.invoke(ctx.commands.get(id)!, args).catch((error) => ctx.ui.fail(error));
		}
		expect(opened).toEqual([]);
		expect(notices.map((n) => n.text)).toEqual(
			Array(3).fill("Only the owner and guests with full access can use the session's files."),
		);
		dispose();
	});

	test("the commands name who may use them: participants only", () => {
		const { ctx } = testGuest({ identity: { role: "owner", id: "o1", name: "Owner", session: null } });
		const dispose = workspacePlugin.register(ctx);
		for (const id of ["p2.workspace.files", "p2.workspace.changes", "p2.workspace.grep"]) {
			expect(ctx.commands.get(id)?.requires).toEqual({ role: "participant", to: "use the session's files" });
		}
		dispose();
	});
});

describe("git's hunks as pi's numbered diff", () => {
	test("removed lines keep the old numbers, added the new ones, context the old; hunks are separated", () => {
		const unified = [
			"@@ -1,3 +1,3 @@",
			" a",
			"-b",
			"+B",
			" c",
			"@@ -10,2 +10,3 @@",
			" j",
			"+k2",
			" l",
			"\\ No newline at end of file",
		].join("\n");
		expect(piDiff(unified).split("\n")).toEqual([
			"  1 a",
			"- 2 b",
			"+ 2 B",
			"  3 c",
			"    ...",
			" 10 j",
			"+11 k2",
			" 11 l",
		]);
	});
});
