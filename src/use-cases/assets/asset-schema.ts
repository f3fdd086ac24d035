/** The bodies of POST and PATCH /api/v1/assets as JSON Schema (TypeBox). */
import { Type } from '@sinclair/typebox';
import { ASSET_KINDS } from '../../domain/assets/coverage.js';
import { MAX_TARGET_LENGTH } from '../../domain/targets/parse-target.js';
import { orNull } from '../../domain/validation/or-null.js';
import { MAX_NAME_LENGTH, TagsSchema } from '../scans/scan-request-schema.js';

const Name = Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH });

export const CreateAssetBody = Type.Object({
  name: Name,
  kind: Type.String({
    enum: [...ASSET_KINDS],
    description: 'domain, host, ip, network, url or image',
  }),
  value: Type.String({
    minLength: 1,
    maxLength: MAX_TARGET_LENGTH,
    description:
      'In the scan target grammar of the kind (a network at least /16 for IPv4, /112 for IPv6). A domain covers its subdomains and URLs on them; a network covers its addresses; a url covers URLs of its origin under its path',
  }),
  tags: Type.Optional(orNull(TagsSchema)),
});

/** Only name and tags change; a different value is a different asset (create it). */
export const PatchAssetBody = Type.Object({
  name: Type.Optional(Name),
  tags: Type.Optional(orNull(TagsSchema)),
});
