/**
 * What `node:*` imports resolve to inside the bundle. The guest has no files, processes or network; a library
 * that reaches for them at call time gets a clear error instead of a capability.
 */
const unavailable = (name: string) => () => {
	throw new Error(`${name} is not available in the p2 guest sandbox`);
};

export const performance = globalThis.performance;
export const existsSync = () => false;
export const readFileSync = unavailable("fs.readFileSync");
export const writeFileSync = unavailable("fs.writeFileSync");
export const appendFileSync = unavailable("fs.appendFileSync");
export const mkdirSync = unavailable("fs.mkdirSync");
export const openSync = unavailable("fs.openSync");
export const execSync = unavailable("child_process.execSync");
export const spawnSync = unavailable("child_process.spawnSync");
export const spawn = unavailable("child_process.spawn");
export const readdirSync = unavailable("fs.readdirSync");
export const statSync = unavailable("fs.statSync");
export const createRequire = () => unavailable("require");
export const homedir = () => "/";
export const tmpdir = () => "/tmp";
export const platform = () => "linux";
export const join = (...parts: string[]) => parts.join("/").replace(/\/+/g, "/");
export const dirname = (p: string) => p.replace(/\/[^/]*$/, "") || "/";
export const basename = (p: string) => p.replace(/.*\//, "");
export const resolve = join;
export const isAbsolute = (p: string) => p.startsWith("/");
export const sep = "/";
export const fileURLToPath = (u: string) => String(u).replace(/^file:\/\//, "");
export const pathToFileURL = (p: string) => ({ href: `file://${p}` });
/** pi-tui's StdinBuffer extends it; the guest never runs it (the launcher splits input). */
export class EventEmitter {
	on(): this {
		return this;
	}
	off(): this {
		return this;
	}
	emit(): boolean {
		return false;
	}
	removeAllListeners(): this {
		return this;
	}
}
const stub = {
	EventEmitter,
	performance,
	existsSync,
	readFileSync,
	writeFileSync,
	appendFileSync,
	mkdirSync,
	openSync,
	execSync,
	spawnSync,
	spawn,
	readdirSync,
	statSync,
	createRequire,
	homedir,
	tmpdir,
	platform,
	join,
	dirname,
	basename,
	resolve,
	isAbsolute,
	sep,
	fileURLToPath,
	pathToFileURL,
};
export default stub;
