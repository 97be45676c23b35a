import { describe, expect, test } from "bun:test";
import { TerminalOutput, type TerminalSink } from "../../src/host/terminal-output.ts";

/** A terminal that takes each piece only when the test says so. */
function slowTerminal() {
	const pieces: string[] = [];
	const waiting: (() => void)[] = [];
	const sink: TerminalSink = (data, done) => {
		pieces.push(data);
		waiting.push(() => done());
	};
	return {
		sink,
		pieces,
		/** The terminal takes the piece in flight; false when none was. */
		take(): boolean {
			const done = waiting.shift();
			done?.();
			return done !== undefined;
		},
		takeAll(): void {
			while (this.take()) {}
		},
	};
}

describe("TerminalOutput", () => {
	test("writes in order, one piece in flight at a time, joining what waited", () => {
		const terminal = slowTerminal();
		const output = new TerminalOutput(terminal.sink);
		output.write("a");
		output.write("b");
		output.write("c");
		expect(terminal.pieces).toEqual(["a"]);
		terminal.take();
		expect(terminal.pieces).toEqual(["a", "bc"]);
		terminal.takeAll();
		expect(terminal.pieces.join("")).toBe("abc");
		expect(output.backlog).toBe(0);
	});

	test("a long write goes out in pieces of the bound, never cutting a surrogate pair", () => {
		const terminal = slowTerminal();
		const output = new TerminalOutput(terminal.sink, { pieceChars: 4 });
		const text = "abc😀def😀g";
		output.write(text);
		terminal.takeAll();
		expect(terminal.pieces.join("")).toBe(text);
		for (const piece of terminal.pieces) {
			expect(piece.length).toBeLessThanOrEqual(4);
			expect(piece).toBe(piece.toWellFormed());
		}
	});

	test("the UI's output is refused while the terminal is behind; the launcher's own is always taken", () => {
		const terminal = slowTerminal();
		const output = new TerminalOutput(terminal.sink, { maxBacklog: 10, pieceChars: 4 });
		expect(output.offer("1234")).toBe(true);
		expect(output.offer("12345678901")).toBe(true);
		expect(output.congested).toBe(true);
		expect(output.offer("dropped")).toBe(false);
		output.write("OWN");
		terminal.takeAll();
		const written = terminal.pieces.join("");
		expect(written).toBe("123412345678901OWN");
		expect(output.congested).toBe(false);
		expect(output.offer("again")).toBe(true);
	});

	test("idle resolves once nothing waits and nothing is in flight; discard keeps the piece in flight", async () => {
		const terminal = slowTerminal();
		const output = new TerminalOutput(terminal.sink, { pieceChars: 2 });
		await output.idle();
		output.write("aabbcc");
		let idle = false;
		void output.idle().then(() => {
			idle = true;
		});
		output.discard();
		output.write("XY");
		terminal.take();
		await Promise.resolve();
		expect(idle).toBe(false);
		terminal.takeAll();
		await Promise.resolve();
		expect(idle).toBe(true);
		expect(terminal.pieces).toEqual(["aa", "XY"]);
	});

	test("a terminal that is gone takes nothing more, and waiting for it ends", async () => {
		let calls = 0;
		const output = new TerminalOutput((_data, done) => {
			calls++;
			done(new Error("EIO"));
		});
		output.write("a");
		output.write("b");
		await output.idle();
		expect(calls).toBe(1);
	});
});
