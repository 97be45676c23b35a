/**
 * Issue 39: a hostile server's UI and the launcher's images, in the real sandbox. The worker may only send a
 * bounded PNG and say where it stands: a bomb, a header that lies, something that is not a PNG or is over the
 * limits is refused (the UI is told), and graphics the worker writes itself never reach the terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { guestBundle } from "../support/guest-bundle.ts";
import { runWithBundle } from "../support/launcher-run.ts";
import { startTestServer, type TestServer } from "../support/p2-server.ts";
import { bombPng, png } from "../support/png.ts";

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

/** "EVILPAYLOAD" in base64: what the worker tries to draw on its own. */
const EVIL = Buffer.from("EVILPAYLOAD").toString("base64");

describe("images against the launcher", () => {
	test("only the launcher's own PNG is drawn, where the worker said; bombs, liars and non-PNGs are refused; the worker's graphics are filtered", async () => {
		const good = png(30, 15);
		const jpeg = await new Bun.Image(good).jpeg().bytes();
		const images = {
			good: good.toString("base64"),
			bomb: bombPng(20000).toString("base64"),
			liar: png(30, 15, { width: 300, height: 15 }).toString("base64"),
			jpeg: Buffer.from(jpeg).toString("base64"),
			zeros: "A".repeat(2 * 1024 * 1024),
		};
		const run = runWithBundle(
			server,
			guestBundle(`
				const images = ${JSON.stringify(images)};
				listen((m) => { if (m.kind === "imageRefused") out("REFUSED:" + m.id + ":" + m.reason + ";"); });
				// A full redraw clears the screen, then says where the image stands.
				on("2", () => {
					out("\x1b[2JCLEARED;");
					host.post({ kind: "imagePlacements", placements: [{ id: "good", row: 4, col: 4, columns: 10, rows: 5 }] });
				});
				on("1", () => {
					out("\\x1b_Ga=T,f=100;${EVIL}\\x1b\\\\\\x1b]1337;File=inline=1:${EVIL}\\x07\\x1bPqEVILSIXEL\\x1b\\\\TEXT;");
					for (const [id, png] of Object.entries(images)) host.post({ kind: "image", id, png });
					try {
						host.post({ kind: "image", id: "huge", png: "A".repeat(3 * 1024 * 1024) });
						out("HUGE:posted;");
					} catch (e) {
						out("HUGE:blocked;");
					}
					host.post({ kind: "imagePlacements", placements: [
						{ id: "good", row: 2, col: 4, columns: 10, rows: 5 },
						{ id: "bomb", row: 8, col: 4, columns: 10, rows: 5 },
						{ id: "liar", row: 8, col: 20, columns: 10, rows: 5 },
						{ id: "jpeg", row: 14, col: 4, columns: 10, rows: 5 },
						{ id: "zeros", row: 14, col: 20, columns: 10, rows: 5 },
						{ id: "good", row: 20, col: 4, columns: 10, rows: 5 },
					] });
				});
			`),
			{ env: { TERM_PROGRAM: "kitty" } },
		);
		const { terminal } = run;
		try {
			await terminal.until("READY;");
			terminal.onInput?.("1");
			for (const id of ["bomb", "liar", "jpeg", "zeros"]) await terminal.until(`REFUSED:${id}:`);
			await terminal.until("\x1b[3;5H\x1b_Ga=p,");
			const out = terminal.output;
			expect(out).toContain("REFUSED:bomb:the image is 20000×20000 pixels, over 4096×4096;");
			expect(out).toContain("REFUSED:liar:the image does not decode");
			expect(out).toContain("REFUSED:jpeg:the image is not a PNG;");
			expect(out).toContain("REFUSED:zeros:the image is not a PNG;");
			expect(out).toContain("HUGE:blocked;");
			// The worker's own graphics never reach the terminal; its text does.
			expect(out).toContain("TEXT;");
			expect(out).not.toContain(EVIL);
			expect(out).not.toContain("EVILSIXEL");
			expect(out).not.toContain("\x1b]1337");
			// One image sent to the terminal: the launcher's own encoding of the good one, at its own id.
			const sent = [...out.matchAll(/\x1b_G(a=t[^;]*|m=[01]);([A-Za-z0-9+/=]*)\x1b\\/g)];
			expect(sent.filter((m) => m[1]!.startsWith("a=t"))).toHaveLength(1);
			const bytes = Buffer.from(sent.map((m) => m[2]).join(""), "base64");
			expect(bytes.equals(good)).toBe(false);
			expect(await new Bun.Image(bytes).metadata()).toEqual({ width: 30, height: 15, format: "png" });
			// Placed once, where the worker said; the placement off the screen (rows 20 to 24 of 24) is not drawn.
			expect(out.match(/a=p,/g)).toHaveLength(1);
			expect(out).not.toContain("\x1b[21;5H");
			// After the screen was cleared, the image is sent again with its placement (kitty dropped its copy).
			terminal.onInput?.("2");
			await terminal.until("\x1b[5;5H\x1b_Ga=p,");
			const again = terminal.output.slice(terminal.output.indexOf("CLEARED;"));
			expect(again).toContain("\x1b_Ga=t,f=100");
			expect(again).not.toContain("a=d,d=a");
		} finally {
			const result = await run.done();
			expect(result.problems.filter((p) => p.startsWith("image ")).length).toBe(4);
		}
	});
});
