// A child process for the crash test: opens a session store (which recovers it), starts a run and appends
// entries until it is killed. Every line it prints is printed after the commit it reports.
//   bun test/support/store-writer.ts <dataDir> <sessionId> <runId> [extraRuns]
// extraRuns starts that many more runs in side conversations, so that the next open has a long recovery to be
// killed in the middle of.
import { writeSync } from "node:fs";
import { SessionStore } from "../../src/server/store/session-store.ts";

const [dataDir, sessionId, runId, extra = "0"] = process.argv.slice(2);
if (!dataDir || !sessionId || !runId) throw new Error("usage: store-writer.ts <dataDir> <sessionId> <runId>");

// Synchronous writes: a line is in the pipe before the next commit starts, and nothing waits in a buffer.
const say = (line: string) => writeSync(1, `${line}\n`);

const store = SessionStore.open(dataDir, sessionId);
say(`open ${store.runsInterrupted().length}`);
store.beginRun("main", runId);
say(`run ${runId}`);
for (let k = 0; k < Number(extra); k++) store.beginRun(`side-${k % 20}`, `${runId}.${k}`);
say(`extra ${extra}`);
for (let i = 1; ; ) {
	const text = "x".repeat(i % 200);
	if (i % 5 === 0) {
		const batch = [0, 1, 2].map((k) => ({
			kind: "message",
			data: { runId, i: i + k, text },
			requestId: `${runId}-${i + k}`,
			runId,
		}));
		for (const entry of store.appendMany("main", batch)) say(`seq ${entry.seq}`);
		i += 3;
	} else {
		const entry = store.append("main", {
			kind: "message",
			data: { runId, i, text },
			requestId: `${runId}-${i}`,
			runId,
		});
		say(`seq ${entry.seq}`);
		i++;
	}
}
