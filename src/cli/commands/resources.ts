/** The resource commands other than scans: one module each. */
import type { Command } from 'commander';
import { registerAdmin } from './admin.js';
import { registerAssets } from './assets.js';
import { registerIssues } from './issues.js';
import { registerKeys } from './keys.js';
import { registerSchedules } from './schedules.js';
import { registerTemplates } from './templates.js';
import { registerUsage } from './usage.js';
import { registerWebhooks } from './webhooks.js';

export function registerResources(program: Command): void {
  registerKeys(program);
  registerUsage(program);
  registerWebhooks(program);
  registerTemplates(program);
  registerAssets(program);
  registerSchedules(program);
  registerIssues(program);
  registerAdmin(program);
}
