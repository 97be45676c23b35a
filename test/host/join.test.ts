import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLaunchArgs } from "../../src/host/args.ts";
import { LauncherConfig } from "../../src/host/config.ts";
import { parseJoinLink, redeemJoinLink } from "../../src/host/join.ts";
import { signInRemote } from "../../src/host/remote.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import { sharingContract } from "../../src/plugins/sharing/contract.ts";
import { guestName } from "../../src/protocol/share-link.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";

const TOKEN = "a".repeat(43);

describe("share links on the command line", () => {
	test("a link is https://host/join/<43 characters> and nothing else; the origin must match a named server", () => {
		expect(parseJoinLink(`https://p2.example.com/join/${TOKEN}`)).toEqual({
			origin: "https://p2.example.com",
			token: TOKEN,
		});
		expect(parseJoinLink(`http://127.0.0.1:4000/join/${TOKEN}`).origin).toBe("http://127.0.0.1:4000");
		for (const bad of [
			`http://p2.example.com/join/${TOKEN}`,
			`https://p2.example.com/join/${TOKEN}?x=1`,
			`https://p2.example.com/join/${TOKEN}#frag`,
			`https://user:pw@p2.example.com/join/${TOKEN}`,
			`https://p2.example.com/join/${TOKEN.slice(1)}`,
			`https://p2.example.com/owner#${TOKEN}`,
			"not a url",
		]) {
			expect(() => parseJoinLink(bad)).toThrow();
		}
		expect(() => parseJoinLink(`https://a.example/join/${TOKEN}`, "https://b.example")).toThrow(
			"That share link is for https://a.example, not https://b.example.",
		);
		expect(() => parseLaunchArgs(["--join", "x", "--owner-link", "y"])).toThrow("exclude each other");
	});

	test("a name is one line without control characters, at most 40 characters", () => {
		expect(guestName("  Ana\n\tLovelace\u0000 ")).toBe("Ana Lovelace");
		expect(guestName("\u202e\u0007")).toBe("");
		expect([...guestName("é".repeat(60))].length).toBe(40);
	});
});

describe("joining a real server", () => {
	let ts: TestServer;
	let link = "";
	const dirs: string[] = [];
	const configDir = () => {
		const dir = mkdtempSync(join(tmpdir(), "p2-join-cfg-"));
		dirs.push(dir);
		return dir;
	};

	beforeAll(async () => {
		ts = await startTestServer();
		const cwd = realpathSync(mkdtempSync(join(tmpdir(), "p2-join-cwd-")));
		dirs.push(cwd);
		const owner = await ts.connect();
		const sessions = await owner.open(sessionsContract, {});
		const session = (await sessions.call("create", { cwd })).id;
		const sharing = await owner.open(sharingContract, { session });
		link = `${ts.server.origin}${(await sharing.call("link", { access: "view" })).path}`;
	});
	afterAll(async () => {
		await ts.stop();
		for (const d of dirs) rmSync(d, { recursive: true, force: true });
	});

	test("the guest cookie is stored per origin in a private file; the next start uses it without asking", async () => {
		const dir = configDir();
		const config = new LauncherConfig(dir);
		const joined = await redeemJoinLink(config, link, "Ana");
		expect(joined.role).toBe("view");
		const stored = config.get(ts.server.origin).guest;
		expect(stored?.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(statSync(join(dir, "config.json")).mode & 0o777).toBe(0o600);
		expect(readFileSync(join(dir, "config.json"), "utf8")).not.toContain(link.split("/join/")[1]!);

		const asked: string[] = [];
		const target = await signInRemote(new LauncherConfig(dir), ts.server.origin, {
			ask: async (q) => {
				asked.push(q);
				return "";
			},
			say: () => {},
		});
		expect(target?.kind).toBe("guest");
		expect(asked).toEqual([]);
		expect(target?.credentials()).toEqual({ cookie: `p2_guest=${stored?.cookie}` });
	});

	test("an ended share says so, forgets the cookie and asks for a new link, then the name", async () => {
		const dir = configDir();
		const config = new LauncherConfig(dir);
		config.update(ts.server.origin, (c) => ({ ...c, guest: { cookie: "b".repeat(43), session: "x" } }));
		const said: string[] = [];
		const answers = [link, "", "  Bo  "];
		const asked: string[] = [];
		const target = await signInRemote(config, ts.server.origin, {
			ask: async (q) => {
				asked.push(q);
				return answers.shift() ?? null;
			},
			say: (line) => said.push(line),
		});
		expect(said).toEqual(["This share has ended."]);
		expect(asked[0]).toContain("paste an owner link or a share link");
		// An empty name is asked again.
		expect(asked.slice(1)).toEqual([
			"Your name in this session (others see it; it is not verified): ",
			"Your name in this session (others see it; it is not verified): ",
		]);
		expect(target?.kind).toBe("guest");
		expect(config.get(ts.server.origin).guest?.cookie).not.toBe("b".repeat(43));
	});

	test("a link for another server is refused before anything is sent", async () => {
		const config = new LauncherConfig(configDir());
		await expect(
			redeemJoinLink(config, `https://elsewhere.example/join/${TOKEN}`, "x", ts.server.origin),
		).rejects.toThrow("is for https://elsewhere.example");
	});
});
