/**
 * A guest bundle for bench/terminal.ts: inside the real sandbox, the terminal panel's first opening (the
 * emulator's text evaluated) and what it then costs to read a shell's output and draw the panel's lines.
 */
import "../../src/guest/platform-prelude.ts";
import { Emulator, emulatorClass } from "../../src/plugins/terminal/tui-emulator.ts";
import { screenLines } from "../../src/plugins/terminal/tui-screen.ts";
import type { GuestEntry } from "../../src/protocol/channel.ts";

const OUTPUT = Array.from({ length: 2000 }, (_, i) => `\x1b[32mline\x1b[0m ${i} ${"text ".repeat(14)}\r\n`).join("");

const entry: GuestEntry = {
	start(host) {
		const t0 = performance.now();
		const Terminal = emulatorClass();
		const evaluated = performance.now() - t0;
		const t1 = performance.now();
		let drawn = 0;
		const emulator = new Emulator(Terminal, () => {
			const term = emulator.terminal;
			if (!term) return;
			const parsed = performance.now() - t1;
			const t2 = performance.now();
			const rounds = 200;
			for (let i = 0; i < rounds; i++) drawn += screenLines(term, 100, { cursor: true }).length;
			const draw = (performance.now() - t2) / rounds;
			host.post({
				kind: "log",
				level: "info",
				text: JSON.stringify({
					firstOpenEvaluateMs: evaluated,
					parse2000LinesMs: parsed,
					outputChars: OUTPUT.length,
					drawPanel100x30Ms: draw,
					drawn,
				}),
			});
		});
		emulator.follow({
			status: "running",
			shell: 1,
			cols: 100,
			rows: 30,
			output: OUTPUT,
			dropped: 0,
			exitCode: null,
			error: null,
		});
	},
};
(globalThis as { p2Guest?: GuestEntry }).p2Guest = entry;
