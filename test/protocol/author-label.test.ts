import { describe, expect, test } from "bun:test";
import { AGENT_AUTHOR_ID, authorLabel } from "../../src/protocol/author-label.ts";

describe("who wrote something, as everyone sees it", () => {
	test("a guest's own name marked unverified, the agent, the owner; someone when it cannot be read", () => {
		expect(authorLabel({ id: "guest:1", name: "Ana", role: "full" })).toBe("Ana (unverified)");
		expect(authorLabel({ id: "guest:2", name: "Vic\x1b[31m", role: "view" })).toBe("Vic [31m (unverified)");
		expect(authorLabel({ id: AGENT_AUTHOR_ID, name: "agent", role: "owner" })).toBe("agent");
		expect(authorLabel({ id: "device", name: "me", role: "deviceOwner" })).toBe("owner");
		expect(authorLabel({ id: "owner:1", name: "me", role: "owner" })).toBe("owner");
		expect(authorLabel(null)).toBe("someone");
	});
});
