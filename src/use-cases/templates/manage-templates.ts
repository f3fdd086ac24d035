/** Scan templates: create, list, get, patch, delete (each behind its scope, by the route). */
import { ApiError } from '../../domain/errors.js';
import type { IdSource, Page } from '../ports/common.js';
import type { TemplateRecord, TemplateStore } from '../ports/templates.js';
import { pagination } from '../scans/scan-view.js';
import { templateFieldsFrom } from './validate-template.js';

export function toTemplateView(template: TemplateRecord) {
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    scanType: template.scanType,
    options: { ...template.options },
    config: { ...template.config },
    priority: template.priority,
    tags: [...template.tags],
    timeout: template.timeoutSeconds,
    createdAt: template.createdAt.toISOString(),
    updatedAt: template.updatedAt.toISOString(),
  };
}

const duplicate = (name: string) => new ApiError('DUPLICATE_TEMPLATE_NAME', { value: name });

export async function createTemplate(
  deps: {
    readonly templates: TemplateStore;
    readonly ids: IdSource;
    /** TENANT_MAX_TEMPLATES: templates one tenant may have. */
    readonly maxTemplates: number;
  },
  tenantId: string,
  body: unknown,
) {
  const fields = templateFieldsFrom(body, null);
  const created = await deps.templates.insert(
    { ...fields, id: deps.ids.uuid(), tenantId },
    deps.maxTemplates,
  );
  if (created === 'duplicate-name') {
    throw duplicate(fields.name);
  }
  if (created === 'limit-reached') {
    throw new ApiError('TENANT_LIMIT_REACHED', {
      limit: deps.maxTemplates,
      resource: 'templates',
    });
  }
  return { template: toTemplateView(created) };
}

export async function listTemplates(templates: TemplateStore, tenantId: string, page: Page) {
  const found = await templates.list(tenantId, page);
  return {
    templates: found.templates.map(toTemplateView),
    pagination: pagination(page.page, page.limit, found.total),
  };
}

async function existing(templates: TemplateStore, tenantId: string, id: string) {
  const template = await templates.get(tenantId, id);
  if (template === null) {
    throw new ApiError('TEMPLATE_NOT_FOUND');
  }
  return template;
}

export async function getTemplate(templates: TemplateStore, tenantId: string, id: string) {
  return { template: toTemplateView(await existing(templates, tenantId, id)) };
}

export async function patchTemplate(
  templates: TemplateStore,
  tenantId: string,
  id: string,
  body: unknown,
) {
  const current = await existing(templates, tenantId, id);
  const fields = templateFieldsFrom(body, current);
  const updated = await templates.update(tenantId, id, fields);
  if (updated === 'duplicate-name') {
    throw duplicate(fields.name);
  }
  if (updated === null) {
    throw new ApiError('TEMPLATE_NOT_FOUND');
  }
  return { template: toTemplateView(updated) };
}

export async function deleteTemplate(templates: TemplateStore, tenantId: string, id: string) {
  if (!(await templates.delete(tenantId, id))) {
    throw new ApiError('TEMPLATE_NOT_FOUND');
  }
  return { id, deleted: true as const };
}
