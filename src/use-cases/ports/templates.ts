/**
 * Scan templates: their records and store.
 */
import type { Page } from './common.js';

export interface TemplateRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly scanType: string;
  /** The options as given (defaults are filled in when a scan is created from it). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly priority: string | null;
  readonly tags: readonly string[];
  readonly timeoutSeconds: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type TemplateFields = Omit<TemplateRecord, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>;

export interface TemplateStore {
  /**
   * 'duplicate-name' when the tenant has a template of that name (the unique index decides);
   * 'limit-reached' when it already has `maxTemplates` (concurrent inserts of one tenant are
   * counted one after the other).
   */
  insert(
    template: TemplateFields & { readonly id: string; readonly tenantId: string },
    maxTemplates: number,
  ): Promise<TemplateRecord | 'duplicate-name' | 'limit-reached'>;
  list(tenantId: string, page: Page): Promise<{ templates: TemplateRecord[]; total: number }>;
  get(tenantId: string, id: string): Promise<TemplateRecord | null>;
  update(
    tenantId: string,
    id: string,
    fields: TemplateFields,
  ): Promise<TemplateRecord | null | 'duplicate-name'>;
  delete(tenantId: string, id: string): Promise<boolean>;
}
