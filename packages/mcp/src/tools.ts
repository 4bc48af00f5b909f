import { CursorError } from './paging.js';
import { hubArchive } from './tools/archive.js';
import { hubRepoDetails, modelDetails } from './tools/details.js';
import { getDownload } from './tools/download.js';
import { hubHealth } from './tools/health.js';
import { hubRepoSearch, modelSearch } from './tools/search.js';
import { errorResult, type ToolContext, type ToolDef, ToolError, type ToolResult } from './tools/shared.js';
import type * as z from './zod.js';

export { ANNOTATIONS, type ToolContext, type ToolDef, type ToolResult } from './tools/shared.js';

/** Every MCP tool, one file each under tools/, in the order tools/list shows them. */
export const TOOLS: ToolDef[] = [hubRepoSearch, hubRepoDetails, modelSearch, modelDetails, getDownload, hubHealth, hubArchive];

export const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t] as const));

/** Run a tool with arguments already validated; tool errors become `isError` results naming the fix. */
export async function callTool(tool: ToolDef, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  try {
    return await tool.run(args, ctx);
  } catch (e) {
    if (e instanceof ToolError || e instanceof CursorError) return errorResult(e.message);
    ctx.deps.log.error({ err: { message: (e as Error)?.message }, tool: tool.name }, 'mcp tool failed');
    return errorResult(`${tool.name} failed inside the hub; it has been logged. Fix: try again, or check ${ctx.origin}/api/hub/health.`);
  }
}

/** An `isError` answer for arguments that do not match the tool's schema, naming each problem and a good call. */
export function argumentError(tool: ToolDef, error: z.ZodError): ToolResult {
  const problems = error.issues.slice(0, 6).map((i) => `${i.path.length ? `\`${i.path.join('.')}\`` : 'arguments'}: ${i.message}`);
  return errorResult(`Invalid arguments for ${tool.name}: ${problems.join('; ')}. Fix: call it like ${tool.name} ${tool.example}.`);
}
