import { expect, test } from "bun:test";
import { formatLocation, normalizePath, parseLocation } from "../../../src/plugins/sessions/tui/location.ts";

const session = { env: "gpu", path: "/data/project" };
const envs = ["gpu", "lab"];

test("no prefix: the session's environment for /cd, this device for /new", () => {
	expect(parseLocation("/srv", { envs, session })).toEqual({ env: "gpu", path: "/srv" });
	expect(parseLocation("/srv", { envs })).toEqual({ env: "local", path: "/srv" });
});

test("relative paths join the session's directory on its environment, else the home directory", () => {
	expect(parseLocation("../other/./x", { envs, session })).toEqual({ env: "gpu", path: "/data/other/x" });
	expect(parseLocation("lab:rel", { envs, session })).toEqual({ env: "lab", path: "~/rel" });
	expect(parseLocation("rel", { envs })).toEqual({ env: "local", path: "~/rel" });
	expect(parseLocation("..\\win\\style", { envs, session })).toEqual({ env: "gpu", path: "/data/win/style" });
});

test("prefixes: configured names, local:, one letter is a drive, anything else is refused", () => {
	expect(parseLocation("lab:/x", { envs })).toEqual({ env: "lab", path: "/x" });
	expect(parseLocation("lab:", { envs })).toEqual({ env: "lab", path: "~" });
	expect(parseLocation("local:~/src", { envs, session })).toEqual({ env: "local", path: "~/src" });
	expect(parseLocation("local:/x", { envs: ["local"] })).toEqual({ env: "local", path: "/x" });
	expect(parseLocation("C:\\work", { envs })).toEqual({ env: "local", path: "C:/work" });
	expect(parseLocation("nope:/x", { envs })).toEqual({ error: "Unknown environment nope" });
});

test("normalizing never climbs above / or ~", () => {
	expect(normalizePath("/a/../../b")).toBe("/b");
	expect(normalizePath("~/../x")).toBe("~/x");
	expect(normalizePath("~/a/")).toBe("~/a");
});

test("the footer writes env:path, and this device's paths bare", () => {
	expect(formatLocation("gpu", "/data")).toBe("gpu:/data");
	expect(formatLocation("local", "/home/me")).toBe("/home/me");
});
