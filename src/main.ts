#!/usr/bin/env bun
import pkg from "../package.json" with { type: "json" };

const HELP = `p2 ${pkg.version} — a terminal client for a server-backed, multi-user coding agent

Usage:
  p2 [url] [options] [message...]   open this device's sessions, or a remote server's
  p2 serve [options]                run a p2 server on its own (p2 serve --help)
  p2 --version | --help`;

async function main(argv: string[]): Promise<number> {
	const [first, ...rest] = argv;
	if (first === "--version" || first === "-v") {
		console.log(pkg.version);
		return 0;
	}
	if (first === "--help" || first === "-h") {
		console.log(HELP);
		return 0;
	}
	if (first === "serve") {
		const { serveCommand } = await import("./server/serve-cli.ts");
		return serveCommand(rest);
	}
	console.error("p2: the terminal client is not built yet; run `p2 serve` for the server.");
	return 2;
}

process.exitCode = await main(process.argv.slice(2));
