// Type-level checks (run by `tsc`): the keys a factory accepts are tied to its options type.
import { checkOptions, type OptionKeys } from './check-options.js';

interface GreeterOptions {
  name?: string;
  loud?: boolean;
}
declare const options: GreeterOptions;

checkOptions(options, { name: true, loud: true }, 'createGreeter()');
// @ts-expect-error a key of the type left out does not compile
checkOptions(options, { name: true }, 'createGreeter()');
// @ts-expect-error a key the type does not have does not compile
checkOptions(options, { name: true, loud: true, colour: true }, 'createGreeter()');

export const GREETER_KEYS = {
  name: true,
  loud: true,
} as const satisfies OptionKeys<GreeterOptions>;
// @ts-expect-error a shared list is checked with `satisfies`, both ways
export const SHORT_KEYS = { name: true } as const satisfies OptionKeys<GreeterOptions>;
