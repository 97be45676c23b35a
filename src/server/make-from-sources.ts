/**
 * Makes what a server run from source keeps built (`sources-cache.ts`) and writes it to stdout: `bundle` (the
 * UI bundle) or `validators` (the server's precompiled validators). The server runs this as a process of its
 * own: making them loads Bun's bundler and arktype, which leave about 70 MiB each that the server would keep
 * for its whole life.
 */
import { buildGuestScript } from "./bundle.ts";
import { serverValidatorsModule } from "./server-validators.ts";

const what = process.argv[2];
if (what !== "bundle" && what !== "validators") {
	process.stderr.write(`make-from-sources: expected "bundle" or "validators", got ${JSON.stringify(what)}\n`);
	process.exit(2);
}
const made = what === "bundle" ? (await buildGuestScript()).source : await serverValidatorsModule();
await Bun.write(Bun.stdout, made);
