/**
 * The validators precompiled from every schema the guest checks, made when the bundle is built
 * (`src/server/bundle.ts` provides this module; `src/server/precompile-validators.ts` writes it).
 */
declare module "p2:precompiled-validators" {
	export const precompiledValidators: Readonly<Record<string, (data: unknown) => boolean>>;
}
