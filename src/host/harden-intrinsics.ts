/**
 * Defence in depth for the launcher process: the prototypes every JSON value reaches (`__proto__` and
 * `constructor.prototype` walks from objects, arrays, strings, numbers, booleans, functions) are frozen, so
 * no data from the worker, the server or a file can add or change what every other object inherits.
 *
 * Freezing alone breaks ordinary code that assigns an own property shadowing an inherited one
 * (`error.name = …`, `obj.toString = …`: the "override mistake"). As Hardened JavaScript does, each such
 * property becomes an accessor whose setter defines the property on the object assigned to instead.
 * `RegExp.prototype` is left alone: JavaScriptCore leaves its fast regular-expression paths once it is frozen
 * (measured in a locked-down worker: they are slow once frozen), and the launcher's output filter runs on regular expressions.
 */

/** Properties that ordinary code assigns on instances, by prototype (Hardened JavaScript's "moderate" list). */
const OVERRIDABLE: ReadonlyArray<readonly [object, readonly string[]]> = [
	[
		Object.prototype,
		["constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString", "valueOf"],
	],
	[Array.prototype, ["constructor", "toString", "push", "concat"]],
	[Function.prototype, ["constructor", "bind", "call", "apply", "toString"]],
	[Error.prototype, ["constructor", "message", "name", "toString"]],
	[TypeError.prototype, ["constructor", "message", "name"]],
	[RangeError.prototype, ["constructor", "message", "name"]],
	[SyntaxError.prototype, ["constructor", "message", "name"]],
	[Promise.prototype, ["constructor"]],
	[String.prototype, ["constructor", "toString", "valueOf"]],
	[Number.prototype, ["constructor", "toString", "valueOf"]],
	[Boolean.prototype, ["constructor", "toString", "valueOf"]],
];

const FROZEN: readonly object[] = [
	Object.prototype,
	Array.prototype,
	Function.prototype,
	String.prototype,
	Number.prototype,
	Boolean.prototype,
	Symbol.prototype,
	BigInt.prototype,
	Error.prototype,
	TypeError.prototype,
	RangeError.prototype,
	SyntaxError.prototype,
	Promise.prototype,
];

function enableOverride(proto: object, name: string): void {
	const desc = Object.getOwnPropertyDescriptor(proto, name);
	if (!desc || !("value" in desc) || !desc.configurable) return;
	const value: unknown = desc.value;
	Object.defineProperty(proto, name, {
		get() {
			return value;
		},
		set(this: unknown, next: unknown) {
			if (this === proto) throw new TypeError(`Cannot assign to read only property '${name}' of a frozen prototype`);
			// An assignment on an object that inherits the property makes it the object's own, as before.
			Object.defineProperty(this, name, { value: next, writable: true, enumerable: true, configurable: true });
		},
		enumerable: desc.enumerable ?? false,
		configurable: false,
	});
}

let hardened = false;

/** Freezes the shared prototypes once; later calls do nothing. */
export function hardenIntrinsics(): void {
	if (hardened) return;
	hardened = true;
	for (const [proto, names] of OVERRIDABLE) for (const name of names) enableOverride(proto, name);
	for (const proto of FROZEN) Object.freeze(proto);
}
