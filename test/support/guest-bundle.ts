/**
 * Test bundles for the launcher: a guest that reports what it hears as plain output markers, so a test reads
 * what the worker learned from the terminal the launcher wrote to.
 *
 * - `READY;` once it listens;
 * - `ANSWER:<id>:<ok>:<error>:<attached json>;` for every response;
 * - `REDRAW;` when the launcher asks for a redraw;
 * - `IN:<json>;` for input no handler took; `q` exits with code 0.
 *
 * `body` runs inside `start(host)` with `out(data)`, `request(id, action, payload)`, `on(key, fn)` and
 * `listen(fn)` (every launcher message) in scope; it must not call `host.onMessage` itself.
 */
export function guestBundle(body: string): string {
	return `globalThis.p2Guest = { start(host) {
		const out = (data) => host.post({ kind: "output", data });
		const request = (id, action, payload) => host.post({ kind: "request", id, action, payload });
		const keys = new Map();
		const on = (key, fn) => keys.set(key, fn);
		const listeners = [];
		const listen = (fn) => listeners.push(fn);
		host.onMessage((m) => {
			for (const fn of listeners) fn(m);
			if (m.kind === "response") out("ANSWER:" + m.id + ":" + m.ok + ":" + (m.error ?? "") + ":" + JSON.stringify(m.attached ?? null) + ";");
			if (m.kind === "redraw") out("REDRAW;");
			if (m.kind === "input") {
				if (m.data === "q") host.post({ kind: "exit", code: 0 });
				else if (keys.has(m.data)) keys.get(m.data)(m);
				else out("IN:" + JSON.stringify(m.data) + ";");
			}
		});
		${body}
		host.post({ kind: "ready" });
		out("READY;");
	} };`;
}
