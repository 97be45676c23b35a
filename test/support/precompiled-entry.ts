/**
 * A guest bundle entry for test/host/precompiled-sandbox.test.ts: inside the real sandbox, it runs the hostile
 * corpora through the bundle's precompiled validators and the object client, calls a schema directly (which
 * must throw: the guest carries no arktype), and logs what it saw, one line each.
 */
import "../../src/guest/platform-prelude.ts";
import { precompiledValidators } from "p2:precompiled-validators";
import { ChatState, chatContract } from "../../src/plugins/chat/contract.ts";
import type { GuestEntry } from "../../src/protocol/channel.ts";
import { errorText } from "../../src/protocol/errors.ts";
import { ObjectClient } from "../../src/protocol/object-client.ts";
import { precompiledChecks } from "../../src/protocol/schema-checks.ts";
import { corpusFor, VALID, verdictDigest } from "./validator-corpus.ts";

const entry: GuestEntry = {
	start(host) {
		const log = (text: string) => host.post({ kind: "log", level: "info", text });
		for (const key of Object.keys(VALID)) {
			const validate = precompiledValidators[key];
			log(`digest ${key} ${validate ? verdictDigest(corpusFor(key).map((v) => validate(v))) : "missing"}`);
		}
		const client = new ObjectClient({
			checks: precompiledChecks(precompiledValidators),
			onProtocolError: (message) => log(`problem ${message}`),
		});
		client.attach(() => {});
		const ref = client.open(chatContract, { session: "0a0a0a0a-0000-4000-8000-000000000001", conversation: "main" });
		const [idle] = VALID["chat@1/state/owner"] as [Record<string, unknown>];
		const snapshot = (state: unknown) => JSON.stringify({ t: "snapshot", h: ref.h, version: 1, role: "owner", state });
		client.receive(snapshot({ ...idle, queue: "no" }));
		client.receive(snapshot(idle));
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path: ["older"], value: 1 }] }));
		client.receive(JSON.stringify({ t: "patch", h: ref.h, ops: [{ op: "set", path: ["older"], value: true }] }));
		log(`state ${ref.status.kind} older=${String((ref.state as { older?: unknown } | undefined)?.older)}`);
		try {
			ChatState(idle);
			log("schema called: passed");
		} catch (error) {
			log(`schema called: ${errorText(error)}`);
		}
		log("done");
		host.post({ kind: "ready" });
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;
