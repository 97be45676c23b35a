/**
 * A package the bundle carries as text (`deferredModulesPlugin` in server/bundle.ts): evaluated in this
 * compartment, with its globals, the first time the UI requires it, then kept by the bundler's `require`.
 */
export function evaluateDeferred(source: string): unknown {
	// The compartment's own evaluator: the text is part of the bundle this worker already runs (its hash covers
	// it), and it gets no more than the bundle has.
	// biome-ignore lint/security/noGlobalEval: see above.
	const evaluate = eval;
	const factory = evaluate(source) as (module: { exports: unknown }, exports: unknown) => void;
	const module: { exports: unknown } = { exports: {} };
	factory(module, module.exports);
	return module.exports;
}
