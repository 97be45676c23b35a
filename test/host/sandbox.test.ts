import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sandbox, type SandboxLimits, type WorkerEnd } from "../../src/host/sandbox.ts";
import type { StartData, WorkerMessage } from "../../src/protocol/channel.ts";
import { WORKER_FLOOD_LIMITS } from "../../src/protocol/channel-kinds.ts";
import { bindGlobals } from "../../src/server/bundle.ts";
import { TEST_START } from "../support/start-data.ts";
import { waitUntil } from "../support/wait.ts";

const START: StartData = { ...TEST_START, env: { TERM: "xterm-256color" } };

interface Run {
	messages: WorkerMessage[];
	problems: string[];
	end: { reason: WorkerEnd; detail: string } | undefined;
	logs(): string[];
	/** The guest's own logs: without the bootstrap's start-up timeline. */
	said(): string[];
	errors(): string[];
	sandbox: Sandbox;
}

/** How long a bundle may take to say done, fail or end before the run fails. */
const RUN_BOUND_MS = 20_000;

/** Runs a bundle until it logs "done", sends an error or ends; then ends the worker. `observe` sees each message. */
async function run(
	bundle: string,
	limits: Partial<SandboxLimits> = {},
	observe: (m: WorkerMessage) => void = () => {},
): Promise<Run> {
	const r = { messages: [], problems: [], end: undefined } as unknown as Run;
	let settle!: () => void;
	const settled = new Promise<void>((resolve) => {
		settle = resolve;
	});
	r.sandbox = new Sandbox({
		bundle: { source: bundle, hash: "test" },
		start: START,
		limits,
		onMessage(m) {
			r.messages.push(m);
			observe(m);
			if ((m.kind === "log" && m.text === "done") || m.kind === "error") settle();
		},
		onProblem: (t) => r.problems.push(t),
		onEnd(reason, detail) {
			r.end = { reason, detail };
			settle();
		},
	});
	r.logs = () => r.messages.flatMap((m) => (m.kind === "log" ? [m.text] : []));
	r.said = () => r.logs().filter((line) => !line.startsWith("timeline "));
	r.errors = () => r.messages.flatMap((m) => (m.kind === "error" ? [m.message] : []));
	let timer: ReturnType<typeof setTimeout> | undefined;
	const late = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new Error(`the bundle neither said done nor ended; logs: ${r.logs()}`)),
			RUN_BOUND_MS,
		);
	});
	try {
		await Promise.race([settled, late]);
	} finally {
		clearTimeout(timer);
		if (!r.sandbox.ended) r.sandbox.terminate();
	}
	return r;
}

/** A bundle that tries each attack and reports "<name>: blocked …" or "<name>: ESCAPED …". */
function attempts(body: string): string {
	return `globalThis.p2Guest = { start(host) {
		const report = (t) => host.post({ kind: "log", level: "warn", text: String(t).slice(0, 3000) });
		const attempt = (name, fn) => {
			let result;
			try { result = fn(); } catch (e) { return report(name + ": blocked " + e); }
			report(name + ": ESCAPED " + (typeof result === "function" ? "a function" : String(result)));
		};
		const attemptAsync = async (name, fn) => {
			try { const result = await fn(); report(name + ": ESCAPED " + String(result)); } catch (e) { report(name + ": blocked " + e); }
		};
		(async () => { ${body}; report("done"); })().catch((e) => report("harness: " + e));
	} };`;
}

function expectAllBlocked(r: Run, count: number) {
	const lines = r.logs().filter((l) => l !== "done");
	expect(lines.filter((l) => l.includes("ESCAPED"))).toEqual([]);
	expect(lines.filter((l) => l.includes(": blocked")).length).toBe(count);
	expect(r.logs()).toContain("done");
}

let dir: string;
let hits = 0;
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "p2-hostile-"));
	server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		fetch(req, srv) {
			hits++;
			if (srv.upgrade(req, { data: undefined })) return undefined;
			return new Response("secret");
		},
		websocket: { message() {} },
	});
});
afterAll(() => server.stop(true));

describe("hostile bundles", () => {
	test("an uncaught failure at start is reported, not a crash", async () => {
		const r = await run(`globalThis.p2Guest = { start() { Bun.file("/etc/passwd"); } };`);
		expect(r.errors().join("\n")).toContain("the guest bundle failed to start");
		expect(r.errors().join("\n")).toContain("Bun");
	});

	test("reading a file", async () => {
		const r = await run(
			attempts(`
			attempt("Bun.file", () => Bun.file("/etc/passwd"));
			attempt("require", () => require("fs").readFileSync("/etc/passwd", "utf8"));
			attempt("process.binding", () => process.binding("fs"));
			attempt("globalThis.Bun", () => { if (!globalThis.Bun) throw new Error("no Bun"); return globalThis.Bun; });
		`),
		);
		expectAllBlocked(r, 4);
	});

	test("writing a file", async () => {
		const marker = join(dir, "written");
		const r = await run(
			attempts(`
			attempt("Bun.write", () => Bun.write(${JSON.stringify(marker)}, "x"));
			attempt("require fs", () => require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x"));
		`),
		);
		expectAllBlocked(r, 2);
		expect(existsSync(marker)).toBe(false);
	});

	test("spawning a process", async () => {
		const marker = join(dir, "spawned");
		const r = await run(
			attempts(`
			// A spawn that got through is awaited: its touch is done before "done".
			await attemptAsync("Bun.spawn", () => Bun.spawn(["touch", ${JSON.stringify(marker)}]).exited);
			attempt("child_process", () => require("child_process").execSync("touch ${marker}"));
			attempt("process.dlopen", () => process.dlopen({}, "/tmp/x.so"));
		`),
		);
		expectAllBlocked(r, 3);
		expect(existsSync(marker)).toBe(false);
	});

	test("fetch, a WebSocket and other network objects", async () => {
		hits = 0;
		const url = `http://127.0.0.1:${server.port}/`;
		const r = await run(
			attempts(`
			await attemptAsync("fetch", () => fetch(${JSON.stringify(url)}).then((res) => res.text()));
			// A connection that got through is awaited until it opens or fails: its request has reached the server.
			const settles = (c) => new Promise((settle) => { c.onopen = () => settle("open"); c.onerror = () => settle("failed"); });
			await attemptAsync("WebSocket", () => settles(new WebSocket(${JSON.stringify(url.replace("http", "ws"))})));
			attempt("XMLHttpRequest", () => new XMLHttpRequest());
			await attemptAsync("EventSource", () => settles(new EventSource(${JSON.stringify(url)})));
			attempt("Worker", () => new Worker("data:text/javascript,1"));
			attempt("navigator.sendBeacon", () => navigator.sendBeacon(${JSON.stringify(url)}, "x"));
		`),
		);
		expectAllBlocked(r, 6);
		expect(hits).toBe(0);
	});

	test("dynamic import() in the bundle is refused before anything runs", async () => {
		const r = await run(`globalThis.p2Guest = { start(host) { import("node:fs"); } };`);
		expect(r.errors().join("\n")).toContain("failed to load");
		expect(r.logs()).toEqual([]);
	});

	test("import() through Function, eval and a compartment", async () => {
		const r = await run(
			attempts(`
			await attemptAsync("Function import", () => Function("return imp" + "ort('node:fs')")());
			await attemptAsync("eval import", () => (0, eval)("imp" + "ort('node:fs')"));
			await attemptAsync("new Compartment", () => {
				const seen = new Compartment({ globals: {} }).evaluate("[typeof Bun, typeof process, typeof fetch].join()");
				if (seen === "undefined,undefined,undefined") throw new Error("a nested compartment is as empty");
				return seen;
			});
			await attemptAsync("ShadowRealm", () => new ShadowRealm().evaluate("typeof Bun"));
		`),
		);
		expectAllBlocked(r, 4);
	});

	test("reading the environment", async () => {
		const r = await run(
			attempts(`
			attempt("process.env", () => process.env.HOME);
			attempt("globalThis.process", () => globalThis.process.env.HOME);
			attempt("Bun.env", () => Bun.env.HOME);
			attempt("start data", () => { const env = host.start.env; if (Object.keys(env).some((k) => k !== "TERM")) return JSON.stringify(env); throw new Error("only TERM"); });
		`),
		);
		expectAllBlocked(r, 4);
	});

	// The server's own bundles run with the common globals bound as parameters (`bindGlobals`): the same chains fail.
	for (const [shape, wrap] of [
		["", (source: string) => source],
		[", with the globals bound as the server builds a bundle", bindGlobals],
	] as const) {
		test(`reaching Bun through constructor chains and error objects${shape}`, async () => {
			const get = `{ const x = (SRC); if (typeof x === "undefined") throw new Error("undefined"); return typeof x === "object" || typeof x === "function" ? "got " + Object.keys(x).slice(0, 3) : x; }`;
			const chain = (name: string, expr: string) =>
				`attempt(${JSON.stringify(name)}, () => ${get.replace("SRC", expr)});`;
			const r = await run(
				wrap(
					attempts(`
			${chain("host.post.constructor", `host.post.constructor("return Bun")()`)}
			${chain("host.onMessage.constructor", `host.onMessage.constructor("return globalThis.Bun")()`)}
			${chain("arrow constructor", `(() => 0).constructor("return Bun")()`)}
			${chain("async function constructor", `Object.getPrototypeOf(async function () {}).constructor("return Bun")`)}
			${chain("generator constructor", `Object.getPrototypeOf(function* () {}).constructor("return Bun")().next().value`)}
			${chain("start data constructor", `host.start.constructor.constructor("return Bun")()`)}
			${chain("host error object", `(() => { try { host.post(undefined); } catch (e) { return e.constructor.constructor("return Bun")(); } })()`)}
			${chain("TypeError from null", `(() => { try { null.x; } catch (e) { return e.constructor.constructor("return Bun")(); } })()`)}
			${chain("timer callback this", `(() => { let t; setTimeout(function () { t = this; }, 0); return t && t.Bun; })()`)}
			${chain("console.log constructor", `console.log.constructor("return Bun")()`)}
			${chain("performance.now constructor", `performance.now.constructor("return Bun")()`)}
			${chain("Intl.Segmenter constructor", `Intl.Segmenter.constructor("return Bun")()`)}
			${chain("prepareStackTrace", `(() => { Error.prepareStackTrace = (e, s) => s[0].getThis(); return new Error().stack.Bun; })()`)}
			${chain("caller", `(function f() { return f.caller && f.caller.constructor("return Bun")(); })()`)}
			${chain("Promise constructor", `Promise.resolve().constructor.constructor("return Bun")()`)}
			${chain("globalThis in sloppy Function", `Function("return this")().Bun`)}
			${chain("the worker's own console: its stream", `console._stdout`)}
			${chain("the worker's own console: its class", `console.Console`)}
			attempt("a console beyond the launcher's log", () => {
				const keys = Object.keys(console).sort().join();
				if (keys === "debug,error,info,log,warn") throw new Error("the launcher's log only");
				return keys;
			});
		`),
				),
			);
			expectAllBlocked(r, 19);
		});
	}

	// That they are the worker's own is not visible from inside (lockdown shows them as built in); installing is
	// tested in test/host/regexp-methods.test.ts.
	test("RegExp's match, replace and split in the worker: frozen by lockdown, named and answering as the built-ins", async () => {
		const r = await run(`globalThis.p2Guest = { start(host) {
			const report = (t) => host.post({ kind: "log", level: "info", text: String(t) });
			const p = RegExp.prototype;
			const methods = [p[Symbol.match], p[Symbol.replace], p[Symbol.split]];
			report("frozen " + methods.every((m) => Object.isFrozen(m)));
			report("names " + methods.map((m) => m.name).join());
			report("split " + JSON.stringify("a-b--c".split(/(-)/)));
			report("replace " + "2024-12-04".replace(/(?<y>\\d+)-(\\d+)-(\\d+)/, "$3.$2.$<y>"));
			report("match " + JSON.stringify("a1b22".match(/\\d+/g)));
			const rx = /a/g;
			let execs = 0;
			// Its own exec is called (the built-in's path): one match, then none.
			Object.defineProperty(rx, "exec", { value: () => (execs++ === 0 ? { 0: "own", length: 1, index: 0 } : null) });
			report("own exec " + "xa".replace(rx, "[$&]"));
			try { p[Symbol.split] = () => "mine"; } catch (e) { report("replaced: " + e.constructor.name); }
			report("done");
		} };`);
		expect(r.errors()).toEqual([]);
		expect(r.said()).toEqual([
			"frozen true",
			"names [Symbol.match],[Symbol.replace],[Symbol.split]",
			'split ["a","-","b","-","","-","c"]',
			"replace 04.12.2024",
			'match ["1","22"]',
			"own exec [own]",
			"replaced: TypeError",
			"done",
		]);
	});

	test("a bundle with its globals bound sees the compartment's own: the launcher's timers, Math with random, its Date", async () => {
		const r = await run(
			bindGlobals(`globalThis.p2Guest = { start(host) {
				const report = (t) => host.post({ kind: "log", level: "info", text: String(t) });
				report("random " + (typeof Math.random() === "number" && Math.random() < 1));
				report("date " + (typeof Date.now() === "number"));
				report("segmenter " + typeof new Intl.Segmenter("en", { granularity: "grapheme" }).segment);
				report("harden " + typeof harden);
				report("Bun " + typeof Bun);
				setTimeout((word) => { report("timer " + word); report("done"); }, 1, "fired");
			} };`),
		);
		expect(r.errors()).toEqual([]);
		expect(r.said()).toEqual([
			"random true",
			"date true",
			"segmenter function",
			"harden function",
			"Bun undefined",
			"timer fired",
			"done",
		]);
	});

	test("tampering with what the bridge passes in", async () => {
		const r = await run(
			attempts(`
			attempt("replace host.post", () => { "use strict"; host.post = () => {}; return "replaced"; });
			attempt("host prototype", () => { "use strict"; Object.getPrototypeOf(host).polluted = 1; return "polluted"; });
			attempt("start data", () => { "use strict"; host.start.origin = "https://evil.example"; return host.start.origin; });
			attempt("Object.prototype", () => { "use strict"; Object.prototype.polluted = 1; return "polluted"; });
			attempt("Array.prototype.push", () => { "use strict"; Array.prototype.push = () => 0; return "replaced"; });
			attempt("JSON.stringify", () => { "use strict"; JSON.stringify = () => '{"kind":"init"}'; return "replaced"; });
			attempt("getter message", () => { host.post({ get kind() { throw new Error("getter ran in the bootstrap"); } }); return "posted"; });
			attempt("proxy message", () => { host.post(new Proxy({}, { get() { return "ready"; } })); return "posted"; });
		`),
		);
		expectAllBlocked(r, 8);
		// The bridge still works after all that.
		expect(r.logs()).toContain("done");
	});

	test("an output message reaches the launcher as plain data: its own text, nothing inherited or extra", async () => {
		const r = await run(`globalThis.p2Guest = { start(host) {
			const report = (t) => host.post({ kind: "log", level: "warn", text: String(t) });
			const attempt = (name, fn) => { try { fn(); report(name + ": posted"); } catch (e) { report(name + ": refused"); } };
			attempt("plain", () => host.post({ kind: "output", data: "plain text" }));
			attempt("extra fields", () => host.post({ kind: "output", data: "with extras", extra: { deep: 1 } }));
			attempt("inherited", () => host.post(Object.create({ kind: "output", data: "inherited text" })));
			attempt("getter data", () => host.post({ kind: "output", get data() { report("getter ran"); return "from a getter"; } }));
			const descriptor = (value) => ({ value, writable: true, enumerable: true, configurable: true });
			const fields = { kind: "output", data: "proxied text" };
			attempt("proxy", () => host.post(new Proxy({}, {
				getOwnPropertyDescriptor: (_, key) => (key in fields ? descriptor(fields[key]) : undefined),
				get: () => { throw new Error("read through get"); },
			})));
			attempt("not a string", () => host.post({ kind: "output", data: ["array"] }));
			report("done");
		} };`);
		const outputs = r.messages.filter((m) => m.kind === "output");
		expect(outputs).toEqual([
			{ kind: "output", data: "plain text" },
			{ kind: "output", data: "with extras" },
			// A getter is left to the checked copy, which reads it once like any plain value.
			{ kind: "output", data: "from a getter" },
			{ kind: "output", data: "proxied text" },
		]);
		expect(r.said().filter((l) => l !== "done")).toEqual([
			"plain: posted",
			"extra fields: posted",
			"inherited: refused",
			"getter ran",
			"getter data: posted",
			"proxy: posted",
			"not a string: posted",
		]);
		// The array is no output: the launcher refuses it.
		expect(r.problems.some((p) => p.includes("refused a worker message"))).toBe(true);
	});

	test("forged launcher messages never reach the launcher", async () => {
		const r = await run(
			attempts(`
			attempt("post init", () => { host.post({ kind: "init", bundle: "", start: {} }); return "posted"; });
			attempt("post input", () => { host.post({ kind: "input", data: "x" }); return "posted"; });
			attempt("post grant", () => { host.post({ kind: "response", id: 1, ok: true, value: "x" }); return "posted"; });
			attempt("self.postMessage", () => { self.postMessage({ kind: "exit", code: 0 }); return "posted"; });
			attempt("postMessage", () => { postMessage({ kind: "exit", code: 0 }); return "posted"; });
			attempt("oversized output", () => { host.post({ kind: "output", data: "x".repeat(2 * 1024 * 1024) }); return "posted"; });
		`),
		);
		expectAllBlocked(r, 6);
		const kinds = new Set(r.messages.map((m) => m.kind));
		expect([...kinds].every((k) => k === "log" || k === "pong")).toBe(true);
		// Only the test ended it: no forged exit got through.
		expect(r.end?.reason).toBe("terminated");
	});

	test("a frame flood is cut at the rate limit and reported", async () => {
		const r = await run(
			`globalThis.p2Guest = { start(host) {
				for (let i = 0; i < 5000; i++) host.post({ kind: "frame", text: '{"t":"close","h":1}' });
				host.post({ kind: "log", level: "warn", text: "done" });
			} };`,
			{ framesPerSecond: 100 },
		);
		const frames = r.messages.filter((m) => m.kind === "frame").length;
		expect(frames).toBeGreaterThan(0);
		expect(frames).toBeLessThan(5000);
		expect(r.problems).toContain("frames over the rate limit were dropped");
	});

	test("an output flood is cut at the rate limit and reported", async () => {
		const r = await run(
			`globalThis.p2Guest = { start(host) {
				const chunk = "A".repeat(100000);
				for (let i = 0; i < 200; i++) host.post({ kind: "output", data: chunk });
				host.post({ kind: "log", level: "warn", text: "done" });
			} };`,
			{ outputCharsPerSecond: 1_000_000 },
		);
		const chars = r.messages.reduce((n, m) => n + (m.kind === "output" ? m.data.length : 0), 0);
		// The budget is per one-second window; a 20 MB flood that straddles a window's end gets two budgets.
		expect(chars).toBeGreaterThan(0);
		expect(chars).toBeLessThanOrEqual(2 * 1_000_000);
		expect(r.problems).toContain("output over the rate limit was dropped");
	});

	test("a guest posting as fast as it can: the bootstrap lets through no more than its flood limits a second", async () => {
		// Large messages queued up on the launcher's side stalled its thread for seconds when the worker was ended.
		let chars = 0;
		let messages = 0;
		const done = Promise.withResolvers<void>();
		const errors: string[] = [];
		const sandbox = new Sandbox({
			bundle: {
				source: `globalThis.p2Guest = { start(host) {
					const chunk = "x".repeat(1024 * 1024);
					const started = Date.now();
					while (Date.now() - started < 1200) host.post({ kind: "output", data: chunk });
					// Said in the bootstrap's next one-second window, so that the limit does not drop it too.
					setTimeout(() => host.post({ kind: "log", level: "warn", text: "done" }), 1001 - (performance.now() % 1000));
				} };`,
				hash: "test",
			},
			start: START,
			limits: { outputCharsPerSecond: 2 ** 40 },
			onMessage(m) {
				messages++;
				if (m.kind === "output") chars += m.data.length;
				if (m.kind === "error") errors.push(m.message);
				if (m.kind === "log" && m.text === "done") done.resolve();
			},
			onProblem: () => {},
			onEnd: () => done.resolve(),
		});
		try {
			await done.promise;
		} finally {
			sandbox.terminate();
		}
		// The loop spans at most three of the bootstrap's one-second windows.
		expect(chars).toBeGreaterThan(0);
		expect(chars).toBeLessThanOrEqual(3 * WORKER_FLOOD_LIMITS.chars);
		expect(messages).toBeLessThanOrEqual(3 * WORKER_FLOOD_LIMITS.messages + 10);
		expect(errors).toContain("the UI posted more than the worker lets through in a second; the rest was dropped");
	});

	test("an endless loop: the launcher stays responsive and ends the worker", async () => {
		let ticks = 0;
		let ticksAtReady: number | undefined;
		const ticker = setInterval(() => ticks++, 20);
		const r = await run(
			`globalThis.p2Guest = { start(host) { host.post({ kind: "ready" }); setTimeout(() => { for (;;) {} }, 0); } };`,
			{ heartbeatMs: 100, heartbeatTimeoutMs: 600 },
			(m) => {
				if (m.kind === "ready") ticksAtReady = ticks;
			},
		);
		clearInterval(ticker);
		expect(r.end?.reason).toBe("unresponsive");
		// The launcher's own timers kept running while the worker spun: one of its timers ran between the worker's
		// last message and its end (which takes several heartbeats), however slowly the machine runs them.
		expect(ticksAtReady).toBeDefined();
		expect(ticks).toBeGreaterThan(ticksAtReady!);
	});

	test("time the launcher itself was stopped (Ctrl+Z, SIGSTOP) does not count as the worker not answering", async () => {
		let jump = 0;
		const ticks: number[] = [];
		let ended: WorkerEnd | undefined;
		const sandbox = new Sandbox({
			bundle: {
				source: `globalThis.p2Guest = { start(host) { host.post({ kind: "ready" }); setInterval(() => host.post({ kind: "log", level: "info", text: "tick" }), 20); } };`,
				hash: "test",
			},
			start: START,
			limits: { heartbeatMs: 50, heartbeatTimeoutMs: 5000 },
			now: () => performance.now() + jump,
			onMessage: (m) => {
				if (m.kind === "log") ticks.push(jump);
			},
			onProblem: () => {},
			onEnd: (reason) => {
				ended = reason;
			},
		});
		try {
			await waitUntil(() => ticks.length >= 3, "the worker running");
			// As after a minute stopped: the next beat comes a minute after the last.
			jump = 60_000;
			await waitUntil(
				() => ticks.filter((t) => t === jump).length >= 30 || ended !== undefined,
				"ticks after the stop",
			);
			expect(ended).toBeUndefined();
		} finally {
			sandbox.terminate();
		}
	});

	test("a memory bomb is ended before it takes the machine", async () => {
		const r = await run(
			`globalThis.p2Guest = { start(host) {
				const hoard = [];
				const grow = () => { for (let i = 0; i < 20; i++) hoard.push(new Array(250000).fill(i)); setTimeout(grow, 0); };
				grow();
			} };`,
			{
				heartbeatMs: 100,
				heartbeatTimeoutMs: 2000,
				maxHeapBytes: 256 * 1024 * 1024,
				maxRssGrowthBytes: 768 * 1024 * 1024,
			},
		);
		expect(["memory", "unresponsive"]).toContain(r.end?.reason ?? "still running");
	});
});
