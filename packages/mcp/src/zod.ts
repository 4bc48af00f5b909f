/**
 * The parts of zod the MCP tools use, re-exported by name (`import * as z from './zod.js'`), so the `hub` binary's
 * bundle keeps only these of zod: a start shares zod's modules with this lazily loaded code, and the whole `z`
 * namespace here would keep all of zod in the chunk a start loads (docs/decisions/scale-and-speed.md).
 */

export type { ZodError, ZodObject, ZodRawShape } from 'zod';
export { array, enum, number, object, string } from 'zod';
