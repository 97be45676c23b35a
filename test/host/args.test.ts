import { describe, expect, test } from "bun:test";
import { parseLaunchArgs } from "../../src/host/args.ts";

describe("the command line", () => {
	test("--fork takes a session id or prefix and excludes the other ways to choose a session", () => {
		expect(parseLaunchArgs(["--fork", "ab12"]).fork).toBe("ab12");
		expect(() => parseLaunchArgs(["--fork", "../x"])).toThrow('--fork: "../x" is not a session id');
		expect(() => parseLaunchArgs(["--fork"])).toThrow("--fork needs a value");
		for (const other of [["--continue"], ["--resume"], ["--session", "aaaaaaaa-0000-4000-8000-000000000001"]]) {
			expect(() => parseLaunchArgs(["--fork", "ab12", ...other])).toThrow(
				"--fork excludes --session, --continue and --resume",
			);
		}
	});

	test("pi's flags that make no sense here are refused with the reason; the first words are a draft", () => {
		expect(() => parseLaunchArgs(["--print", "hi"])).toThrow("--print is not supported by p2: p2 has no print mode.");
		expect(parseLaunchArgs(["fix", "the", "bug"]).draft).toBe("fix the bug");
		expect(parseLaunchArgs(["https://p2.example.com/", "hi"])).toMatchObject({
			url: "https://p2.example.com",
			draft: "hi",
		});
	});
});
