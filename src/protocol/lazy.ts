/**
 * arktype's methods that make another schema from this one: called on a schema not yet built, they answer a
 * schema built on first use too, so a definition can combine others without building them (and loading
 * arktype) when its module loads. `.optional()` and `.default()` answer tuples, which cannot be deferred.
 */
const COMBINATORS = new Set([
	"and",
	"array",
	"atLeastLength",
	"atMostLength",
	"brand",
	"configure",
	"describe",
	"exclude",
	"extract",
	"lessThan",
	"merge",
	"moreThan",
	"narrow",
	"omit",
	"onDeepUndeclaredKey",
	"onUndeclaredKey",
	"or",
	"partial",
	"pick",
	"pipe",
	"required",
	"to",
]);

/**
 * A schema built on first use. Constructing arktype types is most of the cost of loading the contracts (a few
 * hundred milliseconds in the sandbox), and a process needs only the ones it touches, later. The proxy stands
 * for the built type in every way: calls, properties, `instanceof`.
 */
export function lazy<T extends object>(build: () => T): T {
	let built: T | undefined;
	const real = (): T => {
		built ??= build();
		return built;
	};
	// An arrow function as the target: callable, and without a non-configurable `prototype` to trip the traps.
	const target = (() => {}) as unknown as T;
	return new Proxy(target, {
		apply: (_target, thisArg, args) => Reflect.apply(real() as (...a: unknown[]) => unknown, thisArg, args),
		get: (_target, key) => {
			if (built === undefined && typeof key === "string" && COMBINATORS.has(key)) {
				return (...args: unknown[]) =>
					lazy(() => Reflect.apply(Reflect.get(real(), key) as (...a: unknown[]) => object, real(), args));
			}
			const type = real();
			const value = Reflect.get(type, key, type);
			return typeof value === "function" ? value.bind(type) : value;
		},
		has: (_target, key) => Reflect.has(real(), key),
		getPrototypeOf: () => Reflect.getPrototypeOf(real()),
		ownKeys: () => Reflect.ownKeys(real()).filter((k) => k !== "prototype" && k !== "arguments" && k !== "caller"),
		getOwnPropertyDescriptor: (_target, key) => {
			const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
			return descriptor ? { ...descriptor, configurable: true } : undefined;
		},
	});
}
