/** Where the launcher connects, with what credentials (never shown to the worker). */
export interface LaunchTarget {
	readonly kind: "device" | "owner" | "guest";
	origin(): string;
	credentials(): Record<string, string>;
	/** This device's server may have gone away: find it or start it again before reconnecting. */
	refresh?(): Promise<void>;
}
