/** Polls until `predicate` holds; throws naming `what` after `timeoutMs`. For conditions no event reports. */
export async function waitUntil(predicate: () => boolean | undefined, what: string, timeoutMs = 10_000): Promise<void> {
	await waitForValue(() => (predicate() ? true : undefined), what, timeoutMs);
}

/** Polls until `read` gives a value other than undefined and returns it; throws naming `what` after `timeoutMs`. */
export async function waitForValue<T>(read: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = read();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await Bun.sleep(10);
	}
}
