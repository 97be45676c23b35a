import { Catalog } from "../../src/server/store/catalog.ts";
import { SessionStores } from "../../src/server/store/session-stores.ts";

/** A conversation of `n` entries written straight into the store, as a long-lived session would have. */
export function seedConversation(data: string, cwd: string, n: number): string {
	const catalog = Catalog.open(data);
	const session = catalog.create({ cwd, title: "long session" });
	catalog.close();
	const stores = new SessionStores(data);
	const store = stores.get(session.id);
	const author = { id: "device", name: "this device", role: "deviceOwner" };
	const batch = [];
	for (let i = 0; i < n; i++) {
		if (i % 2 === 0) batch.push({ kind: "user", data: { kind: "user", text: `question ${i}` }, author, at: i });
		else {
			const message = {
				role: "assistant",
				content: [{ type: "text", text: `Answer ${i}: some **markdown** with \`code\` and a list:\n\n- a\n- b` }],
				api: "openai-completions",
				provider: "fake",
				model: "fake-model",
				usage: {
					input: 10,
					output: 10,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 20,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: "stop",
				timestamp: i,
			};
			batch.push({ kind: "assistant", data: { kind: "assistant", message }, author: null, at: i });
		}
	}
	store.appendMany("main", batch);
	stores.closeAll();
	return session.id;
}
