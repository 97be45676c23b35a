/**
 * Builds the UI bundle and writes it to stdout. A server run from source runs this as a process of its own
 * rather than building in its own: a build (Bun's bundler, arktype for the precompiled validators) leaves about
 * 80 MiB that the server would keep for its whole life.
 */
import { buildGuestScript } from "./bundle.ts";

const { source } = await buildGuestScript();
await Bun.write(Bun.stdout, source);
