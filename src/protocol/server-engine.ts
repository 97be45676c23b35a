/**
 * How a p2 server process runs its JavaScript engine: without JavaScriptCore's top compiler tier (FTL). A
 * server's work is streaming (a provider's events, patches, frames), where that tier's compiles cost more CPU
 * than its code saves. Measured on streamed answers: the server's CPU per Markdown answer 0.12 → 0.08 s, per
 * 400-line answer 0.67 → 0.52 s; a 4,000-line diff ran as fast. An engine option is read when a process starts,
 * so it travels in the environment; the person's own setting of it wins. (Bun refuses to start with an option
 * it does not know: the tests start servers with the pinned Bun, so an upgrade that drops it fails there.)
 */
export const SERVER_ENGINE_ENV: Readonly<Record<string, string>> = { BUN_JSC_useFTLJIT: "0" };

/** Whether `env` already carries every engine option (set by the launcher, or by the person). */
export function hasServerEngine(env: Readonly<Record<string, string | undefined>>): boolean {
	return Object.keys(SERVER_ENGINE_ENV).every((name) => Object.hasOwn(env, name));
}
