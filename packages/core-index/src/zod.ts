import type { output, ZodType } from 'zod';

export type { ZodType } from 'zod';
/**
 * The parts of zod core-index uses, re-exported by name. The schema files import this module (`import * as z from
 * '../zod.js'`) instead of zod's `z` namespace object, so a bundler keeps only these functions and what they need:
 * the `hub` binary then inlines about a quarter of zod instead of all of it (docs/decisions/scale-and-speed.md, "A
 * start loads what it serves").
 */
export {
  array,
  boolean,
  enum,
  literal,
  null,
  number,
  object,
  record,
  string,
  toJSONSchema,
  union,
  unknown,
} from 'zod';

/** zod's `z.infer`, under a name that is not a keyword (a type re-exported as `infer` breaks the bundled .d.ts). */
export type Infer<T extends ZodType> = output<T>;
