// The list envelope of each listed resource, as named components (`OrderList`, ...), and the query
// parameters of each list endpoint (decisions.md "Pagination", "Orders", "Accounts and reach",
// "Users"). The query schemas describe the decoded values (a boolean is sent as `true`/`false`,
// numbers as decimal digits); they are what the OpenAPI document shows for each parameter.
import { APPROVAL_STATUSES, Approval } from './approval-schemas';
import { CatalogItem } from './catalog-schemas';
import { TimeFilter, listOf } from './common-schemas';
import { Customer } from './customer-schemas';
import { Order, OrderStatus } from './order-schemas';
import { USER_ROLES, USER_STATUSES, User } from './user-schemas';
import { WEBHOOK_DELIVERY_STATUSES, WebhookDelivery } from './webhook-delivery-schemas';
import { WebhookSubscription } from './webhook-schemas';
import { ALL_EVENT_TYPES } from '../events/event-types';
import { z } from '../zod';

export const OrderList = listOf(Order, 'OrderList');
export const CatalogItemList = listOf(CatalogItem, 'CatalogItemList');
export const CustomerList = listOf(Customer, 'CustomerList');
export const UserList = listOf(User, 'UserList');
export const ApprovalList = listOf(Approval, 'ApprovalList');
export const WebhookSubscriptionList = listOf(WebhookSubscription, 'WebhookSubscriptionList');
export const WebhookDeliveryList = listOf(WebhookDelivery, 'WebhookDeliveryList');

export const PAGE_LIMIT_DEFAULT = 25;
export const PAGE_LIMIT_MAX = 100;

/** `limit` and `starting_after` of every list endpoint. */
export const PaginationQuery = z.object({
  limit: z.int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT).openapi({
    description: 'Page size, 1 to 100 (outside: 422 `invalid_value`, param `limit`)',
    example: 25,
  }),
  starting_after: z.string().min(1).optional().openapi({
    description: "The previous page's `next_cursor` (opaque)",
  }),
});

const custIdFilter = z.string().min(1).openapi({
  description: "A customer account within the token's reach (its own or a descendant); outside it: 404",
});

export const ListOrdersQuery = z
  .object({
    cust_id: custIdFilter.optional(),
    status: OrderStatus.optional(),
    created_after: TimeFilter.optional().openapi({
      description:
        'Inclusive lower bound on the creation (submission) time: an ISO 8601 date-time with a zone, or a date (midnight UTC)',
    }),
  })
  .extend(PaginationQuery.shape);

export const ListCatalogItemsQuery = z
  .object({
    cust_id: custIdFilter.openapi({
      description: 'The account whose catalog (visibility, pricing, availability) is listed',
    }),
    category_id: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'The category and all its sub-categories; unknown: 422 invalid_value' }),
    q: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({
        description:
          'Full-text search over name, description and SKU (English stems, near spellings of name words ' +
          'tolerated), ranked: the exact item code, then name matches, then description matches, then ' +
          'near spellings; by item code within each. Words are ANDed; `"a phrase"`, `or` and `-word` ' +
          '(leaves out the items holding it, in every tier) work as in web search engines',
      }),
    available: z
      .boolean()
      .optional()
      .openapi({
        description:
          '`true` excludes discontinued or out-of-stock items and those made unavailable to the account; ' +
          '`false` lists only those',
      }),
  })
  .extend(PaginationQuery.shape);

/** GET /v1/catalog/items/{id}: the account whose view is shown. */
export const RetrieveCatalogItemQuery = z.object({
  cust_id: z.string().min(1).optional().openapi({
    description: "The account whose view (pricing, availability) is shown; default the token's own account",
  }),
});

export const ListCustomersQuery = z
  .object({
    parent_cust_id: z.string().min(1).optional().openapi({
      description: "Only the direct children of this account (none for an account outside the token's reach)",
    }),
  })
  .extend(PaginationQuery.shape);

export const ListUsersQuery = z
  .object({
    cust_id: custIdFilter.optional(),
    status: z.enum(USER_STATUSES).optional(),
    role: z.enum(USER_ROLES).optional(),
  })
  .extend(PaginationQuery.shape);

export const ListApprovalsQuery = z
  .object({
    approver: z.string().min(1).openapi({
      description:
        "Login of the approver whose queue is listed: the token's own login, or any approver of the token's account tree when the token reads every order of it (`admin:all`, a user with the `admin` role, or a client-credentials token). Any other login is 404 `resource_missing` with `param` `approver`",
    }),
    status: z
      .enum(APPROVAL_STATUSES)
      .optional()
      .openapi({ description: 'Approvals in this status (default `pending`)' }),
  })
  .extend(PaginationQuery.shape);

export const ListWebhooksQuery = PaginationQuery;

export const ListWebhookDeliveriesQuery = z
  .object({
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
    event_type: z
      .enum(ALL_EVENT_TYPES)
      .optional()
      .openapi({ description: 'Only deliveries of this event type (`webhook.test` included)' }),
    created_after: TimeFilter.optional().openapi({
      description:
        'Inclusive lower bound on the creation time: an ISO 8601 date-time with a zone, or a date (midnight UTC)',
    }),
    created_before: TimeFilter.optional().openapi({
      description:
        'Exclusive upper bound on the creation time: an ISO 8601 date-time with a zone, or a date (midnight UTC)',
    }),
  })
  .extend(PaginationQuery.shape);
