// SCIM discovery documents (RFC 7644 section 4, RFC 7643 sections 5-7): what this service supports.
import {
  SCIM_ENTERPRISE_SCHEMA,
  SCIM_USER_SCHEMA,
  type ScimMetaContext,
} from '../../domain/scim-user-mapping';
import { SCIM_MAX_RESULTS } from '../../domain/scim-provisioning-use-case';

export function serviceProviderConfig(ctx: ScimMetaContext) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: 'https://developer.example.com/docs/scim',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'An access token of the API with the users:write scope, for the account it provisions',
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${ctx.baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(ctx: ScimMetaContext) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A shopper of the customer account',
      schema: SCIM_USER_SCHEMA,
      schemaExtensions: [{ schema: SCIM_ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${ctx.baseUrl}/ResourceTypes/User` },
    },
  ];
}

interface ScimAttribute {
  name: string;
  type: string;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: string;
  returned: string;
  uniqueness: string;
  subAttributes?: ScimAttribute[];
}

interface AttributeOptions {
  required?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  uniqueness?: 'none' | 'server' | 'global';
  multiValued?: boolean;
  type?: 'string' | 'boolean' | 'complex';
  subAttributes?: ScimAttribute[];
  caseExact?: boolean;
  description?: string;
}

function attribute(name: string, o: AttributeOptions = {}): ScimAttribute {
  return {
    name,
    type: o.type ?? 'string',
    multiValued: o.multiValued ?? false,
    description: o.description ?? name,
    required: o.required ?? false,
    caseExact: o.caseExact ?? false,
    mutability: o.mutability ?? 'readWrite',
    returned: 'default',
    uniqueness: o.uniqueness ?? 'none',
    ...(o.subAttributes ? { subAttributes: o.subAttributes } : {}),
  };
}

export function schemas(ctx: ScimMetaContext) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      id: SCIM_USER_SCHEMA,
      name: 'User',
      description: 'A shopper; userName is the login (unique across every account) and cannot change',
      attributes: [
        attribute('userName', {
          required: true,
          mutability: 'immutable',
          uniqueness: 'global',
          description: 'The login; letters, digits and . _ @ + -',
        }),
        attribute('name', {
          type: 'complex',
          subAttributes: [attribute('formatted'), attribute('givenName'), attribute('familyName')],
        }),
        attribute('displayName'),
        attribute('active', { type: 'boolean', description: 'false deactivates the shopper' }),
        attribute('emails', {
          type: 'complex',
          multiValued: true,
          description: 'The primary (else the first) value is the shopper e-mail',
          subAttributes: [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' })],
        }),
        attribute('roles', {
          type: 'complex',
          multiValued: true,
          mutability: 'readOnly',
          subAttributes: [attribute('value', { mutability: 'readOnly' })],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${ctx.baseUrl}/Schemas/${SCIM_USER_SCHEMA}` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      id: SCIM_ENTERPRISE_SCHEMA,
      name: 'EnterpriseUser',
      description: 'Enterprise attributes kept by this service',
      attributes: [attribute('employeeNumber'), attribute('department'), attribute('costCenter')],
      meta: { resourceType: 'Schema', location: `${ctx.baseUrl}/Schemas/${SCIM_ENTERPRISE_SCHEMA}` },
    },
  ];
}
