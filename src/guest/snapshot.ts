import { type } from "arktype";

/** What a worker hands its successor on reload (through the launcher, unchanged): the person's work. */
export const ReloadSnapshot = type({
	version: "1",
	draft: "string <= 1048576",
	"+": "delete",
});
export type ReloadSnapshot = typeof ReloadSnapshot.infer;

export function serializeSnapshot(snapshot: ReloadSnapshot): string {
	return JSON.stringify(snapshot);
}

/** A snapshot from an older or broken worker is ignored rather than trusted. */
export function parseSnapshot(text: string | undefined): ReloadSnapshot | undefined {
	if (!text) return undefined;
	try {
		const parsed = ReloadSnapshot(JSON.parse(text));
		return parsed instanceof type.errors ? undefined : parsed;
	} catch {
		return undefined;
	}
}
