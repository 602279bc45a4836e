// `colony usage`: metered credits this period (docs/commerce.md, "Usage and credits").
import type { CommandSpec } from '../spec.ts';

export const usageCommands: CommandSpec[] = [
  {
    path: ['usage'],
    summary: "Show the credits used this period against the plan's allowance, and the projected overage",
    args: [],
    flags: {},
    examples: ['colony usage', 'colony usage --json'],
    auth: 'any',
    load: () => import('../commands/usage.ts').then((m) => m.run),
  },
];
