import { describe, expect, test } from "bun:test";
import { originUrl } from "../../src/host/actions/open-url.ts";
import { checkWorkerMessage } from "../../src/protocol/worker-message-check.ts";

const S = "0a0a0a0a-0000-4000-8000-000000000000";
const OTHER = "1b1b1b1b-0000-4000-8000-000000000000";
const ID = "2c2c2c2c-0000-4000-8000-000000000000";
const ORIGIN = "http://127.0.0.1:4100";

describe("openUrl {kind: origin}: a fixed allowlist of the server's own pages", () => {
	test("an artifact or a sent file of the session on screen, rebuilt on the launcher's origin", () => {
		expect(originUrl(ORIGIN, `/artifact?session=${S}&name=plan.md&version=2`, S)).toBe(
			`${ORIGIN}/artifact?session=${S}&name=plan.md&version=2`,
		);
		expect(originUrl(ORIGIN, `/artifact?session=${S}&name=my%20plan.md&version=1`, S)).toBe(
			`${ORIGIN}/artifact?session=${S}&name=my+plan.md&version=1`,
		);
		expect(originUrl(ORIGIN, `/download?session=${S}&id=${ID}`, S)).toBe(`${ORIGIN}/download?session=${S}&id=${ID}`);
	});

	test("anything else is refused: other sessions, other paths, other hosts, extra parameters, bad names", () => {
		for (const path of [
			`/artifact?session=${OTHER}&name=plan.md&version=2`,
			`/artifact?session=${S}&name=../x&version=2`,
			`/artifact?session=${S}&name=plan.md&version=0`,
			`/artifact?session=${S}&name=plan.md&version=2&download=1`,
			`/artifact?session=${S}&name=plan.md`,
			`/owner/logout?session=${S}`,
			`//evil.example/artifact?session=${S}&name=a&version=1`,
			`https://evil.example/artifact?session=${S}&name=a&version=1`,
			`/artifact?session=${S}&name=a&version=1#x`,
			`/download?session=${S}&id=not-an-id`,
			`/artifact?session=${S}&name=a b&version=1`,
			`/s/${S}`,
		]) {
			expect({ path, url: originUrl(ORIGIN, path, S) }).toEqual({ path, url: undefined });
		}
		expect(originUrl(ORIGIN, `/artifact?session=${S}&name=plan.md&version=2`, undefined)).toBeUndefined();
	});

	test("the worker's messages: both new kinds pass the check with their own fields only; a bad version is refused", () => {
		expect(
			checkWorkerMessage({
				kind: "request",
				id: "r1",
				action: "openUrl",
				payload: { kind: "origin", path: "/artifact", url: "https://evil.example" },
			}),
		).toEqual({
			ok: true,
			message: { kind: "request", id: "r1", action: "openUrl", payload: { kind: "origin", path: "/artifact" } },
		});
		const artifact = { kind: "artifact" as const, session: S, name: "plan.md", version: 3, size: 10 };
		expect(
			checkWorkerMessage({ kind: "request", id: "r2", action: "download", payload: { ...artifact, id: ID } }),
		).toEqual({
			ok: true,
			message: { kind: "request", id: "r2", action: "download", payload: artifact },
		});
		expect(
			checkWorkerMessage({ kind: "request", id: "r3", action: "download", payload: { ...artifact, version: 1.5 } }),
		).toEqual({ ok: false, error: "version must be a whole number from 1" });
	});
});
