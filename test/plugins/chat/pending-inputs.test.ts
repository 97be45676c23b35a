import { describe, expect, test } from "bun:test";
import type { UserMessage } from "@earendil-works/pi-ai";
import { PendingInputs } from "../../../src/plugins/chat/pending-inputs.ts";
import type { QueuedRow } from "../../../src/server/store/session-store.ts";

const row = (id: string, author: string): QueuedRow =>
	({
		id,
		mode: "steer",
		text: `text ${id}`,
		author: { id: author, name: author, role: "full" },
		at: 1,
		requestId: id,
	}) as QueuedRow;
const message = (id: string): UserMessage => ({ role: "user", content: id, timestamp: 1 });

describe("pending inputs", () => {
	test("in the order sent; the agent's delivered message finds its input; waiting ones are not ready", () => {
		const inputs = new PendingInputs();
		const a = message("a");
		inputs.add(row("a", "ana"), a, false);
		inputs.add(row("b", "bo"), message("b"), true);
		inputs.add(row("c", "ana"), message("c"), false);
		expect(inputs.all().map((q) => q.row.id)).toEqual(["a", "b", "c"]);
		expect(inputs.ready().map((q) => q.row.id)).toEqual(["a", "c"]);
		expect(inputs.byAuthor("ana").map((q) => q.row.id)).toEqual(["a", "c"]);
		expect(inputs.shown()[1]).toMatchObject({ id: "b", waiting: true, author: { name: "bo" } });
		expect(inputs.takeDelivered(a)?.row.id).toBe("a");
		expect(inputs.takeDelivered(a)).toBeUndefined();
		expect(inputs.takeDelivered(message("a"))).toBeUndefined();
		expect(inputs.size).toBe(2);
		inputs.clear();
		expect(inputs.all()).toEqual([]);
	});
});
