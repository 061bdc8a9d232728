// The named schemas of the API for the OpenAPI document. The gateway builds /v1/openapi.json:
//   const registry = new OpenAPIRegistry(); registerApiComponents(registry);
//   registry.registerPath({ ..., responses: { 200: { content: { 'application/json': { schema: Order } } } } });
//   new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info, servers });
// Schemas referenced from paths are emitted as components by their `.openapi('<Name>')` name anyway;
// registering them all makes the document complete even before every path is declared.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { EVENT_SCHEMAS, EventEnvelope } from './events/event-envelope';
import { AuthRevocation } from './messages/auth-revocation';
import { UserRolesChange } from './messages/user-roles-change';
import { FulfilmentUpdate } from './messages/fulfilment-update';
import { Approval, ApproveRequest, RejectRequest } from './schemas/approval-schemas';
import { CatalogItem } from './schemas/catalog-schemas';
import { ErrorBody, Money, UserRef } from './schemas/common-schemas';
import { Address, ApprovalChain, Customer, PutApprovalChainRequest } from './schemas/customer-schemas';
import { CancelOrderRequest, CreateOrderRequest, Order, OrderItem } from './schemas/order-schemas';
import { CreateUserRequest, UpdateUserRequest, User } from './schemas/user-schemas';
import {
  ApprovalList,
  CatalogItemList,
  CustomerList,
  OrderList,
  UserList,
  WebhookDeliveryList,
  WebhookSubscriptionList,
} from './schemas/list-schemas';
import {
  ReplayWebhookDeliveriesRequest,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookReplay,
} from './schemas/webhook-delivery-schemas';
import {
  CreateWebhookRequest,
  DeletedWebhookSubscription,
  UpdateWebhookRequest,
  WebhookSubscription,
} from './schemas/webhook-schemas';
import type { z } from './zod';

/** Public API components by name (internal messages such as FulfilmentUpdate are not among them). */
export const API_COMPONENTS: Record<string, z.ZodType> = {
  Money,
  UserRef,
  Address,
  Customer,
  ApprovalChain,
  PutApprovalChainRequest,
  Order,
  OrderItem,
  CreateOrderRequest,
  CancelOrderRequest,
  CatalogItem,
  User,
  CreateUserRequest,
  UpdateUserRequest,
  Approval,
  ApproveRequest,
  RejectRequest,
  WebhookSubscription,
  CreateWebhookRequest,
  UpdateWebhookRequest,
  DeletedWebhookSubscription,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  ReplayWebhookDeliveriesRequest,
  WebhookReplay,
  OrderList,
  CatalogItemList,
  CustomerList,
  UserList,
  ApprovalList,
  WebhookSubscriptionList,
  WebhookDeliveryList,
  Error: ErrorBody,
  Event: EventEnvelope,
};

/** Internal Kafka messages, for an internal document (never served by the public gateway). */
export const INTERNAL_COMPONENTS: Record<string, z.ZodType> = {
  FulfilmentUpdate,
  AuthRevocation,
  UserRolesChange,
};

export function registerApiComponents(registry: OpenAPIRegistry): OpenAPIRegistry {
  for (const [name, schema] of Object.entries(API_COMPONENTS)) registry.register(name, schema);
  return registry;
}

/**
 * A document with every component and, under OpenAPI 3.1 `webhooks`, one entry per event type
 * (what a subscriber's endpoint receives). Paths are added by the caller through `registry`.
 */
export function generateOpenApiDocument(
  info: { title: string; version: string; description?: string },
  registry: OpenAPIRegistry = registerApiComponents(new OpenAPIRegistry()),
  servers: { url: string; description?: string }[] = [],
) {
  for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) {
    if (type === 'webhook.test') continue;
    registry.registerWebhook({
      method: 'post',
      path: type,
      summary: `Event ${type}`,
      request: { body: { content: { 'application/json': { schema } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery' } },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info, servers });
}

export { OpenAPIRegistry, OpenApiGeneratorV31 };
