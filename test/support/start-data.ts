import type { StartData } from "../../src/protocol/channel.ts";

/** What a launcher tells a guest at start, for tests and benchmarks: an 80×24 terminal, no env, no flags. */
export const TEST_START: StartData = {
	origin: "http://127.0.0.1:1",
	columns: 80,
	rows: 24,
	capabilities: {
		kittyProtocol: false,
		modifyOtherKeys: false,
		trueColor: false,
		platform: "linux",
		windowsKeys: false,
	},
	env: {},
	mouse: "off",
	args: { verbose: false, draft: "", continue: false, resume: false },
	reason: "start",
};

/** The same for a benchmark's screen: 120×40 in true color. */
export const BENCH_START: StartData = {
	...TEST_START,
	columns: 120,
	rows: 40,
	capabilities: { ...TEST_START.capabilities, trueColor: true },
};
