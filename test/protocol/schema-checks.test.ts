import { describe, expect, test } from "bun:test";
import { parseSnapshot, ReloadSnapshot, SNAPSHOT_KEYS } from "../../src/guest/snapshot.ts";
import { ChatState, chatContract, PageResult } from "../../src/plugins/chat/contract.ts";
import { parseServerFrame, ServerFrame } from "../../src/protocol/frames.ts";
import { ObjectClient } from "../../src/protocol/object-client.ts";
import {
	type PrecompiledValidator,
	precompiledChecks,
	type SchemaChecks,
	SERVER_FRAME_KEY,
	SNAPSHOT_KEY,
} from "../../src/protocol/schema-checks.ts";
import { VALID } from "../support/validator-corpus.ts";

const INPUT = { session: "0a0a0a0a-0000-4000-8000-000000000001", conversation: "main" };
const [IDLE, BUSY] = VALID["chat@1/state/owner"] as [Record<string, unknown>, Record<string, unknown>];

/** Checks as the guest has them: a table of validators by key, and a record of the keys asked for. */
function guestChecks(): { checks: SchemaChecks; asked: string[] } {
	const table: Record<string, PrecompiledValidator> = {
		"chat@1/state/owner": (d) => ChatState.allows(d),
		"chat@1/result/page": (d) => PageResult.allows(d),
		[SERVER_FRAME_KEY]: (d) => ServerFrame.allows(d),
		[SNAPSHOT_KEY]: (d) => ReloadSnapshot.allows(d),
	};
	const inner = precompiledChecks(table);
	const asked: string[] = [];
	return {
		asked,
		checks: {
			check(key, _schema, data) {
				asked.push(key);
				// The schema itself is never called: the guest's schemas are inert stand-ins.
				return inner.check(key, () => expect.unreachable("the schema was called"), data);
			},
		},
	};
}

function openChat(checks: SchemaChecks | undefined) {
	const problems: string[] = [];
	const sent: Record<string, unknown>[] = [];
	const client = new ObjectClient({ checks, onProtocolError: (m) => problems.push(m) });
	client.attach((text) => sent.push(JSON.parse(text)));
	const ref = client.open(chatContract, INPUT);
	const snapshot = (state: unknown, role = "owner") =>
		client.receive(JSON.stringify({ t: "snapshot", h: ref.h, version: 1, role, state }));
	return { client, ref, problems, sent, snapshot };
}

describe("the object client with the guest's precompiled checks", () => {
	test("a snapshot, a patch and a result pass by their keys; a refusal names the schema that refused", async () => {
		const { checks, asked } = guestChecks();
		const { client, ref, problems, sent, snapshot } = openChat(checks);
		snapshot({ ...IDLE, older: "no" });
		expect(problems).toEqual(["chat: snapshot refused: did not match chat@1/state/owner"]);
		expect(ref.status.kind).toBe("connecting");
		snapshot(BUSY);
		expect(ref.status).toEqual({ kind: "live", role: "owner" });
		expect(ref.state).toEqual(BUSY as never);

		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path: ["older"], value: 3 }] }));
		expect(problems.at(-1)).toBe("chat: patched state refused: did not match chat@1/state/owner");
		expect(ref.state).toEqual(BUSY as never);
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path: ["older"], value: false }] }));
		expect((ref.state as { older: boolean }).older).toBe(false);

		const page = ref.call("page", { beforeSeq: 5, limit: 10 });
		const call = sent.at(-1) as { id: number };
		client.receive(JSON.stringify({ t: "result", h: ref.h, id: call.id, ok: true, value: { entries: [], more: 1 } }));
		await expect(page).rejects.toThrow("the server's answer did not match the contract");
		expect(problems.at(-1)).toBe("result refused: did not match chat@1/result/page");
		const again = ref.call("page", { beforeSeq: 5, limit: 10 });
		const second = sent.at(-1) as { id: number };
		client.receive(
			JSON.stringify({ t: "result", h: ref.h, id: second.id, ok: true, value: { entries: [], more: false } }),
		);
		expect(await again).toEqual({ entries: [], more: false });

		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [] }));
		expect(problems.at(-1)).toBe("refused a server frame: did not match frame/server");
		expect(new Set(asked)).toEqual(new Set([SERVER_FRAME_KEY, "chat@1/state/owner", "chat@1/result/page"]));
	});

	test("a schema without a precompiled validator is refused, not passed", () => {
		const { checks } = guestChecks();
		const { ref, problems, snapshot } = openChat(checks);
		snapshot(IDLE, "view");
		expect(problems).toEqual(["chat: snapshot refused: no precompiled validator for chat@1/state/view"]);
		expect(ref.state).toBeUndefined();
	});

	test("by default (the server, tests) arktype checks, and says where a value is wrong", () => {
		const { problems, snapshot } = openChat(undefined);
		snapshot({ ...IDLE, older: "no" });
		expect(problems).toEqual(['chat: snapshot refused: older must be boolean (was "no")']);
	});
});

describe("the reload snapshot and the server frames with precompiled checks", () => {
	test("the snapshot keeps its declared keys only, whichever checks read it", () => {
		const text = JSON.stringify({ version: 2, draft: "d", later: { x: 1 }, anchor: { key: "k", offset: 1, z: 2 } });
		// Undeclared keys inside the anchor stay, as arktype left them.
		const expected = { version: 2, draft: "d", anchor: { key: "k", offset: 1, z: 2 } };
		expect(parseSnapshot(text) as unknown).toEqual(expected);
		expect(parseSnapshot(text, guestChecks().checks) as unknown).toEqual(expected);
		expect(parseSnapshot(JSON.stringify({ version: 3, draft: "" }), guestChecks().checks)).toBeUndefined();
		expect(parseSnapshot("{", guestChecks().checks)).toBeUndefined();
	});

	test("the snapshot's declared keys are the schema's", () => {
		expect([...SNAPSHOT_KEYS].sort() as string[]).toEqual(ReloadSnapshot.props.map((p) => p.key as string).sort());
	});

	test("a server frame refused by a precompiled check says which schema", () => {
		const result = parseServerFrame(JSON.stringify({ t: "hello" }), undefined, guestChecks().checks);
		expect(result).toEqual({ ok: false, code: "bad_frame", message: "did not match frame/server" });
		const good = parseServerFrame(
			JSON.stringify({ t: "closed", h: 1, code: "forbidden", message: "" }),
			undefined,
			guestChecks().checks,
		);
		expect(good.ok).toBe(true);
	});
});
