import { expect, test } from "bun:test";
import { errorText } from "../../src/protocol/errors.ts";

test("errorText: an Error's message; anything else thrown, as text", () => {
	expect(errorText(new TypeError("bad input"))).toBe("bad input");
	expect(errorText("plain words")).toBe("plain words");
	expect(errorText(undefined)).toBe("undefined");
	expect(errorText({ code: 7 })).toBe("[object Object]");
});
