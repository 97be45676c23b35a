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
