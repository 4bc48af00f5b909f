/** hub_health: which byte sources passed their last probe. */
import { z } from 'zod';
import { type ToolContext, type ToolDef, type ToolResult, textResult } from './shared.js';

async function runHealth(_args: Record<string, never>, ctx: ToolContext): Promise<ToolResult> {
  const snap = ctx.deps.health.snapshot();
  const names = Object.keys(snap.sources);
  const lines = [
    `Sources in preference order: ${snap.order.join(' → ') || '(none configured)'}. A download goes to the first one that is ok and holds the file.`,
    ...names.map((n) => {
      const s = snap.sources[n];
      return `- ${ctx.deps.health.display(n)} [${n}]: ${s?.ok ? 'ok' : 'down'}${s?.reason ? ` (${s.reason})` : ''} · last reached ${s?.checked ?? 'never probed'}`;
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
