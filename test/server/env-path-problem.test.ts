import { describe, expect, test } from "bun:test";
import { ProtocolError } from "../../src/protocol/codes.ts";
import { EnvConnectionError, EnvFileError, pathProblem } from "../../src/server/env/environment.ts";

const problem = (error: unknown, env = "box", path = "~/work") => {
	const p = pathProblem(error, env, path);
	expect(p).toBeInstanceOf(ProtocolError);
	return { code: p.code, message: p.message };
};

describe("a failure to reach a path on an environment, as the person reads it", () => {
	test("a machine that cannot be reached is unavailable, in ssh's words", () => {
		expect(problem(new EnvConnectionError("ssh: connect to host box port 22: Connection refused"))).toEqual({
			code: "unavailable",
			message: "ssh: connect to host box port 22: Connection refused",
		});
	});

	test("a file problem is the request's, named with its path and machine (this device's without)", () => {
		expect(problem(new EnvFileError("ENOENT", "gone"))).toEqual({
			code: "bad_args",
			message: "No such file or directory: ~/work on box",
		});
		expect(problem(Object.assign(new Error("denied"), { code: "EACCES" }), "local", "/root")).toEqual({
			code: "bad_args",
			message: "Permission denied: /root",
		});
	});

	test("anything else names the machine, cut to 500 characters", () => {
		const p = problem(new Error(`odd ${"x".repeat(1000)}`));
		expect(p.code).toBe("unavailable");
		expect(p.message.startsWith("box: odd x")).toBe(true);
		expect(p.message).toHaveLength("box: ".length + 500);
	});
});
