import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHomeForFile, MAIN } from "../support/fake-home.ts";
import { runInPty } from "../support/pty.ts";

const h = fakeHomeForFile("p2-owner-ops-e2e-");

describe("running the server from the terminal, end to end", () => {
	test("a provider refusing its key is a notice once; /notices, /logs, /providers and /devices show and act", async () => {
		// No automatic retries: the refusal ends the run at once.
		writeFileSync(join(h.data, "settings.json"), JSON.stringify({ retry: { enabled: false } }), { mode: 0o600 });
		const run = runInPty([process.execPath, MAIN], { env: h.env, cwd: h.home, cols: 140, rows: 45 });
		try {
			await run.waitFor((s) => s.includes("fake-model"), "the chat");
			h.fake.enqueue({ status: 401, error: "Unauthorized key" });
			run.type("hello\r");
			await run.waitFor(
				(s) =>
					s.includes("fake refused the server's credentials") && s.replace(/\s+/g, " ").includes("(/notices, /retry)"),
				"the notice's status line",
			);

			run.type("/notices");
			await run.waitFor((s) => s.includes("→ notices"), "/notices in the command list");
			run.type("\r");
			await run.waitFor((s) => /^ Notices\s*$/m.test(s) && s.includes("ctrl+d dismiss · ctrl+r retry"), "the list");
			run.type("\x12");
			await run.waitFor((s) => s.includes("fake's credentials were read again"), "/retry's answer");
			run.type("\x04");
			await run.waitFor((s) => s.includes("Nothing needs your attention."), "the notice dismissed");
			run.type("\x1b");
			await run.waitFor((s) => !/^ Notices\s*$/m.test(s), "the list closed");

			run.type("/logs");
			await run.waitFor((s) => s.includes("→ logs"), "/logs in the command list");
			run.type("\r");
			await run.waitFor((s) => s.includes("Logs · all") && s.includes("run ended: error"), "the log, all sources");
			run.type("\t");
			await run.waitFor((s) => s.includes("Logs · server"), "the next source");
			run.type("\t");
			await run.waitFor((s) => /Logs · session:[0-9a-f-]{36}/.test(s) && s.includes("run ended: error"), "a session");
			run.type("/");
			for (const c of "no such line") run.type(c);
			run.type("\r");
			await run.waitFor((s) => s.includes("No line matches."), "a search that finds nothing");
			run.type("\x1b");
			await run.waitFor((s) => s.includes("run ended: error") && !s.includes("No line matches."), "search cleared");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("Logs · session"), "the log closed");

			run.type("/providers");
			await run.waitFor((s) => s.includes("→ providers"), "/providers in the command list");
			run.type("\r");
			await run.waitFor(
				(s) => /^ Providers\s*$/m.test(s) && /fake · models\.json · failing: refused its credentials +1 model/.test(s),
				"the providers with the failing one",
			);
			expect(run.screen().join("\n")).not.toContain("test-key");
			run.type("\x1b");
			await run.waitFor((s) => !/^ Providers\s*$/m.test(s), "the providers closed");

			run.type("/devices");
			await run.waitFor((s) => s.includes("→ devices"), "/devices in the command list");
			run.type("\r");
			await run.waitFor(
				(s) =>
					s.includes("this device is the server's own") && s.includes("No device is signed in with an owner link."),
				"the devices",
			);
			// The new device's link is shown only on the launcher's own screen, when it asks before copying.
			run.type("n");
			await run.waitFor((s) => /\/owner#[A-Za-z0-9_-]{43}/.test(s), "the launcher's copy question with the link");
			run.type("n");
			await run.waitFor((s) => s.includes("No device is signed in") && !/\/owner#/.test(s), "back on /devices");
			run.type("\x1b");
			await run.waitFor((s) => !s.includes("No device is signed in"), "/devices closed");

			// This device's server runs from source: development mode. Nothing changed since its UI was built.
			run.type("/dev-reload");
			await run.waitFor((s) => s.includes("→ dev-reload"), "/dev-reload in the command list");
			run.type("\r");
			await run.waitFor((s) => s.includes("No change to the UI since it was built."), "the rebuild's answer");

			// A port listening on the server's machine, held by this test's process.
			const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
			try {
				run.type("/ports");
				await run.waitFor((s) => s.includes("→ ports"), "/ports in the command list");
				run.type("\r");
				await run.waitFor((s) => s.includes("Ports listening · on the server's machine"), "the ports");
				// Other programs listen too: typing the port filters the list down to it.
				run.type(String(listener.port));
				await run.waitFor(
					(s) => s.includes(`> ${listener.port}`) && s.includes(`→ ${listener.port} on 127.0.0.1`),
					"the port in the list",
				);
				expect(run.screen().join("\n")).toContain(`(pid ${process.pid})`);
				run.type("\x1b");
				await run.waitFor((s) => !s.includes("Ports listening"), "the ports closed");
			} finally {
				listener.stop(true);
			}

			// A web server on the server's machine, opened on this computer through the launcher.
			const web = Bun.serve({
				hostname: "127.0.0.1",
				port: 0,
				fetch: () => new Response("hello from the server's machine"),
			});
			try {
				run.type("/ports");
				await run.waitFor((s) => s.includes("→ ports"), "/ports in the command list");
				run.type("\r");
				await run.waitFor((s) => s.includes("Ports listening · on the server's machine"), "the ports");
				run.type(String(web.port));
				await run.waitFor((s) => s.includes(`→ ${web.port} on 127.0.0.1`), "the web server's port");
				run.type("\r");
				await run.waitFor((s) => s.includes("Open a port of the session's machine on this computer"), "the question");
				// The question names the server the port comes from.
				expect(run.screen().join(" ").replace(/\s+/g, " ")).toMatch(/the server at http:\/\/127\.0\.0\.1:\d+/);
				const address = /To: (127\.0\.0\.1:\d+) on this computer/.exec(run.screen().join("\n"))?.[1];
				expect(address).toBeDefined();
				// The launcher takes a yes only once no key has arrived for a moment: it says when.
				await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question ready for an answer");
				run.type("y");
				await run.waitFor((s) => s.includes(`is open on this computer at http://${address}`), "opened");
				expect(await (await fetch(`http://${address}/`)).text()).toBe("hello from the server's machine");

				// Listed as open here; Enter now offers the browser (through the launcher's question), Ctrl+X closes it.
				await run.waitFor(
					(s) => s.includes(`→ ${web.port} on 127.0.0.1 · open here at http://${address}`),
					"the port listed as open here",
				);
				run.type("\r");
				await run.waitFor(
					(s) => s.includes("Open this address in your browser") && s.includes(`http://${address}/`),
					"the browser question naming the local address",
				);
				run.type("n");
				await run.waitFor((s) => s.includes("ctrl+x close here"), "back on /ports");
				run.type("\x18");
				await run.waitFor((s) => s.includes(`Port ${web.port} is no longer open on this computer.`), "closed");
				await expect(fetch(`http://${address}/`)).rejects.toThrow();

				// Opened again, then closed when p2 exits.
				run.type("\r");
				await run.waitFor((s) => s.includes("Enter or y: confirm"), "the question again");
				run.type("y");
				const again = /at http:\/\/(127\.0\.0\.1:\d+) until p2 exits/;
				await run.waitFor((s) => again.test(s.replace(/\s+/g, " ")), "opened again");
				const second = again.exec(run.screen().join(" ").replace(/\s+/g, " "))?.[1];
				expect(await (await fetch(`http://${second}/`)).text()).toBe("hello from the server's machine");
				run.kill();
				await run.exited;
				await expect(fetch(`http://${second}/`)).rejects.toThrow();
			} finally {
				web.stop(true);
			}
		} finally {
			run.kill();
			await run.exited;
		}
	}, 60_000);
});
