/**
 * `<data>/envs.json`: the machines sessions may run on, beside this device.
 *
 *     { "environments": [
 *         { "name": "gpu", "host": "gpu.lan", "port": 22, "user": "me",
 *           "identityFile": "~/.ssh/id_ed25519", "directory": "/data" } ] }
 *
 * Without `identityFile` the SSH agent of the server's environment (SSH_AUTH_SOCK) is used.
 */
import { join } from "node:path";
import { type } from "../../protocol/ark.ts";
import { ENV_NAME } from "../../protocol/env-name.ts";
import { fileLabel, readJsonFile, shapeProblems } from "../json-file.ts";

export const ENVS_FILE = "envs.json";

/** Host and user go to ssh as arguments: nothing that could read as an option or a second argument. */
const HOST = /^[A-Za-z0-9_.:[\]%-]{1,253}$/;
const USER = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}$/;

const EnvEntry = type({
	name: "string",
	host: "string",
	"port?": "1 <= number.integer <= 65535",
	"user?": "string",
	"identityFile?": "0 < string <= 4096",
	"directory?": "0 < string <= 4096",
	"+": "reject",
});
const EnvsFile = type({ environments: EnvEntry.array().atMostLength(100), "+": "reject" });

export interface SshEnvConfig {
	readonly name: string;
	readonly host: string;
	readonly port: number;
	readonly user: string | null;
	readonly identityFile: string | null;
	/** Where new sessions there start, and the `/envs` prompt's default; the account's home when absent. */
	readonly directory: string | null;
}

export interface EnvsConfig {
	readonly environments: readonly SshEnvConfig[];
	/** Set when the file exists and could not be used (then no SSH environment is configured). */
	readonly problem: string | null;
}

/** Reads and checks envs.json; every problem comes out as one sentence naming the file and the place. */
export function readEnvsConfig(dataDir: string): EnvsConfig {
	const path = join(dataDir, ENVS_FILE);
	const label = fileLabel(path);
	const read = readJsonFile(path, { label });
	if ("missing" in read) return { environments: [], problem: null };
	if ("problem" in read) return { environments: [], problem: read.problem };
	const parsed = EnvsFile(read.value);
	if (parsed instanceof type.errors)
		return { environments: [], problem: `${label}: ${shapeProblems(parsed).join("; ")}` };
	const problems: string[] = [];
	const seen = new Set<string>();
	const environments: SshEnvConfig[] = [];
	parsed.environments.forEach((entry, i) => {
		const at = `environments[${i}]`;
		if (!ENV_NAME.test(entry.name)) {
			problems.push(
				`${at}.name must be 2 to 32 letters, digits, ".", "_" or "-", starting with a letter or digit (was ${JSON.stringify(entry.name)})`,
			);
		} else if (entry.name === "local") {
			problems.push(`${at}.name must not be "local" (local: is this device)`);
		} else if (seen.has(entry.name)) {
			problems.push(`${at}.name ${entry.name} is used twice`);
		}
		seen.add(entry.name);
		if (!HOST.test(entry.host) || entry.host.startsWith("-")) {
			problems.push(`${at}.host must be a host name or address (was ${JSON.stringify(entry.host)})`);
		}
		if (entry.user !== undefined && !USER.test(entry.user)) {
			problems.push(`${at}.user must be a user name (was ${JSON.stringify(entry.user)})`);
		}
		if (entry.directory !== undefined && !entry.directory.startsWith("/") && !entry.directory.startsWith("~")) {
			problems.push(
				`${at}.directory must be an absolute path or start with ~ (was ${JSON.stringify(entry.directory)})`,
			);
		}
		environments.push({
			name: entry.name,
			host: entry.host,
			port: entry.port ?? 22,
			user: entry.user ?? null,
			identityFile: entry.identityFile ?? null,
			directory: entry.directory ?? null,
		});
	});
	if (problems.length > 0) return { environments: [], problem: `${label}: ${problems.join("; ")}` };
	return { environments, problem: null };
}
