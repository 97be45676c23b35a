/**
 * Chat surface benchmarks (issue 4): render cost per streamed token at 120 columns during a long answer, frames
 * written per second while streaming, time to the first frame of a 10,000-entry conversation, and resident
 * memory after scrolling through all of it. Prints JSON. Run: bun bench/chat.ts
 */
import { join } from "node:path";
import { buildGuestBundle } from "../src/server/bundle.ts";
import { fakeHome, MAIN } from "../test/support/fake-home.ts";
import { runInPty } from "../test/support/pty.ts";
import { seedConversation } from "../test/support/seed.ts";
import { sandboxedResult } from "./guest/sandboxed-result.ts";
import { assistantMessageCost, paragraphAnswer, type StreamCost, streamCost } from "./guest/stream-render.ts";

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/**
 * pi 1.6.0's own assistant message on the same tokens, when its package is installed outside the repo:
 * PI_PKG=/path/to/node_modules/@earendil-works/pi-coding-agent.
 */
async function piRenderCostPerToken(tokens: number | readonly string[]): Promise<StreamCost | string> {
	const pkg = process.env.PI_PKG;
	if (!pkg) return "set PI_PKG to measure";
	const { AssistantMessageComponent } = await import(
		join(pkg, "dist/modes/interactive/components/assistant-message.js")
	);
	const theme = await import(join(pkg, "dist/modes/interactive/theme/theme.js"));
	theme.initTheme?.("dark");
	const component = new AssistantMessageComponent(undefined, false);
	return streamCost(tokens, (text) => {
		component.updateContent({ role: "assistant", content: [{ type: "text", text }] }, true);
		component.render(120);
	});
}

/** The same streaming render inside the real sandbox: the bundle runs under ses in a Compartment. */
async function sandboxedRenderCostPerToken(): Promise<StreamCost> {
	return sandboxedResult(await buildGuestBundle({ entry: join(import.meta.dir, "guest", "render-entry.ts") }));
}

/** Frames the UI wrote per second while a fast answer streamed (synchronized-output blocks in the pty). */
async function framesPerSecond(): Promise<{ framesPerSecond: number; idleFramesIn2s: number }> {
	const h = await fakeHome("p2-bench-");
	const fake = h.fake;
	const run = runInPty([process.execPath, MAIN], { env: h.env, cols: 120, rows: 40, cwd: h.home });
	let frames = 0;
	run.term.parser.registerCsiHandler({ prefix: "?", final: "h" }, (params) => {
		if (params[0] === 2026) frames++;
		return false;
	});
	await run.waitFor((s) => s.includes("fake-model"), "the screen", 20000);
	fake.enqueue({ text: "word ".repeat(3000), chunks: 1500, chunkDelayMs: 2 });
	run.type("go\r");
	await run.waitFor((s) => s.includes("Working"), "streaming");
	const before = frames;
	const start = performance.now();
	await run.waitFor((s) => !s.includes("Working"), "the end of the answer", 60000);
	const seconds = (performance.now() - start) / 1000;
	const streamed = frames - before;
	await Bun.sleep(300);
	const idleStart = frames;
	await Bun.sleep(2000);
	const idle = frames - idleStart;
	run.type("\x04");
	await run.exited;
	await h.remove();
	return { framesPerSecond: round(streamed / seconds, 1), idleFramesIn2s: idle };
}

async function conversation(n: number): Promise<{ firstFrameMs: number; rssAfterScrollMB: number }> {
	const h = await fakeHome("p2-bench-");
	const id = seedConversation(h.data, h.home, n);
	const start = performance.now();
	const run = runInPty([process.execPath, MAIN, "--session", id], { env: h.env, cols: 120, rows: 40, cwd: h.home });
	await run.waitFor((s) => s.includes(`Answer ${n - 1}:`), "the last answer", 30000);
	const firstFrameMs = performance.now() - start;
	// Scroll to the top of what is loaded, a page at a time.
	for (let i = 0; i < 400; i++) run.type("\x1b[5~");
	await Bun.sleep(1500);
	// Launcher, UI worker and embedded server are one process.
	const rssKB = Number(String(Bun.spawnSync(["ps", "-o", "rss=", "-p", String(run.pid)]).stdout).trim());
	run.type("\x04");
	await run.exited;
	await h.remove();
	return { firstFrameMs: round(firstFrameMs, 0), rssAfterScrollMB: round(rssKB / 1024, 0) };
}

const paragraph = paragraphAnswer(400);
const result = {
	renderCost: assistantMessageCost(4000),
	// A 400-line answer with no blank line: pi re-lexes the whole paragraph on every token.
	renderCostParagraph400: assistantMessageCost(paragraph),
	renderCostParagraph400Pi_1_6_0: await piRenderCostPerToken(paragraph),
	renderCostSandboxed: await sandboxedRenderCostPerToken(),
	renderCostPi_1_6_0: await piRenderCostPerToken(4000),
	streaming: await framesPerSecond(),
	// The same start with a two-entry conversation: the difference is what the 10,000 entries cost.
	conversation2: await conversation(2),
	conversation10k: await conversation(10_000),
};
console.log(JSON.stringify(result, null, 2));
