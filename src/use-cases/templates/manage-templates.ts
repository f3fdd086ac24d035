/** Scan templates: create, list, get, patch, delete (each behind its scope, by the route). */
import { ApiError } from '../../domain/errors.js';
import { maskSecretConfig } from '../../domain/secrets/secret-config.js';
import { maskSecretOptions, SECRET_MASK } from '../../domain/secrets/secret-options.js';
import type { IdSource, Page } from '../ports/common.js';
import type { SecretBox } from '../ports/secrets.js';
import type { TemplateFields, TemplateRecord, TemplateStore } from '../ports/templates.js';
import { pagination } from '../scans/scan-view.js';
import { configToStore, optionsToStore } from '../secrets/option-secrets.js';
import { templateFieldsFrom } from './validate-template.js';

export function toTemplateView(template: TemplateRecord) {
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    scanType: template.scanType,
    // Credentials are never shown (as a scan's): `********`, which a PATCH may send back.
    options: maskSecretOptions({ ...template.options }),
    config: maskSecretConfig({ ...template.config }),
    priority: template.priority,
    tags: [...template.tags],
    timeout: template.timeoutSeconds,
    createdAt: template.createdAt.toISOString(),
    updatedAt: template.updatedAt.toISOString(),
  };
}

const duplicate = (name: string) => new ApiError('DUPLICATE_TEMPLATE_NAME', { value: name });

/**
 * The fields to store: credentials sealed, and each one sent as `********` replaced by the one
 * `stored` holds at the same place (none stored there: INVALID_FIELD_VALUE).
 */
function sealedFields(
  secrets: SecretBox,
  tenantId: string,
  fields: TemplateFields,
  stored: Pick<TemplateRecord, 'options' | 'config'>,
): TemplateFields {
  const options = optionsToStore(secrets, tenantId, { ...fields.options }, stored.options);
  const config = configToStore(secrets, tenantId, { ...fields.config }, stored.config);
  for (const kept of [options, config]) {
    if (!kept.ok) {
      throw new ApiError('INVALID_FIELD_VALUE', {
        field: kept.field,
        reason: `${SECRET_MASK} stands for the stored value, and none is stored`,
      });
    }
  }
  return {
    ...fields,
    options: options.ok ? options.options : fields.options,
    config: config.ok ? config.options : fields.config,
  };
}

export async function createTemplate(
  deps: {
    readonly templates: TemplateStore;
    readonly ids: IdSource;
    readonly secrets: SecretBox;
    /** TENANT_MAX_TEMPLATES: templates one tenant may have. */
    readonly maxTemplates: number;
  },
  tenantId: string,
  body: unknown,
) {
  const fields = sealedFields(deps.secrets, tenantId, templateFieldsFrom(body, null), {
    options: {},
    config: {},
  });
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
  secrets: SecretBox,
) {
  const current = await existing(templates, tenantId, id);
  // The stored options are validated as shown (masked): options left out keep their credentials.
  const fields = sealedFields(
    secrets,
    tenantId,
    templateFieldsFrom(body, {
      ...current,
      options: maskSecretOptions(current.options),
      config: maskSecretConfig(current.config),
    }),
    current,
  );
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
