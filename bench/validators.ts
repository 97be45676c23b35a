/**
 * Issue 19: what the guest's checks cost per frame inside the real sandbox, with arktype (jitless, as the
 * guest ran before) and with the validators precompiled at build time. A large chat state (300 entries) gets
 * `set` patches (the whole state is validated again) and text appends. Runs interleaved; prints JSON.
 * Run: bun bench/validators.ts [runs]
 */
import { join } from "node:path";
import { buildGuestBundle, fitForSes, sandboxPlugin } from "../src/server/bundle.ts";
import type { GuestBundle } from "../src/server/server.ts";
import { sandboxedResult } from "./guest/sandboxed-result.ts";
import type { FrameCost } from "./guest/state-frames.ts";

/** The arktype entry is built as the guest bundle was before: real arktype, only the sandbox plugin. */
async function arktypeBundle(): Promise<GuestBundle> {
	const result = await Bun.build({
		entrypoints: [join(import.meta.dir, "guest", "frames-arktype-entry.ts")],
		target: "browser",
		format: "iife",
		minify: true,
		plugins: [sandboxPlugin],
		define: { "process.env.NODE_ENV": '"production"' },
	});
	if (!result.success) throw new Error(result.logs.map(String).join("\n"));
	const source = fitForSes(await result.outputs[0]!.text());
	return { source, hash: "bench" };
}

const run = (bundle: GuestBundle) => sandboxedResult<FrameCost>(bundle);

const runs = Number(process.argv[2] ?? 3);
const bundles = {
	arktype: await arktypeBundle(),
	precompiled: await buildGuestBundle({ entry: join(import.meta.dir, "guest", "frames-precompiled-entry.ts") }),
};
const results: Record<keyof typeof bundles, FrameCost[]> = { arktype: [], precompiled: [] };
for (let i = 0; i < runs; i++) {
	for (const name of ["arktype", "precompiled"] as const) results[name].push(await run(bundles[name]));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (costs: FrameCost[]) => ({
	stateChars: costs[0]!.stateChars,
	msPerShapePatch: median(costs.map((c) => c.msPerShapePatch)),
	msPerAppend: median(costs.map((c) => c.msPerAppend)),
	problems: costs.flatMap((c) => c.problems),
});
console.log(
	JSON.stringify(
		{
			entries: 300,
			runs,
			arktypeJitless: summary(results.arktype),
			precompiled: summary(results.precompiled),
			load: (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" "),
		},
		null,
		2,
	),
);
