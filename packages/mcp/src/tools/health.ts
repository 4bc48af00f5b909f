/** hub_health: which byte sources passed their last probe. */
import * as z from '../zod.js';
import { type ToolContext, type ToolDef, type ToolResult, textResult } from './shared.js';

async function runHealth(_args: Record<string, never>, ctx: ToolContext): Promise<ToolResult> {
  const snap = ctx.deps.health.snapshot();
  const names = Object.keys(snap.sources);
  const holders = ctx.deps.index().totals.holders;
  const held = { get: (name: string): number | undefined => holders[name] };
  const lines = [
    `Sources in preference order: ${snap.order.join(' → ') || '(none configured)'}. A download goes to the first one that is ok and holds the file.`,
    ...names.map((n) => {
      const s = snap.sources[n];
      // No probe file: offered on trust and never checked (checked: null), which is not the same as reached.
      const state = !s?.ok ? 'down' : s.checked ? `ok · last reached ${s.checked}` : 'offered, not checked (no probe file)';
      const holds = held.get(n) ? `holds ${held.get(n)} of this index's models` : "holds none of this index's models";
      return `- ${ctx.deps.health.display(n)} [${n}]: ${state}${s?.reason ? ` (${s.reason})` : ''} · ${holds}`;
    }),
    `Live view: ${ctx.origin}/api/hub/health`,
  ];
  return textResult(lines.join('\n'), { ...snap } as Record<string, unknown>);
}

export const hubHealth: ToolDef = {
  name: 'hub_health',
  title: 'Source health',
  description:
    'Which byte sources passed their last probe, when they were last reached, and the order downloads try them in. Takes no arguments.',
  input: z.object({}).strict(),
  example: '{}',
  run: (args, ctx) => runHealth(args, ctx),
};
