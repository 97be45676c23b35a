/**
 * The `process` that pi-tui and other libraries in the bundle see: the guest's own object, filled from the
 * launcher's start data (a few terminal facts, never the real environment). The bundler injects it into every
 * module that mentions `process`.
 */
interface GuestProcess {
	env: Record<string, string | undefined>;
	platform: string;
	argv: string[];
	versions: Record<string, string>;
	nextTick(fn: (...args: unknown[]) => void, ...args: unknown[]): void;
	on(): GuestProcess;
	off(): GuestProcess;
	once(): GuestProcess;
	emit(): boolean;
	cwd(): string;
	stdout: { columns: number; rows: number; isTTY: boolean };
	stdin: { isTTY: boolean };
}

export const process: GuestProcess = {
	env: {},
	platform: "linux",
	argv: [],
	versions: {},
	nextTick(fn: (...args: unknown[]) => void, ...args: unknown[]): void {
		queueMicrotask(() => fn(...args));
	},
	on() {
		return process;
	},
	off() {
		return process;
	},
	once() {
		return process;
	},
	emit() {
		return false;
	},
	cwd() {
		return "/";
	},
	stdout: { columns: 80, rows: 24, isTTY: true },
	stdin: { isTTY: true },
};

export function configureProcess(facts: { env: Record<string, string>; platform: string }): void {
	Object.assign(process.env, facts.env);
	process.platform = facts.platform;
}
